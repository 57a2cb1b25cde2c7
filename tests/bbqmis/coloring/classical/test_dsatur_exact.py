import dataclasses
import functools
import itertools
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.utils.errors import InvalidParameterError
from bbqmis import read_graph
from bbqmis.coloring.classical.dsatur_exact import ExactColoring, exact_coloring

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"


def adjacency(graph: nx.Graph) -> np.ndarray:
    return nx.to_numpy_array(graph, dtype=bool, weight=None)


def dimacs(name: str) -> np.ndarray:
    return adjacency(read_graph(DATA / f"{name}.col"))


@functools.cache
def set_partitions(n: int) -> np.ndarray:
    """Every partition of n vertices as a restricted growth string, shape (Bell(n), n)."""
    rows = [[0]] if n else [[]]
    for _ in range(n - 1):
        rows = [row + [c] for row in rows for c in range(max(row) + 2)]
    return np.array(rows, dtype=np.int8).reshape(len(rows), n)


def brute_force_chi(adj: np.ndarray) -> int:
    """Fewest blocks of a partition into independent sets, over all partitions (n <= 9)."""
    n = len(adj)
    if n == 0:
        return 0
    partitions = set_partitions(n)
    u, v = np.nonzero(np.triu(adj, 1))
    proper = ~(partitions[:, u] == partitions[:, v]).any(axis=1)
    return int(partitions[proper].max(axis=1).min()) + 1


def assert_proper(adj: np.ndarray, result: ExactColoring) -> None:
    colors = result.colors
    assert colors.shape == (len(adj),)
    assert not (adj & (colors[:, None] == colors[None, :])).any(), "adjacent vertices share a colour"
    assert set(colors.tolist()) == set(range(result.num_colors))


def assert_optimal(adj: np.ndarray, result: ExactColoring, chi: int) -> None:
    assert_proper(adj, result)
    assert result.stopped is None
    assert result.optimal
    assert result.num_colors == result.lower_bound == chi


def random_adjacency(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    upper = np.triu(rng.random((n, n)) < p, 1)
    return upper | upper.T


@pytest.mark.parametrize("seed", range(4))
def test_optimal_against_brute_force_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        n = int(rng.integers(1, 10))
        adj = random_adjacency(rng, n, float(rng.uniform(0.15, 0.8)))
        chi = brute_force_chi(adj)
        assert_optimal(adj, exact_coloring(adj), chi)
        # From the worst colouring, the search itself must reach the optimum.
        assert_optimal(adj, exact_coloring(adj, initial=np.arange(n)), chi)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9).flatmap(lambda n: st.lists(st.booleans(), min_size=n * n, max_size=n * n)))
def test_optimal_against_brute_force_hypothesis(flags):
    n = int(round(len(flags) ** 0.5))
    upper = np.triu(np.array(flags, dtype=bool).reshape(n, n), 1)
    adj = upper | upper.T
    assert_optimal(adj, exact_coloring(adj, initial=np.arange(n)), brute_force_chi(adj))


def test_search_beyond_brute_force_sizes_agrees_with_a_decision_procedure():
    """Sparse random graphs of 12-22 vertices, where the clique bound is often below chi."""
    rng = np.random.default_rng(7)
    for _ in range(25):
        n = int(rng.integers(12, 23))
        adj = random_adjacency(rng, n, float(rng.uniform(0.15, 0.45)))
        graph = nx.from_numpy_array(adj)
        result = exact_coloring(adj, initial=np.arange(n))
        assert_proper(adj, result)
        assert result.optimal and result.stopped is None
        # num_colors suffice (shown above); one fewer must not, by a plain backtracking search.
        assert not _colorable(graph, result.num_colors - 1)


def test_mycielskians_of_random_graphs():
    """chi(M(G)) = chi(G) + 1 while the clique number stays: the search, not a bound, must prove it."""
    rng = np.random.default_rng(11)
    for _ in range(60):
        n = int(rng.integers(3, 9))
        adj = random_adjacency(rng, n, float(rng.uniform(0.2, 0.8)))
        iterations = 2 if n < 6 else 1
        mycielskian = adjacency(nx.mycielskian(nx.from_numpy_array(adj), iterations=iterations))
        order = rng.permutation(len(mycielskian))
        mycielskian = mycielskian[np.ix_(order, order)]
        result = exact_coloring(mycielskian, initial=np.arange(len(mycielskian)))
        assert_optimal(mycielskian, result, brute_force_chi(adj) + iterations)


def _colorable(graph: nx.Graph, k: int) -> bool:
    order = sorted(graph, key=graph.degree, reverse=True)
    colors: dict[int, int] = {}

    def place(i: int) -> bool:
        if i == len(order):
            return True
        v = order[i]
        taken = {colors[u] for u in graph[v] if u in colors}
        for c in range(min(k, max(colors.values(), default=-1) + 2)):
            if c not in taken:
                colors[v] = c
                if place(i + 1):
                    return True
                del colors[v]
        return False

    return place(0)


