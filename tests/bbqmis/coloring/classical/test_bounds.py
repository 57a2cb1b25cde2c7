import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.classical.bounds import (
    ChromaticBounds,
    _ceil,
    adjacency_bounds,
    chromatic_lower_bound,
    dsatur,
    dsatur_coloring,
    greedy_clique,
)
from bbqmis.mis.errors import InvalidParameterError

FIELDS = ("clique", "odd_cycle", "hoffman", "edwards", "inertia")


def adjacency(graph: nx.Graph) -> np.ndarray:
    return nx.to_numpy_array(graph, dtype=bool, weight=None)


def colorable(adj: np.ndarray, k: int) -> bool:
    """Backtracking: can the graph be properly coloured with k colours?"""
    n = len(adj)
    order = np.argsort(-adj.sum(1), kind="stable")
    colors = np.full(n, -1)

    def place(i: int) -> bool:
        if i == n:
            return True
        v = order[i]
        used = set(colors[adj[v]].tolist())
        for c in range(k):
            if c not in used:
                colors[v] = c
                if place(i + 1):
                    return True
        colors[v] = -1
        return False

    return place(0)


def chromatic_number(graph: nx.Graph) -> int:
    adj = adjacency(graph)
    k = 0
    while not colorable(adj, k):
        k += 1
    return k


def clique_number(graph: nx.Graph) -> int:
    return len(nx.max_weight_clique(graph, weight=None)[0]) if len(graph) else 0


def verify_coloring(adj: np.ndarray, colors: np.ndarray) -> None:
    assert colors.shape == (len(adj),)
    u, v = np.nonzero(adj)
    assert not (colors[u] == colors[v]).any(), "adjacent vertices share a colour"
    if len(adj):
        assert sorted(set(colors.tolist())) == list(range(colors.max() + 1)), "colours are not 0..k-1"


def bipartite_graphs():
    rng = np.random.default_rng(11)
    yield "K_{30,40}", nx.complete_bipartite_graph(30, 40)
    yield "K_{1,50}", nx.star_graph(50)
    yield "grid 8x9", nx.grid_2d_graph(8, 9)
    yield "grid 3x17", nx.grid_2d_graph(3, 17)
    yield "hypercube Q6", nx.hypercube_graph(6)
    yield "C_400", nx.cycle_graph(400)
    yield "ladder 50", nx.ladder_graph(50)
    for i in range(6):
        yield f"tree {i}", nx.random_labeled_tree(int(rng.integers(2, 120)), seed=int(rng.integers(2**31)))
    for i in range(4):
        yield f"random bipartite {i}", nx.bipartite.random_graph(25, 35, 0.15, seed=int(rng.integers(2**31)))
    for n in range(2, 41, 2):
        yield f"C_{n}", nx.cycle_graph(n) if n > 2 else nx.path_graph(2)


BIPARTITE = list(bipartite_graphs())


# -- validity: every bound is a lower bound -------------------------------------------
def test_every_bound_is_at_most_the_chromatic_number(graphs):
    for graph in graphs(80, seed=21, max_nodes=9):
        chi = chromatic_number(graph)
        for bounds in (chromatic_lower_bound(graph), adjacency_bounds(adjacency(graph))):
            for name in FIELDS:
                assert getattr(bounds, name) <= chi, (name, bounds, chi, sorted(graph.edges))
            assert 1 <= bounds.value <= chi


def test_every_bound_is_at_most_the_chromatic_number_on_dense_graphs():
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        graph = nx.gnp_random_graph(n, float(rng.uniform(0.6, 0.95)), seed=int(rng.integers(2**31)))
        chi = chromatic_number(graph)
        bounds = chromatic_lower_bound(graph)
        assert bounds.value <= chi, (bounds, chi, sorted(graph.edges))


def test_bounds_never_exceed_a_dsatur_colouring_on_larger_graphs():
    rng = np.random.default_rng(8)
    for _ in range(15):
        graph = nx.gnp_random_graph(
            int(rng.integers(20, 60)), float(rng.uniform(0.05, 0.6)), seed=int(rng.integers(2**31))
        )
        adj = adjacency(graph)
        upper = int(dsatur(adj).max()) + 1
        assert chromatic_lower_bound(graph).value <= upper
        assert adjacency_bounds(adj).value <= upper


def test_chromatic_lower_bound_clique_is_the_exact_clique_number(graphs):
    for graph in graphs(40, seed=22):
        assert chromatic_lower_bound(graph).clique == clique_number(graph)


def test_chromatic_lower_bound_agrees_with_adjacency_bounds_apart_from_the_clique(graphs):
    for graph in graphs(30, seed=23):
        a, b = chromatic_lower_bound(graph), adjacency_bounds(adjacency(graph))
        assert (a.odd_cycle, a.hoffman, a.edwards, a.inertia) == (
            b.odd_cycle,
            b.hoffman,
            b.edwards,
            b.inertia,
        )
        assert a.clique >= b.clique


