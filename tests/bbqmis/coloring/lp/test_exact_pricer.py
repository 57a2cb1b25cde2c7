import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbqmis import InvalidParameterError
from bbqmis.coloring.lp.exact_pricer import ExactPricer, edge_clique_cover
from bbqmis.coloring.lp.master import IndexedGraph


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.floats(0.1, 0.9), st.integers(0, 2**31 - 1))
def test_edge_clique_cover_covers_every_edge(n, p, seed):
    graph = IndexedGraph.from_graph(nx.gnp_random_graph(n, p, seed=seed))
    cliques = edge_clique_cover(graph)
    covered = set()
    for clique in cliques:
        assert all(graph.adjacency[u, v] for u, v in itertools.combinations(clique, 2))
        covered |= {frozenset(e) for e in itertools.combinations(clique, 2)}
    assert covered == {frozenset(map(int, e)) for e in zip(*np.nonzero(graph.adjacency), strict=True)}


# -- pricers -----------------------------------------------------------------------------


def test_exact_pricer_matches_brute_force(is_maximal_independent, brute_force_mwis):
    rng = np.random.default_rng(7)
    for _ in range(25):
        n = int(rng.integers(1, 12))
        graph = IndexedGraph.from_graph(
            nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.8)), seed=int(rng.integers(99)))
        )
        weights = rng.uniform(0, 1, n) * (rng.random(n) < 0.8)  # some zero duals
        result = ExactPricer().price(graph, weights)
        assert result.optimal
        assert result.best == pytest.approx(brute_force_mwis(graph, weights), abs=1e-7)
        assert result.upper >= result.best - 1e-9
        assert result.upper == pytest.approx(result.best, abs=1e-6)
        assert all(is_maximal_independent(graph, m) for m in result.masks)


def test_exact_pricer_quick_mode_finds_a_heavy_set_or_none(is_maximal_independent, brute_force_mwis):
    rng = np.random.default_rng(8)
    for _ in range(25):
        n = int(rng.integers(2, 12))
        graph = IndexedGraph.from_graph(
            nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.8)), seed=int(rng.integers(99)))
        )
        weights = rng.uniform(0, 0.6, n)
        best = brute_force_mwis(graph, weights)
        target = float(rng.uniform(0.5, 1.5))
        result = ExactPricer().price(graph, weights, target=target)
        assert not result.optimal and math.isinf(result.upper)
        if best >= target + 1e-5:
            assert result.best >= target - 1e-6
        elif best < target - 1e-5:
            assert result.best < target
        assert all(is_maximal_independent(graph, m) for m in result.masks)
    with pytest.raises(InvalidParameterError, match="target"):
        ExactPricer().price(nx.path_graph(2), [1.0, 1.0], target=0.0)