def queens(n: int) -> nx.Graph:
    """The n x n queen graph: squares adjacent when a queen on one attacks the other."""
    squares = [(i, j) for i in range(n) for j in range(n)]
    graph = nx.Graph()
    graph.add_nodes_from(squares)
    for (a, b), (c, d) in itertools.combinations(squares, 2):
        if a == c or b == d or abs(a - c) == abs(b - d):
            graph.add_edge((a, b), (c, d))
    return graph


KNOWN = [
    ("empty graph", nx.empty_graph(0), 0),
    ("one vertex", nx.empty_graph(1), 1),
    ("no edges", nx.empty_graph(6), 1),
    *((f"K{n}", nx.complete_graph(n), n) for n in (2, 5, 8)),
    *((f"C{n}", nx.cycle_graph(n), 2 + n % 2) for n in (4, 5, 9, 12)),
    ("K3,4", nx.complete_bipartite_graph(3, 4), 2),
    ("grid", nx.grid_2d_graph(4, 5), 2),
    ("petersen", nx.petersen_graph(), 3),
    ("wheel, hub and C5", nx.wheel_graph(6), 4),
    ("wheel, hub and C6", nx.wheel_graph(7), 3),
    ("two components", nx.disjoint_union(nx.cycle_graph(7), nx.complete_graph(4)), 4),
    ("mycielski_graph(4)", nx.mycielski_graph(4), 4),
    ("mycielski_graph(5)", nx.mycielski_graph(5), 5),
    ("queen6_6", queens(6), 7),  # clique number 6
    ("queen7_7", queens(7), 7),
]


@pytest.mark.parametrize(("name", "graph", "chi"), KNOWN, ids=[k[0] for k in KNOWN])
def test_known_chromatic_numbers(name, graph, chi):
    adj = adjacency(graph)
    assert_optimal(adj, exact_coloring(adj), chi)


@pytest.mark.parametrize(("name", "chi"), [("myciel3", 4), ("myciel4", 5), ("queen5_5", 5), ("huck", 11)])
def test_dimacs_graphs(name, chi):
    adj = dimacs(name)
    assert_optimal(adj, exact_coloring(adj), chi)
    assert_optimal(adj, exact_coloring(adj, initial=np.arange(len(adj))), chi)


def test_myciel5_is_proven_to_need_six_colours(record_property):
    adj = adjacency(nx.mycielski_graph(6))  # myciel5: 47 vertices, clique number 2
    start, cpu = time.perf_counter(), time.process_time()
    result = exact_coloring(adj, mycielski_share=0)  # the Mycielskian bound settles it at the root
    record_property("seconds", time.perf_counter() - start)
    record_property("cpu_seconds", time.process_time() - cpu)
    record_property("nodes", result.nodes)
    assert_optimal(adj, result, 6)
    assert result.nodes > 0  # proven by the search, not by a root bound


def test_sparse_input_matches_dense():
    adj = adjacency(nx.mycielski_graph(5))
    dense = exact_coloring(adj)
    for matrix in (sp.csr_matrix(adj), sp.csr_array(adj.astype(np.int8)), sp.coo_matrix(adj)):
        result = exact_coloring(matrix)
        assert result.num_colors == dense.num_colors == 5
        assert result.nodes == dense.nodes
        np.testing.assert_array_equal(result.colors, dense.colors)


def test_numeric_dense_input_is_accepted():
    adj = adjacency(nx.cycle_graph(5))
    assert exact_coloring(adj.astype(float)).num_colors == 3


def test_result_is_frozen_and_deterministic():
    adj = adjacency(nx.mycielski_graph(5))
    first, second = exact_coloring(adj), exact_coloring(adj)
    assert first.nodes == second.nodes
    np.testing.assert_array_equal(first.colors, second.colors)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.num_colors = 3


@pytest.mark.parametrize("hard", ["le450_5a", "mycielski_graph(7)"])
def test_deadline_holds_on_a_hard_graph(hard):
    adj = dimacs("le450_5a") if hard == "le450_5a" else adjacency(nx.mycielski_graph(7))
    start = time.perf_counter()
    result = exact_coloring(adj, deadline=start + 0.2, mycielski_share=0)
    elapsed = time.perf_counter() - start
    assert result.stopped == "time_limit"
    assert elapsed < 0.6, elapsed
    assert_proper(adj, result)
    assert not result.optimal
    assert 2 <= result.lower_bound <= (5 if hard == "le450_5a" else 7) <= result.num_colors


def test_deadline_in_the_past_stops_at_once():
    adj = adjacency(nx.mycielski_graph(6))
    result = exact_coloring(adj, deadline=time.perf_counter() - 1)
    assert result.stopped == "time_limit"
    assert result.nodes == 0
    assert_proper(adj, result)


def test_node_limit():
    adj = adjacency(nx.mycielski_graph(6))
    result = exact_coloring(adj, node_limit=100, mycielski_share=0)
    assert result.stopped == "node_limit"
    assert result.nodes == 100
    assert_proper(adj, result)
    assert result.lower_bound == 2  # only the clique bound is proven
    assert not result.optimal
    # A generous limit changes nothing.
    small = adjacency(nx.mycielski_graph(5))
    unlimited = exact_coloring(small, mycielski_share=0)
    limited = exact_coloring(small, node_limit=10**6, mycielski_share=0)
    assert limited.stopped is None and limited.optimal
    assert limited.nodes == unlimited.nodes


