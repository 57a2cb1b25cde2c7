import networkx as nx
import pytest

from bbqmis.coloring.reduce import components, easy_coloring, extend_coloring, merge_colorings, peel
from bbqmis.coloring.result import verify_coloring


def test_components_are_largest_first_with_isolated_vertices_together():
    graph = nx.disjoint_union_all([nx.path_graph(2), nx.cycle_graph(5), nx.empty_graph(4)])
    parts = components(graph)
    assert [p.number_of_nodes() for p in parts] == [5, 2, 4]
    assert parts[-1].number_of_edges() == 0
    assert sorted(v for p in parts for v in p) == sorted(graph)


@pytest.mark.parametrize(
    ("graph", "kind", "colors"),
    [
        (nx.empty_graph(0), "empty", 0),
        (nx.empty_graph(7), "edgeless", 1),
        (nx.complete_graph(6), "complete", 6),
        (nx.grid_2d_graph(3, 4), "bipartite", 2),
        (nx.cycle_graph(8), "bipartite", 2),
        (nx.cycle_graph(9), "odd-cycle", 3),
    ],
)
def test_easy_classes_are_coloured_optimally(graph, kind, colors):
    coloring, found = easy_coloring(graph)
    assert found == kind
    verify_coloring(graph, coloring)
    assert len(set(coloring.values())) == colors


def test_other_graphs_are_not_easy():
    assert easy_coloring(nx.petersen_graph()) is None
    assert easy_coloring(nx.wheel_graph(6)) is None


def test_peeling_keeps_the_clique_and_extension_adds_no_colour():
    graph = nx.lollipop_graph(5, 6)  # K5 with a path of 6 hanging off
    clique = range(5)
    core, peeled = peel(graph, clique)
    assert core == set(clique) and sorted(peeled) == list(range(5, 11))
    core_coloring = {v: v for v in core}
    coloring = extend_coloring(graph, core_coloring, peeled)
    verify_coloring(graph, coloring)
    assert len(set(coloring.values())) == 5


def test_peeling_a_random_graph_never_changes_the_chromatic_number():
    for seed in range(10):
        graph = nx.gnp_random_graph(14, 0.3, seed=seed)
        clique = max(nx.find_cliques(graph), key=len)
        core, peeled = peel(graph, clique)
        core_coloring = nx.greedy_color(graph.subgraph(core), strategy="DSATUR")
        coloring = extend_coloring(graph, core_coloring, peeled)
        verify_coloring(graph, coloring)
        assert len(set(coloring.values())) == max(len(set(core_coloring.values())), len(clique))


def test_merge_shares_colours_between_components():
    assert merge_colorings([{0: 0, 1: 1}, {2: 0}]) == {0: 0, 1: 1, 2: 0}


def test_single_edges_form_one_part_coloured_as_a_matching():
    graph = nx.disjoint_union_all([nx.path_graph(2)] * 500 + [nx.cycle_graph(5), nx.empty_graph(3)])
    parts = components(graph)
    assert [(p.number_of_nodes(), p.number_of_edges()) for p in parts] == [(5, 5), (1000, 500), (3, 0)]
    coloring, kind = easy_coloring(parts[1])
    assert kind == "matching" and set(coloring.values()) == {0, 1}
    assert all(coloring[u] != coloring[v] for u, v in parts[1].edges())
