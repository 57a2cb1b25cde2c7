import networkx as nx
import numpy as np

from bbqmis.coloring.classical.dsatur_search import dsatur_search


def bitsets(graph):
    adjacency = nx.to_numpy_array(graph, dtype=bool)
    return [sum(1 << int(u) for u in np.flatnonzero(row)) for row in adjacency]


def is_proper(graph, colors):
    return all(colors[u] != colors[v] for u, v in graph.edges)


def test_the_search_proves_the_chromatic_number_of_a_mycielski_graph():
    graph = nx.mycielski_graph(5)  # 23 vertices, chi 5, clique 2
    colors, count, proven, nodes, stopped = dsatur_search(bitsets(graph), 7, 2, None, None)
    assert count == 5 and proven and stopped is None and nodes > 0
    assert is_proper(graph, colors) and len(set(colors)) == 5


def test_nothing_beats_an_optimal_bound():
    graph = nx.cycle_graph(5)
    colors, count, proven, _, _ = dsatur_search(bitsets(graph), 3, 0, None, None)
    assert colors is None and count == 3 and proven


def test_a_colouring_that_meets_the_lower_bound_ends_the_search():
    graph = nx.complete_graph(4)
    colors, count, proven, nodes, _ = dsatur_search(bitsets(graph), 5, 4, None, None)
    assert count == 4 and proven and is_proper(graph, colors)


def test_limits_stop_the_search_without_a_proof():
    adj = bitsets(nx.mycielski_graph(6))  # 47 vertices: tens of thousands of decisions
    _, _, proven, nodes, stopped = dsatur_search(adj, 7, 2, None, 10)
    assert not proven and nodes == 10 and stopped == "node_limit"
    _, _, proven, _, stopped = dsatur_search(adj, 7, 2, 0.0, None)
    assert not proven and stopped == "time_limit"