def test_stopped_search_keeps_the_callers_lower_bound():
    adj = adjacency(nx.mycielski_graph(6))
    result = exact_coloring(adj, lower=4, node_limit=10, mycielski_share=0)
    assert result.stopped == "node_limit"
    assert result.lower_bound == 4


def test_lower_met_by_the_initial_colouring_returns_at_once():
    graph = nx.mycielski_graph(6)
    adj = adjacency(graph)
    greedy = nx.greedy_color(graph, strategy="saturation_largest_first")
    initial = np.array([greedy[v] for v in graph])
    assert initial.max() + 1 == 6
    start = time.perf_counter()
    result = exact_coloring(adj, lower=6, initial=initial)
    assert time.perf_counter() - start < 0.5
    assert result.nodes == 0
    assert result.optimal and result.stopped is None
    assert result.num_colors == result.lower_bound == 6
    # The same colouring, its colours renumbered in order of first use.
    assert_proper(adj, result)
    assert len(set(zip(initial.tolist(), result.colors.tolist(), strict=True))) == 6


def test_lower_stops_the_search_at_the_first_colouring_meeting_it():
    adj = adjacency(nx.mycielski_graph(5))
    worst = np.arange(len(adj))
    full = exact_coloring(adj, initial=worst, mycielski_share=0)
    early = exact_coloring(adj, initial=worst, lower=5, mycielski_share=0)
    assert early.num_colors == early.lower_bound == 5 and early.optimal
    assert early.nodes < full.nodes


def test_initial_colouring_is_returned_relabelled_when_optimal():
    adj = adjacency(nx.cycle_graph(6))
    result = exact_coloring(adj, initial=[7, 3, 7, 3, 7, 3])
    assert result.num_colors == 2 and result.optimal
    np.testing.assert_array_equal(result.colors, [0, 1, 0, 1, 0, 1])


def test_upper_bounds_the_search():
    adj = adjacency(nx.mycielski_graph(5))  # chi = 5
    # Nothing below 5 exists: proven, and the greedy colouring (5 colours) is optimal.
    result = exact_coloring(adj, upper=5)
    assert result.lower_bound == 5 and result.num_colors == 5 and result.optimal
    # upper below chi: the search proves that nothing below upper exists, no more.
    result = exact_coloring(adj, upper=4)
    assert result.stopped is None
    assert result.lower_bound == 4 < result.num_colors
    assert not result.optimal
    assert_proper(adj, result)
    # upper above the greedy colouring: the usual search.
    assert_optimal(adj, exact_coloring(adj, upper=9, initial=np.arange(len(adj))), 5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"adjacency": np.ones((2, 3), dtype=bool)}, "adjacency must be a square"),
        ({"adjacency": np.ones(4, dtype=bool)}, "adjacency must be a square"),
        ({"adjacency": np.array([[0, 1], [0, 0]], dtype=bool)}, "adjacency must be symmetric"),
        ({"adjacency": sp.csr_matrix(np.array([[0, 1], [0, 0]]))}, "adjacency must be symmetric"),
        ({"adjacency": np.eye(2, dtype=bool)}, "self-loop at vertex 0"),
        ({"adjacency": sp.csr_matrix(np.eye(2))}, "self-loop at vertex 0"),
        ({"adjacency": np.array([["a", "b"], ["b", "a"]])}, "adjacency must be boolean or numeric"),
        ({"lower": -1}, "lower must be a non-negative integer"),
        ({"lower": 2.0}, "lower must be a non-negative integer"),
        ({"upper": -1}, "upper must be a non-negative integer"),
        ({"upper": 0}, "upper must be >= 1"),
        ({"node_limit": 0}, "node_limit must be a positive integer"),
        ({"node_limit": True}, "node_limit must be a positive integer"),
        ({"deadline": "soon"}, "deadline must be"),
        ({"deadline": float("nan")}, "deadline must be"),
        ({"initial": [0, 1, 0]}, r"initial must be an integer array of shape \(4,\)"),
        ({"initial": [0.0, 1.0, 0.0, 1.0]}, "initial must be an integer array"),
        ({"initial": [0, -1, 0, 1]}, "initial must hold colours >= 0"),
        ({"initial": [0, 0, 1, 1]}, "initial is not a proper colouring: adjacent vertices 0 and 1"),
        ({"lower": 3, "initial": [0, 1, 0, 1]}, r"lower \(3\) exceeds the 2 colours of initial"),
        ({"lower": 3, "upper": 2}, r"lower \(3\) exceeds upper \(2\)"),
        ({"lower": 3}, r"lower \(3\) exceeds the 2 colours"),
    ],
)
def test_invalid_parameters_are_named(kwargs, match):
    kwargs = {"adjacency": adjacency(nx.cycle_graph(4)), **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        exact_coloring(**kwargs)
