"""Audit fixes of the MIS samplers: mixed-type labels work, self-loops and multigraphs are refused."""

import networkx as nx
import pytest

from bbqmis import InvalidParameterError
from bbqmis.coloring.samplers import get_sampler

LOOP = (
    "graph must have no self-loops (a vertex adjacent to itself is in no independent set), got one on node 0"
)


def is_maximal_independent(graph, nodes):
    independent = not any(graph.has_edge(u, v) for u in nodes for v in nodes)
    return independent and all(any(graph.has_edge(v, u) for u in nodes) for v in set(graph) - nodes)


@pytest.mark.parametrize("name", ["qaoa", "random", "anneal", "greedy", "exact"])
def test_mixed_type_labels_are_sampled(name):
    graph = nx.Graph([(1, "a"), ("a", (2, "b")), (frozenset(), 3.5)])
    graph.add_node("alone")
    sets = get_sampler(name).sample(graph, seed=1).sets
    assert sets and all(is_maximal_independent(graph, s) for s in sets)
    assert all("alone" in s for s in sets)


def test_components_whose_labels_differ_in_type_are_drawn_deterministically():
    # Components are taken in the order of their first node in ``graph.nodes``; their
    # smallest labels ("b" and 1) cannot be compared.
    graph = nx.Graph([("b", "c"), (1, 2)])
    again = nx.Graph([("b", "c"), (1, 2)])
    first, second = (get_sampler("random").sample(g, seed=3).sets for g in (graph, again))
    assert first == second and all(is_maximal_independent(graph, s) for s in first)


@pytest.mark.parametrize("name", ["qaoa", "random", "anneal", "greedy", "exact"])
def test_a_self_loop_is_refused(name):
    with pytest.raises(InvalidParameterError) as info:
        get_sampler(name).sample(nx.Graph([(0, 0), (0, 1)]), seed=0)
    assert str(info.value) == LOOP


@pytest.mark.parametrize("name", ["qaoa", "random", "greedy", "exact"])
@pytest.mark.parametrize(
    ("graph", "kind"),
    [(nx.MultiGraph([(0, 1), (0, 1)]), "MultiGraph"), (nx.DiGraph([(0, 1)]), "DiGraph"), ([1, 2], "list")],
)
def test_what_is_not_a_simple_undirected_graph_is_refused(name, graph, kind):
    with pytest.raises(InvalidParameterError) as info:
        get_sampler(name).sample(graph, seed=0)
    assert str(info.value) == f"graph must be an undirected simple networkx.Graph, got {kind}"
