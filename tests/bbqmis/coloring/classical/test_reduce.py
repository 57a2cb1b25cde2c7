import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.classical.reduce import components, easy_coloring, extend_coloring, merge_colorings, peel
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


# -- components through scipy's connected components ------------------------------------------
def mixed_graph(seed, *, strings=False):
    """Larger components, single edges and isolated vertices, their vertices interleaved in graph order."""
    rng = np.random.default_rng(seed)
    pieces = [nx.empty_graph(1) for _ in range(int(rng.integers(0, 6)))]
    pieces += [nx.path_graph(2) for _ in range(int(rng.integers(0, 6)))]
    for _ in range(int(rng.integers(0, 5))):
        n = int(rng.integers(3, 12))
        tree = nx.random_labeled_tree(n, seed=int(rng.integers(2**31)))  # connected, n vertices
        extra = nx.gnp_random_graph(n, float(rng.uniform(0.0, 0.6)), seed=int(rng.integers(2**31)))
        pieces.append(nx.compose(tree, extra))
    union = nx.disjoint_union_all(pieces) if pieces else nx.Graph()
    order = [int(v) for v in rng.permutation(union.number_of_nodes())]
    name = (lambda v: f"n{v}") if strings else (lambda v: v)
    graph = nx.Graph()
    graph.add_nodes_from(name(v) for v in order)
    graph.add_edges_from((name(u), name(v)) for u, v in union.edges)
    return graph


def in_graph_order(graph, vertices):
    position = {v: i for i, v in enumerate(graph)}
    return sorted(vertices, key=position.__getitem__)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("strings", [False, True], ids=["int-labels", "str-labels"])
def test_components_are_the_larger_components_then_the_single_edges_then_the_isolated(seed, strings):
    graph = mixed_graph(seed, strings=strings)
    parts = components(graph)
    connected = list(nx.connected_components(graph))
    big = [part for part in connected if len(part) > 2]
    matched = in_graph_order(graph, [v for part in connected if len(part) == 2 for v in part])
    isolated = in_graph_order(graph, [v for part in connected if len(part) == 1 for v in part])
    expected_tail = [group for group in (matched, isolated) if group]
    assert len(parts) == len(big) + len(expected_tail)
    head, tail = parts[: len(big)], parts[len(big) :]
    # The larger components: the same partition as networkx's, largest first, each in graph order.
    assert sorted(map(frozenset, head), key=sorted) == sorted(map(frozenset, big), key=sorted)
    sizes = [part.number_of_nodes() for part in head]
    assert sizes == sorted(sizes, reverse=True)
    assert all(list(part) == in_graph_order(graph, part) for part in head)
    assert all(nx.is_connected(part) for part in head)
    # Then one part of every single-edge component, then one of every isolated vertex.
    assert [list(part) for part in tail] == expected_tail
    if matched:
        assert tail[0].number_of_edges() == len(matched) // 2
        assert all(degree == 1 for _, degree in tail[0].degree)
    if isolated:
        assert tail[-1].number_of_edges() == 0
    # Together, the parts are the graph: every vertex once, every edge once.
    vertices = [v for part in parts for v in part]
    assert len(vertices) == len(set(vertices)) and set(vertices) == set(graph)
    edges = [frozenset(edge) for part in parts for edge in part.edges]
    assert len(edges) == len(set(edges)) and set(edges) == {frozenset(edge) for edge in graph.edges}
    # Each part has the graph's neighbours of its vertices, in both directions.
    for part in parts:
        assert all(set(part[v]) == set(graph[v]) for v in part)
        assert all(u in part[v] for v, u in part.edges)


@pytest.mark.timeout(30)
def test_components_of_the_empty_graph_is_no_part():
    assert components(nx.Graph()) == []


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("graph", "sizes"),
    [
        (nx.empty_graph(6), [(6, 0)]),
        (nx.disjoint_union_all([nx.path_graph(2)] * 3), [(6, 3)]),
        (nx.path_graph(3), [(3, 2)]),
    ],
    ids=["only-isolated", "only-single-edges", "one-path"],
)
def test_components_of_a_graph_with_one_kind_of_component(graph, sizes):
    parts = components(graph)
    assert [(p.number_of_nodes(), p.number_of_edges()) for p in parts] == sizes
    assert [list(p) for p in parts] == [list(graph)]


@pytest.mark.timeout(30)
def test_components_of_equal_size_are_ordered_by_their_smallest_label():
    # Two triangles of the same size: the one whose smallest label (as a string) is smaller first.
    graph = nx.Graph([("z", "y"), ("y", "x"), ("x", "z"), ("c", "b"), ("b", "a"), ("a", "c")])
    parts = components(graph)
    assert [sorted(p) for p in parts] == [["a", "b", "c"], ["x", "y", "z"]]
    assert [list(p) for p in parts] == [in_graph_order(graph, "abc"), in_graph_order(graph, "xyz")]


def test_a_connected_graph_is_its_own_part_without_a_copy():
    graph = nx.petersen_graph()
    assert components(graph)[0] is graph
    split = nx.union(nx.petersen_graph(), nx.path_graph(range(10, 13)))
    assert all(part is not split for part in components(split))
