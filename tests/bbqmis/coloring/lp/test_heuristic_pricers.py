import math
from pathlib import Path

import numpy as np
import pytest

from bbqmis.coloring.lp.heuristic_pricers import QAOAPricer
from bbqmis.coloring.lp.lp_bound import lp_bound
from bbqmis.coloring.lp.master import IndexedGraph, bit_indices
from bbqmis.coloring.lp.pricers import get_pricer
from bbqmis.mis.graphio import read_graph

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"


@pytest.mark.parametrize("name", ["greedy", "anneal", "random"])
def test_heuristic_pricers_return_maximal_sets(name, graphs, is_maximal_independent, brute_force_mwis):
    pricer = get_pricer(name)
    for graph in graphs(4, seed=3):
        indexed = IndexedGraph.from_graph(graph)
        duals = np.random.default_rng(0).uniform(0, 1, indexed.n)
        result = pricer.price(graph, duals, seed=1)
        assert result.masks and math.isinf(result.upper) and not result.optimal
        assert all(is_maximal_independent(indexed, m) for m in result.masks)
        expected = [duals[list(bit_indices(m))].sum() for m in result.masks]
        np.testing.assert_allclose(result.weights, expected)
        assert list(result.weights) == sorted(result.weights, reverse=True)
        assert result.best <= brute_force_mwis(indexed, duals) + 1e-9
        assert result.stats["calls"] == 1


# -- the quantum pricer ------------------------------------------------------------------


def test_qaoa_pricer_on_aer(is_maximal_independent):
    graph = read_graph(DATA / "myciel4.col")  # 23 vertices
    pricer = QAOAPricer("aer", shots=256, max_qubits=10)
    duals = np.random.default_rng(1).uniform(0.1, 1.0, 23)
    result = pricer.price(graph, duals, seed=5)
    indexed = IndexedGraph.from_graph(graph)
    assert result.masks and all(is_maximal_independent(indexed, m) for m in result.masks)
    # Only the 10 largest duals were sampled: one uncut circuit, no fallback.
    assert result.stats["circuits"] == 1 and result.stats["shots"] == 256
    assert result.stats["fallbacks"] == 0 and result.stats["cut_problems"] == 0

    bound = lp_bound(read_graph(DATA / "myciel3.col"), pricers=(pricer,), seed=3)
    assert bound.certified and bound.value == pytest.approx(2.9)
    qaoa = bound.stats["qaoa"]
    assert qaoa["calls"] == bound.rounds and qaoa["circuits"] == bound.rounds
    assert qaoa["improving_columns"] >= 1  # the quantum pricer contributed columns
    assert qaoa["quantum_seconds"] > 0
