import math
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import linprog

from bbqmis import InvalidParameterError
from bbqmis.coloring.lp.heuristic_pricers import GreedyPricer
from bbqmis.coloring.lp.lp_bound import LPBound, lp_bound
from bbqmis.coloring.lp.master import safe_ceil
from bbqmis.mis.graphio import read_graph

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"


def fractional_chromatic(graph: nx.Graph) -> float:
    """Independent check: the set-cover LP over ALL maximal independent sets."""
    if graph.number_of_nodes() == 0:
        return 0.0
    nodes = list(graph)
    index = {v: i for i, v in enumerate(nodes)}
    sets = list(nx.find_cliques(nx.complement(graph)))
    a = np.zeros((len(nodes), len(sets)))
    for j, s in enumerate(sets):
        a[[index[v] for v in s], j] = 1
    res = linprog(np.ones(len(sets)), A_ub=-a, b_ub=-np.ones(len(nodes)), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


def chromatic_number(graph: nx.Graph) -> int:
    """Brute force: smallest k with a proper k-colouring (backtracking)."""
    nodes = sorted(graph, key=lambda v: -graph.degree(v))
    if not nodes:
        return 0

    def colorable(k: int) -> bool:
        colors: dict = {}

        def place(i: int) -> bool:
            if i == len(nodes):
                return True
            v = nodes[i]
            used = {colors[u] for u in graph[v] if u in colors}
            for c in range(min(k, max(colors.values(), default=-1) + 2)):
                if c not in used:
                    colors[v] = c
                    if place(i + 1):
                        return True
                    del colors[v]
            return False

        return place(0)

    return next(k for k in range(1, len(nodes) + 1) if colorable(k))


# -- column generation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        (nx.cycle_graph(5), 2.5),
        (nx.petersen_graph(), 2.5),
        (nx.complete_graph(1), 1.0),
        (nx.complete_graph(4), 4.0),
        (nx.complete_graph(7), 7.0),
        (read_graph(DATA / "myciel3.col"), 2.9),
        (read_graph(DATA / "myciel4.col"), 2.9 + 1 / 2.9),  # chi_f(M(G)) = chi_f(G) + 1/chi_f(G)
    ],
)
def test_certified_value_is_fractional_chromatic_number(graph, expected, is_maximal_independent):
    result = lp_bound(graph, seed=0)
    assert isinstance(result, LPBound)
    assert result.certified and result.status == "optimal"
    assert result.value == pytest.approx(expected, abs=1e-7)
    assert result.value == pytest.approx(fractional_chromatic(graph), abs=1e-7)
    assert result.bound == safe_ceil(expected)
    assert result.farley == pytest.approx(expected, abs=1e-6)
    assert all(is_maximal_independent(result.columns.graph, m) for m in result.columns.masks)


@pytest.mark.parametrize("pricers", [(), ("greedy",), ("random", "anneal")])
def test_bound_never_exceeds_chromatic_number(pricers, graphs):
    for graph in graphs(12, seed=11):
        result = lp_bound(graph, pricers=pricers, seed=1)
        assert result.certified
        assert result.value == pytest.approx(fractional_chromatic(graph), abs=1e-7)
        assert result.bound <= chromatic_number(graph)


def test_farley_bound_valid_when_cut_short(graphs):
    for graph in [read_graph(DATA / "myciel4.col"), *graphs(8, seed=5, max_nodes=12)]:
        chi_f, chi = fractional_chromatic(graph), chromatic_number(graph)
        for rounds in (1, 2, 3):
            result = lp_bound(graph, pricers=(), max_rounds=rounds, seed=0)  # exact pricing every round
            assert result.farley <= chi_f + 1e-7
            assert result.bound <= chi
            assert result.rounds <= rounds
            assert result.value >= chi_f - 1e-7  # the restricted master is an upper bound
            if not result.certified:
                assert result.status == "max_rounds"
                assert result.bound == safe_ceil(result.farley) if result.farley else result.bound == 0