# -- known values -----------------------------------------------------------------
@pytest.mark.parametrize("n", range(1, 16))
def test_complete_graph(n):
    bounds = chromatic_lower_bound(nx.complete_graph(n))
    assert bounds.clique == n
    assert bounds.value == n
    assert adjacency_bounds(adjacency(nx.complete_graph(n))).clique == n
    if n >= 2:
        # 1 - (n-1)/(-1), n/(n-(n-1)) and 1 + (n-1)/1 are all exactly n: rounding must not give n + 1.
        assert (bounds.hoffman, bounds.edwards, bounds.inertia) == (n, n, n)
    assert bounds.odd_cycle == (3 if n >= 3 else n)


@pytest.mark.parametrize("n", [3, 5, 7, 9, 11, 21, 51, 101])
def test_odd_cycle(n):
    bounds = chromatic_lower_bound(nx.cycle_graph(n))
    assert bounds.odd_cycle == 3
    assert bounds.value == 3
    assert bounds.clique == (3 if n == 3 else 2)


@pytest.mark.parametrize("name,graph", BIPARTITE, ids=[name for name, _ in BIPARTITE])
def test_bipartite_graphs_never_get_a_bound_of_3(name, graph):
    assert nx.is_bipartite(graph)
    for bounds in (chromatic_lower_bound(graph), adjacency_bounds(adjacency(graph))):
        assert bounds.odd_cycle == 2, bounds
        assert max(getattr(bounds, f) for f in FIELDS) == 2, bounds
        assert bounds.value == 2


def test_dsatur_is_exact_on_bipartite_graphs():
    for name, graph in BIPARTITE:
        colors = dsatur(adjacency(graph))
        verify_coloring(adjacency(graph), colors)
        assert colors.max() + 1 == 2, name


@pytest.mark.parametrize("k", range(2, 7))
def test_mycielski_graph(k):
    graph = nx.mycielski_graph(k)  # triangle-free, chromatic number k
    bounds = chromatic_lower_bound(graph)
    assert bounds.clique == 2
    assert greedy_clique(adjacency(graph)) == 2
    assert 2 <= bounds.value <= k
    assert bounds.odd_cycle == (3 if k >= 3 else 2)


def test_empty_graph():
    assert chromatic_lower_bound(nx.Graph()) == ChromaticBounds(0, 0, 0, 0, 0)
    assert chromatic_lower_bound(nx.Graph()).value == 0
    assert adjacency_bounds(np.zeros((0, 0), dtype=bool)).value == 0
    assert greedy_clique(np.zeros((0, 0), dtype=bool)) == 0
    assert dsatur(np.zeros((0, 0), dtype=bool)).shape == (0,)


@pytest.mark.parametrize("n", [1, 2, 7])
def test_edgeless_graph(n):
    graph = nx.empty_graph(n)
    bounds = chromatic_lower_bound(graph)
    assert bounds.value == 1
    assert (bounds.clique, bounds.odd_cycle) == (1, 1)
    assert adjacency_bounds(adjacency(graph)).value == 1
    assert greedy_clique(adjacency(graph)) == 1
    assert dsatur(adjacency(graph)).tolist() == [0] * n


def test_disjoint_union_takes_the_max_over_components():
    parts = [nx.complete_graph(4), nx.cycle_graph(5), nx.complete_bipartite_graph(3, 3), nx.empty_graph(2)]
    union = nx.disjoint_union_all(parts)
    bounds = chromatic_lower_bound(union)
    assert (bounds.clique, bounds.odd_cycle, bounds.value) == (4, 3, 4)
    expected = ChromaticBounds()
    for part in parts:
        expected = expected.combine(chromatic_lower_bound(part))
    assert bounds == expected
    assert adjacency_bounds(adjacency(union)) == adjacency_bounds(adjacency(parts[0])).combine(
        adjacency_bounds(adjacency(parts[1]))
    ).combine(adjacency_bounds(adjacency(parts[2])))


def test_disjoint_union_of_bipartite_and_odd_cycle():
    union = nx.disjoint_union(nx.complete_bipartite_graph(30, 40), nx.cycle_graph(7))
    bounds = chromatic_lower_bound(union)
    assert bounds.odd_cycle == 3
    assert bounds.value == 3


def test_disjoint_union_on_random_graphs(graphs):
    generated = list(graphs(20, seed=24))
    for g, h in zip(generated[::2], generated[1::2], strict=True):
        assert chromatic_lower_bound(nx.disjoint_union(g, h)) == chromatic_lower_bound(g).combine(
            chromatic_lower_bound(h)
        )


def test_chromatic_bounds_value_and_combine():
    a, b = ChromaticBounds(2, 3, 1, 2, 2), ChromaticBounds(4, 2, 3, 1, 2)
    assert a.value == 3
    assert b.value == 4
    assert a.combine(b) == ChromaticBounds(4, 3, 3, 2, 2)
    assert ChromaticBounds().value == 0


