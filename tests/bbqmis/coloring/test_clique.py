import itertools
import time

import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.clique import adjacency_bitsets, max_clique


def clique_number(graph: nx.Graph) -> int:
    return max((len(c) for c in nx.find_cliques(graph)), default=0)


@pytest.mark.parametrize("seed", range(40))
def test_max_clique_matches_networkx_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    graph = nx.gnp_random_graph(int(rng.integers(1, 16)), float(rng.uniform(0.1, 0.9)), seed=seed)
    result = max_clique(adjacency_bitsets(graph))
    assert result.optimal and result.size == clique_number(graph)
    nodes = list(graph)
    assert all(graph.has_edge(nodes[a], nodes[b]) for a, b in itertools.combinations(result.clique, 2))


def test_empty_graph_has_the_empty_clique():
    assert max_clique([]).clique == () and max_clique([]).optimal


def test_lower_stops_at_a_clique_of_that_size():
    graph = nx.complete_graph(6)
    result = max_clique(adjacency_bitsets(graph), lower=3)
    assert result.size >= 3 and result.optimal


def test_deadline_returns_the_best_clique_so_far_without_claiming_optimality():
    graph = nx.gnp_random_graph(150, 0.9, seed=1)
    start = time.perf_counter()
    result = max_clique(adjacency_bitsets(graph), deadline=start + 0.2)
    assert time.perf_counter() - start < 1.5
    assert not result.optimal and result.size >= 2
    nodes = list(graph)
    assert all(graph.has_edge(nodes[a], nodes[b]) for a, b in itertools.combinations(result.clique, 2))


def test_node_limit_is_validated():
    from backends.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="node_limit must be a positive integer, got 0"):
        max_clique([0, 0], node_limit=0)