@pytest.mark.parametrize("quick", [True, False])
def test_quick_and_settle(quick):
    graph = nx.gnp_random_graph(30, 0.3, seed=2)  # chi_f = 14/3
    chi_f = fractional_chromatic(graph)
    full = lp_bound(graph, pricers=(), quick=quick, seed=0)
    assert full.certified and full.value == pytest.approx(chi_f, abs=1e-7)
    exact = full.stats["exact"]
    if quick:  # every exact round starts quick; the certifying round also runs in full
        assert 1 <= exact["quick_calls"] < exact["calls"]
    else:
        assert exact["quick_calls"] == 0
    settled = lp_bound(graph, pricers=(), quick=quick, settle=True, seed=0)
    assert settled.status in ("settled", "optimal")
    assert settled.bound == safe_ceil(chi_f)
    assert settled.rounds <= full.rounds


def test_deadline():
    graph = read_graph(DATA / "myciel4.col")
    expired = lp_bound(graph, deadline=time.perf_counter() - 1.0)
    assert (expired.rounds, expired.bound, expired.certified, expired.status) == (0, 0, False, "deadline")
    assert len(expired.columns) > 0  # seeded with a colouring and a cover
    gnp = nx.gnp_random_graph(60, 0.15, seed=4)
    start = time.perf_counter()
    short = lp_bound(gnp, pricers=(), deadline=start + 0.3, seed=0)
    assert time.perf_counter() - start < 3.0
    if not short.certified:
        assert short.status == "deadline"
    assert short.bound <= chromatic_number(gnp)


def test_heuristics_only_give_no_bound():
    result = lp_bound(read_graph(DATA / "myciel4.col"), pricers=("anneal",), exact=False, seed=0)
    assert not result.certified and result.status == "exhausted"
    assert result.bound == 0 and result.farley == 0.0
    assert "exact" not in result.stats
    assert result.value >= 2.9 + 1 / 2.9 - 1e-7


def test_stats_and_column_reuse(is_maximal_independent):
    graph = read_graph(DATA / "myciel4.col")
    first = lp_bound(graph, pricers=("greedy", "anneal"), seed=2)
    stats = first.stats
    assert set(stats) == {"master", "greedy", "anneal", "exact"}
    assert stats["master"]["calls"] == first.rounds
    added = sum(stats[name]["improving_columns"] for name in ("greedy", "anneal", "exact"))
    assert len(first.columns) == stats["master"]["initial_columns"] + added
    assert stats["exact"]["calls"] >= 1 and stats["greedy"]["calls"] == first.rounds
    again = lp_bound(graph, first.columns, seed=3)
    assert again.certified and again.rounds == 1
    assert again.value == pytest.approx(first.value)
    # A parent's pool seeds a residual subgraph: columns are restricted and re-extended.
    sub = graph.subgraph(list(graph)[:15]).copy()
    child = lp_bound(sub, first.columns, seed=4)
    assert child.certified and child.value == pytest.approx(fractional_chromatic(sub), abs=1e-7)
    assert all(is_maximal_independent(child.columns.graph, m) for m in child.columns.masks)


def test_sampled_sets_seed_the_master():
    graph = nx.petersen_graph()
    sets = list(nx.find_cliques(nx.complement(graph)))
    result = lp_bound(graph, sets, pricers=("anneal",), seed=0)
    assert result.certified and result.rounds == 1
    assert result.stats["anneal"]["improving_columns"] == 0


def test_adjacency_input_and_empty_graph():
    adjacency = nx.to_numpy_array(nx.cycle_graph(5), dtype=bool)
    assert lp_bound(adjacency, seed=0).value == pytest.approx(2.5)
    empty = lp_bound(nx.Graph())
    assert (empty.value, empty.bound, empty.certified) == (0.0, 0, True)
    isolated = lp_bound(nx.empty_graph(3))
    assert (isolated.value, isolated.bound) == (pytest.approx(1.0), 1)


def test_lp_bound_validation():
    graph = nx.cycle_graph(5)
    with pytest.raises(InvalidParameterError, match="max_rounds"):
        lp_bound(graph, max_rounds=0)
    with pytest.raises(InvalidParameterError, match="pricers"):
        lp_bound(graph, pricers="anneal")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="exact"):
        lp_bound(graph, exact=GreedyPricer())
    with pytest.raises(InvalidParameterError, match="deadline"):
        lp_bound(graph, deadline=math.nan)
    with pytest.raises(InvalidParameterError, match="independent"):
        lp_bound(graph, [{0, 1}])
    with pytest.raises(InvalidParameterError, match="self-loop"):
        lp_bound(nx.Graph([(0, 0)]))