# -- greedy_clique ------------------------------------------------------------------
def test_greedy_clique_is_between_one_and_the_clique_number(graphs):
    for graph in graphs(60, seed=25):
        found = greedy_clique(adjacency(graph))
        assert 1 <= found <= clique_number(graph)
        if graph.number_of_edges():
            assert found >= 2


def test_greedy_clique_finds_a_planted_clique():
    rng = np.random.default_rng(3)
    for _ in range(10):
        graph = nx.gnp_random_graph(40, 0.1, seed=int(rng.integers(2**31)))
        members = rng.choice(40, size=8, replace=False).tolist()
        graph.add_edges_from((u, v) for u in members for v in members if u < v)
        assert greedy_clique(adjacency(graph)) == clique_number(graph) == 8


# -- dsatur -------------------------------------------------------------------------
def test_dsatur_returns_a_proper_colouring(graphs):
    for graph in graphs(60, seed=26):
        verify_coloring(adjacency(graph), dsatur(adjacency(graph)))


@pytest.mark.parametrize("n", range(1, 10))
def test_dsatur_colours_a_complete_graph_with_n_colours(n):
    assert sorted(dsatur(adjacency(nx.complete_graph(n))).tolist()) == list(range(n))


def dsatur_cases(graphs, seed: int, extra: int, max_n: int, p: tuple[float, float]) -> list[nx.Graph]:
    """The fixture's graphs of seed ``seed``, then ``extra`` G(n, p) with 10 <= n < max_n, p in ``p``."""
    rng = np.random.default_rng(seed)
    return list(graphs(60, seed=seed)) + [
        nx.gnp_random_graph(
            int(rng.integers(10, max_n)), float(rng.uniform(*p)), seed=int(rng.integers(2**31))
        )
        for _ in range(extra)
    ]


def test_dsatur_matches_networkx_dsatur(graphs):
    for graph in dsatur_cases(graphs, seed=27, extra=20, max_n=50, p=(0.05, 0.5)):
        colors = dsatur(adjacency(graph))
        reference = nx.greedy_color(graph, strategy="DSATUR")
        assert colors.max() + 1 == max(reference.values()) + 1, sorted(graph.edges)
        # Same selection rule (ties: larger degree, then lower index), so the same colouring.
        assert colors.tolist() == [reference[v] for v in graph], sorted(graph.edges)


def test_dsatur_coloring_matches_the_matrix_dsatur(graphs):
    for graph in dsatur_cases(graphs, seed=28, extra=40, max_n=80, p=(0.02, 0.6)):
        # labels that are not the positions, in an order that is not sorted: ties go by graph order
        labelled = nx.relabel_nodes(graph, {v: f"v{(7 * v) % 101}" for v in graph})
        coloring = dsatur_coloring(labelled)
        assert [coloring[v] for v in labelled] == dsatur(adjacency(graph)).tolist(), sorted(graph.edges)


def test_dsatur_coloring_of_edgeless_and_empty_graphs():
    assert dsatur_coloring(nx.empty_graph(4)) == {0: 0, 1: 0, 2: 0, 3: 0}
    assert dsatur_coloring(nx.Graph()) == {}


def test_dsatur_does_not_change_its_input():
    adj = adjacency(nx.petersen_graph())
    before = adj.copy()
    dsatur(adj)
    greedy_clique(adj)
    adjacency_bounds(adj)
    np.testing.assert_array_equal(adj, before)


# -- rounding -----------------------------------------------------------------------
def test_ceil_tolerates_floating_point_error():
    assert _ceil(3.0) == 3
    assert _ceil(3 + 1e-12) == 3
    assert _ceil(3 - 1e-12) == 3
    assert _ceil(2.9999999999) == 3
    assert _ceil(1 - 3 / -1.5000000000000002) == 3
    assert _ceil(3.001) == 4
    assert _ceil(2.5) == 3
    assert _ceil(0.0) == 0


@pytest.mark.parametrize("parts", range(2, 7))
@pytest.mark.parametrize("size", [1, 2, 5, 9])
def test_equal_complete_multipartite_graph_bounds_are_exact(parts, size):
    # Spectrum (parts-1)*size, -size (parts-1 times), 0: Hoffman, Edwards and inertia are all
    # exactly `parts`, so they test the rounding at an integer.
    bounds = chromatic_lower_bound(nx.complete_multipartite_graph(*[size] * parts))
    assert (bounds.clique, bounds.hoffman, bounds.edwards, bounds.inertia) == (parts, parts, parts, parts)
    assert bounds.odd_cycle == (3 if parts >= 3 else 2)


def test_self_loop_is_rejected_not_looped_on():
    graph = nx.path_graph(3)
    graph.add_edge(1, 1)
    with pytest.raises(InvalidParameterError, match="graph has a self-loop at 1: it has no proper colouring"):
        chromatic_lower_bound(graph)
