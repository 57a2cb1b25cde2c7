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
from bbqmis.coloring.classical.bounds import dsatur
from bbqmis.coloring.classical.tabucol import improve_coloring, tabucol

GRAPHS = Path(__file__).resolve().parents[4] / "data" / "graphs"


def dense(graph: nx.Graph) -> np.ndarray:
    return nx.to_numpy_array(graph, dtype=bool, weight=None)


def is_proper(adjacency: np.ndarray, colors: np.ndarray) -> bool:
    rows, cols = np.nonzero(adjacency)
    return bool(np.all(colors[rows] != colors[cols]))


def colorable(adjacency: np.ndarray, k: int) -> bool:
    n = len(adjacency)
    return any(is_proper(adjacency, np.array(colors)) for colors in itertools.product(range(k), repeat=n))


def num_colors(colors: np.ndarray) -> int:
    return len(np.unique(colors))


@st.composite
def small_graphs(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(0, 8))
    pairs = list(itertools.combinations(range(n), 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True) if pairs else st.just([]))
    adjacency = np.zeros((n, n), dtype=bool)
    for u, v in chosen:
        adjacency[u, v] = adjacency[v, u] = True
    return adjacency


@settings(max_examples=60, deadline=None)
@given(small_graphs(), st.integers(1, 5), st.integers(0, 2**32))
def test_result_is_proper_and_found_whenever_k_colourable(adjacency, k, seed):
    colors = tabucol(adjacency, k, max_iterations=5_000, seed=seed)
    if colors is None:
        assert not colorable(adjacency, k)
    else:
        assert colors.dtype == np.int64 and colors.shape == (len(adjacency),)
        assert is_proper(adjacency, colors)
        assert colors.size == 0 or 0 <= colors.min() <= colors.max() < k


@pytest.mark.parametrize("seed", range(5))
def test_random_graphs_with_dsatur_colour_count(seed):
    graph = nx.gnp_random_graph(80, 0.15, seed=seed)
    adjacency = dense(graph)
    k = int(dsatur(adjacency).max()) + 1
    colors = tabucol(sp.csr_array(adjacency), k, seed=seed, max_iterations=50_000)
    assert colors is not None and is_proper(adjacency, colors) and num_colors(colors) <= k
    fewer = tabucol(adjacency, k - 1, seed=seed, max_iterations=20_000)
    assert fewer is None or (is_proper(adjacency, fewer) and fewer.max() < k - 1)


def test_finds_planted_three_colouring():
    rng = np.random.default_rng(0)
    n = 150
    planted = rng.permutation(n) % 3
    upper = np.triu(rng.random((n, n)) < 0.06, 1) & (planted[:, None] != planted[None, :])
    adjacency = upper | upper.T
    assert int(dsatur(adjacency).max()) + 1 > 3  # greedy alone does not find it
    colors = tabucol(adjacency, 3, seed=1, max_iterations=200_000)
    assert colors is not None and is_proper(adjacency, colors) and colors.max() <= 2


def test_impossible_k_returns_none_quickly():
    began = time.perf_counter()
    assert tabucol(dense(nx.complete_graph(5)), 4, max_iterations=20_000, seed=0) is None
    assert time.perf_counter() - began < 5.0  # 20,000 moves on 5 vertices: well under a second unloaded
    assert tabucol(dense(nx.path_graph(3)), 1) is None  # no limit needed: decided at once


def test_deadline_is_honoured_on_le450_5a():
    adjacency = nx.to_scipy_sparse_array(read_graph(GRAPHS / "le450_5a.col"), format="csr")
    began = time.perf_counter()
    assert tabucol(adjacency, 4, deadline=began + 0.2, seed=0) is None
    assert time.perf_counter() - began < 0.5


def test_past_deadline_returns_none_unless_initial_is_proper():
    adjacency = dense(read_graph(GRAPHS / "queen5_5.col"))
    assert tabucol(adjacency, 5, max_iterations=0, seed=0) is None  # the greedy start has conflicts
    began = time.perf_counter()
    assert tabucol(adjacency, 5, deadline=began - 1, seed=0) is None
    assert time.perf_counter() - began < 0.1
    proper = improve_coloring(adjacency, np.arange(25), seed=0, max_iterations_per_k=5_000)
    assert np.array_equal(tabucol(adjacency, 5, initial=proper, deadline=0.0), proper)


def test_initial_out_of_range_values_are_reassigned():
    adjacency = dense(nx.petersen_graph())
    initial = np.array([7, -1, 0, 1, 2, 3, 0, 1, 2, -5])
    colors = tabucol(adjacency, 3, initial=initial, seed=2, max_iterations=10_000)
    assert colors is not None and is_proper(adjacency, colors) and colors.max() <= 2


def test_same_seed_same_result_for_dense_and_sparse_input():
    graph = nx.gnp_random_graph(60, 0.2, seed=7)
    k = int(dsatur(dense(graph)).max()) + 1
    runs = [
        tabucol(dense(graph), k, seed=11, max_iterations=30_000),
        tabucol(dense(graph).astype(np.int8), k, seed=11, max_iterations=30_000),
        tabucol(sp.csr_matrix(dense(graph)), k, seed=11, max_iterations=30_000),
        tabucol(nx.to_scipy_sparse_array(graph, format="coo"), k, seed=11, max_iterations=30_000),
    ]
    assert runs[0] is not None
    assert all(np.array_equal(runs[0], other) for other in runs[1:])


