import itertools
import time

import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.classical import clique as clique_module
from bbqmis.coloring.classical.clique import adjacency_bitsets, graph_clique, max_clique


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


# -- adjacency_bitsets built row by row, graph_clique on both of its paths --------------------
def expected_bitsets(graph, nodes):
    index = {v: i for i, v in enumerate(nodes)}
    return [sum(1 << index[w] for w in graph[v] if w in index) for v in nodes]


def is_clique_of(graph, nodes, clique):
    """``clique`` holds distinct indices into ``nodes`` of pairwise adjacent vertices."""
    return (
        list(clique) == sorted(set(clique))
        and all(0 <= i < len(nodes) for i in clique)
        and all(graph.has_edge(nodes[a], nodes[b]) for a, b in itertools.combinations(clique, 2))
    )


def brute_force_clique_number(graph):
    nodes = list(graph)
    for size in range(len(nodes), 0, -1):
        for subset in itertools.combinations(nodes, size):
            if all(graph.has_edge(u, v) for u, v in itertools.combinations(subset, 2)):
                return size
    return 0


def choose_path(path, monkeypatch):
    """Force ``graph_clique`` onto ``path``; the list records the graphs searched by neighbourhoods."""
    calls = []
    if path == "neighbourhoods":
        search = clique_module._clique_by_neighbourhoods

        def counted(graph, order, deadline):
            calls.append(len(order))
            return search(graph, order, deadline)

        monkeypatch.setattr(clique_module, "MAX_BITSET_NODES", 5)
        monkeypatch.setattr(clique_module, "_clique_by_neighbourhoods", counted)
    return calls


def random_labelled_graph(seed, max_nodes=40):
    """A random graph, sometimes with string labels, with a few isolated vertices added."""
    rng = np.random.default_rng(seed)
    graph = nx.gnp_random_graph(int(rng.integers(1, max_nodes)), float(rng.uniform(0.1, 0.9)), seed=seed)
    graph.add_nodes_from(range(graph.number_of_nodes(), graph.number_of_nodes() + int(rng.integers(0, 3))))
    if seed % 2:
        graph = nx.relabel_nodes(graph, {v: f"v{v}" for v in graph})
    return graph


@pytest.mark.timeout(60)
@pytest.mark.parametrize("seed", range(20))
def test_adjacency_bitsets_are_the_neighbourhoods_in_the_given_order(seed):
    graph = random_labelled_graph(seed, max_nodes=80)
    nodes = list(graph)
    assert adjacency_bitsets(graph) == expected_bitsets(graph, nodes)
    rng = np.random.default_rng(seed)
    shuffled = [nodes[i] for i in rng.permutation(len(nodes))]
    assert adjacency_bitsets(graph, shuffled) == expected_bitsets(graph, shuffled)
    subset = shuffled[: len(shuffled) // 2]  # edges leaving the subset are left out
    assert adjacency_bitsets(graph, subset) == expected_bitsets(graph, subset)


@pytest.mark.timeout(30)
def test_adjacency_bitsets_of_the_empty_graph_and_of_an_empty_order():
    assert adjacency_bitsets(nx.Graph()) == []
    assert adjacency_bitsets(nx.path_graph(3), []) == []
    assert adjacency_bitsets(nx.empty_graph(70)) == [0] * 70


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("path", ["bitsets", "neighbourhoods"])
def test_graph_clique_finds_a_maximum_clique(seed, path, monkeypatch):
    calls = choose_path(path, monkeypatch)
    graph = random_labelled_graph(seed)
    nodes = list(graph)
    np.random.default_rng(seed).shuffle(nodes)
    result = graph_clique(graph, nodes)
    assert is_clique_of(graph, nodes, result.clique)
    assert result.optimal and result.size == nx.max_weight_clique(graph, weight=None)[1]
    assert graph_clique(graph).size == result.size  # the default order: list(graph)
    assert calls == ([len(nodes)] * 2 if path == "neighbourhoods" and len(nodes) > 5 else [])


@pytest.mark.timeout(60)
@pytest.mark.parametrize("path", ["bitsets", "neighbourhoods"])
def test_graph_clique_matches_brute_force_on_small_graphs(path, monkeypatch, graphs):
    calls = choose_path(path, monkeypatch)
    for graph in graphs(25, seed=71, max_nodes=10):
        nodes = list(graph)
        result = graph_clique(graph, nodes)
        assert is_clique_of(graph, nodes, result.clique)
        assert result.optimal and result.size == brute_force_clique_number(graph)
    assert (len(calls) > 10) is (path == "neighbourhoods")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("path", ["bitsets", "neighbourhoods"])
def test_graph_clique_with_a_past_deadline_returns_a_clique_without_claiming_optimality(path, monkeypatch):
    calls = choose_path(path, monkeypatch)
    graph = nx.gnp_random_graph(60, 0.6, seed=5)
    nodes = list(graph)[::-1]
    result = graph_clique(graph, nodes, deadline=time.perf_counter() - 1.0)
    assert calls == ([60] if path == "neighbourhoods" else [])
    assert not result.optimal and result.size >= 1
    assert is_clique_of(graph, nodes, result.clique)
    assert graph_clique(graph, nodes).size > result.size  # the search was cut short


@pytest.mark.timeout(30)
def test_max_clique_looks_at_the_clock_at_its_first_node():
    graph = nx.gnp_random_graph(40, 0.5, seed=2)
    bits = adjacency_bitsets(graph)
    full = max_clique(bits)
    assert full.optimal and full.nodes > 1  # the root is not the end of this search
    stopped = max_clique(bits, deadline=time.perf_counter() - 1.0)
    assert not stopped.optimal and stopped.nodes == 1
    assert is_clique_of(graph, list(graph), stopped.clique) and stopped.size >= 1