def test_huge_k_is_cheap():
    colors = tabucol(dense(nx.complete_graph(5)), 10**12, initial=[0, 0, 3, 10**11, -1], seed=0)
    assert colors is not None and sorted(colors) == [0, 1, 2, 3, 4]


def test_empty_and_edgeless_graphs():
    assert tabucol(np.zeros((0, 0), dtype=bool), 1).shape == (0,)
    assert np.array_equal(tabucol(np.zeros((4, 4), dtype=bool), 1), np.zeros(4))
    assert improve_coloring(np.zeros((0, 0), dtype=bool), np.zeros(0, dtype=int)).shape == (0,)
    assert np.array_equal(improve_coloring(np.zeros((3, 3), dtype=bool), [0, 4, 2]), np.zeros(3))


@pytest.mark.parametrize("seed", range(6))
def test_improve_coloring_is_never_worse_or_improper(seed):
    rng = np.random.default_rng(seed)
    graph = nx.gnp_random_graph(int(rng.integers(5, 40)), float(rng.uniform(0.1, 0.6)), seed=seed)
    adjacency = dense(graph)
    start = rng.permutation(len(adjacency)) * 3  # proper: every vertex its own (sparse) label
    colors = improve_coloring(adjacency, start, seed=seed, max_iterations_per_k=2_000)
    assert is_proper(adjacency, colors)
    assert num_colors(colors) <= int(dsatur(adjacency).max()) + 1
    assert sorted(np.unique(colors)) == list(range(num_colors(colors)))


@pytest.mark.parametrize(("name", "chi"), [("myciel3", 4), ("queen5_5", 5)])
def test_improve_coloring_reaches_chromatic_number(name, chi):
    adjacency = dense(read_graph(GRAPHS / f"{name}.col"))
    start = np.arange(len(adjacency))
    colors = improve_coloring(adjacency, start, seed=0, max_iterations_per_k=10_000)
    assert is_proper(adjacency, colors) and num_colors(colors) == chi


def test_improve_coloring_honours_deadline_and_lower_bound():
    adjacency = dense(read_graph(GRAPHS / "queen5_5.col"))
    start = dsatur(adjacency)
    began = time.perf_counter()
    colors = improve_coloring(adjacency, start, deadline=began + 0.3, seed=1)
    assert time.perf_counter() - began < 0.6
    assert is_proper(adjacency, colors) and num_colors(colors) <= num_colors(start)
    began = time.perf_counter()
    colors = improve_coloring(adjacency, start, deadline=began + 30, seed=1, lower_bound=5)
    assert num_colors(colors) == 5 and time.perf_counter() - began < 5


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda a: tabucol(a, 0), "k"),
        (lambda a: tabucol(a, True), "k"),
        (lambda a: tabucol(a, 2.0), "k"),
        (lambda a: tabucol(a[:2], 2), "adjacency"),
        (lambda a: tabucol(np.triu(a), 2), "adjacency"),
        (lambda a: tabucol(a | np.eye(4, dtype=bool), 2), "adjacency"),
        (lambda a: tabucol(np.zeros(4), 2), "adjacency"),
        (lambda a: tabucol(nx.path_graph(4), 2), "adjacency"),
        (lambda a: tabucol(a, 2, initial=[0, 1, 0]), "initial"),
        (lambda a: tabucol(a, 2, initial=[0.0, 1.0, 0.0, 1.0]), "initial"),
        (lambda a: tabucol(a, 2, max_iterations=-1), "max_iterations"),
        (lambda a: tabucol(a, 2, deadline="soon"), "deadline"),
        (lambda a: tabucol(a, 2, deadline=float("nan")), "deadline"),
        (lambda a: tabucol(a, 2, seed="x"), "seed"),
        (lambda a: improve_coloring(a, [0, 0, 1, 2]), "colors"),
        (lambda a: improve_coloring(a, [0, -1, 0, 1]), "colors"),
        (lambda a: improve_coloring(a, [0, 1]), "colors"),
        (lambda a: improve_coloring(a, [0, 1, 0, 1], lower_bound=0), "lower_bound"),
        (lambda a: improve_coloring(a, [0, 1, 0, 1], max_iterations_per_k=0), "max_iterations_per_k"),
        (lambda a: improve_coloring(a, [0, 1, 0, 1], deadline=[1]), "deadline"),
    ],
)
def test_invalid_parameters_are_named(call, name):
    with pytest.raises(InvalidParameterError, match=name):
        call(dense(nx.path_graph(4)))


@pytest.mark.slow
def test_le450_5a_reaches_five_colours():
    graph = read_graph(GRAPHS / "le450_5a.col")
    adjacency = dense(graph)
    start = dsatur(adjacency)
    began = time.perf_counter()
    colors = improve_coloring(adjacency, start, deadline=began + 120, seed=0, lower_bound=5)
    assert time.perf_counter() - began < 120
    assert num_colors(colors) == 5 and is_proper(adjacency, colors)
