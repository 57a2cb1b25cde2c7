import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.utils.errors import InvalidParameterError
from bbqmis import MISProblem
from bbqmis.mis.closed_form import ClosedForm, expectation

from .conftest import statevector_energy

METHODS = ("dense", "sparse")
ANGLE = st.floats(-np.pi, np.pi, allow_nan=False)


def random_ising(graph, rng):
    n = graph.number_of_nodes()
    rows, cols = np.array(list(graph.edges), dtype=int).reshape(-1, 2).T
    J = sp.csr_array(
        (rng.normal(size=rows.size), (np.minimum(rows, cols), np.maximum(rows, cols))), shape=(n, n)
    )
    return rng.normal(size=n), J, float(rng.normal())


def test_closed_form_equals_statevector_on_random_weighted_mis(graphs):
    rng = np.random.default_rng(0)
    for graph in graphs(12, seed=10):
        problem = MISProblem(graph, weights=rng.uniform(0.3, 2.0, graph.number_of_nodes()), penalty=2.5)
        gamma, beta = rng.uniform(-3, 3, 2)
        assert expectation(problem, gamma, beta) == pytest.approx(
            statevector_energy(problem, gamma, beta), abs=1e-9
        )


def test_closed_form_equals_statevector_on_general_ising_with_triangles(graphs):
    rng = np.random.default_rng(1)
    for graph in graphs(12, seed=11):
        ising = random_ising(graph, rng)
        gamma, beta = rng.uniform(-3, 3, 2)
        assert expectation(ising, gamma, beta) == pytest.approx(
            statevector_energy(ising, gamma, beta), abs=1e-9
        )


@st.composite
def small_graphs(draw, max_nodes=7):
    """Any simple graph on 1..max_nodes vertices: isolated vertices, triangles, cliques."""
    n = draw(st.integers(1, max_nodes))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    graph = nx.empty_graph(n)
    graph.add_edges_from(pair for pair, keep in zip(pairs, chosen, strict=True) if keep)
    return graph


@st.composite
def weighted_problems(draw):
    """MIS problems with random positive weights and a random admissible penalty (MWIS pricing)."""
    graph = draw(small_graphs())
    weights = draw(st.lists(st.floats(0.05, 5.0), min_size=len(graph), max_size=len(graph)))
    penalty = max(weights) * draw(st.floats(1.01, 4.0))
    return MISProblem(graph, weights=weights, penalty=penalty)


@st.composite
def general_isings(draw):
    """Ising problems (h, J, offset) with independent random fields and couplings on a random graph."""
    graph = draw(small_graphs())
    n, edges = len(graph), list(graph.edges)
    h = draw(st.lists(st.floats(-3, 3), min_size=n, max_size=n))
    couplings = draw(st.lists(st.floats(-3, 3).filter(bool), min_size=len(edges), max_size=len(edges)))
    rows, cols = np.array(edges, dtype=int).reshape(-1, 2).T
    J = sp.csr_array((couplings, (rows, cols)), shape=(n, n))
    return np.array(h), J, draw(st.floats(-5, 5))


@pytest.mark.timeout(60)
@settings(max_examples=120, deadline=None)
@given(st.one_of(weighted_problems(), general_isings()), ANGLE, ANGLE, st.sampled_from(METHODS))
def test_closed_form_equals_statevector_on_any_weighted_mis_or_ising(problem, gamma, beta, method):
    expected = statevector_energy(problem, gamma, beta)
    assert ClosedForm(problem, method=method)(gamma, beta) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("d", [3, 8, 20])
def test_dense_and_sparse_agree_beyond_statevector_sizes(d):
    # 60 vertices with many triangles at d = 20; random weights as in pricing.
    rng = np.random.default_rng(d)
    graph = nx.random_regular_graph(d, 60, seed=d)
    problem = MISProblem(graph, weights=rng.uniform(0.2, 3.0, 60), penalty=4.0)
    gammas, betas = rng.uniform(-2, 2, (5, 1)), rng.uniform(-2, 2, (1, 4))
    dense = ClosedForm(problem, method="dense")(gammas, betas)
    sparse = ClosedForm(problem, method="sparse")(gammas, betas)
    np.testing.assert_allclose(sparse, dense, rtol=0, atol=1e-9 * max(1.0, np.abs(dense).max()))


def test_expectation_keeps_the_adjacency_on_the_problem():
    problem = MISProblem(nx.random_regular_graph(3, 200, seed=1))
    first = expectation(problem, 0.4, 0.2)
    cached = problem.adjacency
    assert expectation(problem, 0.4, 0.2) == first
    assert problem.adjacency is cached
    del problem.adjacency
    assert expectation(problem, 0.4, 0.2) == first and problem.adjacency is not cached


def test_unknown_method_is_refused_with_its_name():
    message = "method must be one of 'auto', 'dense', 'sparse'; got 'fast'"
    with pytest.raises(InvalidParameterError, match=message):
        ClosedForm(MISProblem(nx.path_graph(3)), method="fast")


def test_expectation_broadcasts_over_angle_arrays():
    problem = MISProblem(nx.petersen_graph())
    gammas = np.linspace(0.1, 2.0, 7)
    betas = np.linspace(-1.0, 1.0, 5)
    grid = expectation(problem, gammas[:, None], betas[None, :])
    assert grid.shape == (7, 5)
    for i in (0, 3, 6):
        for j in (0, 2, 4):
            assert grid[i, j] == pytest.approx(expectation(problem, gammas[i], betas[j]), abs=1e-12)
    for method in METHODS:
        chunked = ClosedForm(problem, method=method)(gammas[:, None], betas[None, :], chunk=1)
        np.testing.assert_allclose(chunked, grid, atol=1e-12)


def test_graph_without_edges():
    problem = MISProblem(nx.empty_graph(3))
    # Only fields: <Z_u> = sin 2b sin 2g h_u with h_u = 1/2.
    expected = -1.5 + 3 * 0.5 * np.sin(0.6) * np.sin(0.2)
    assert expectation(problem, 0.2, 0.3) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("chunk", [1, 2_000, 1 << 22])
def test_coefficients_in_chunks_of_gamma_equal_one_batch(chunk):
    energy = ClosedForm(MISProblem(nx.gnp_random_graph(30, 0.3, seed=4)), method="sparse")
    gammas = np.linspace(0.01, 3.0, 41)
    whole = energy.coefficients(gammas, chunk=1 << 40)
    parts = energy.coefficients(gammas, chunk=chunk)
    for expected, found in zip(whole, parts, strict=True):
        assert found.shape == (41,)
        np.testing.assert_allclose(found, expected, rtol=0, atol=1e-12)


class IsingObject:
    """An Ising problem known only by its ``ising()`` method, without MISProblem's per-edge fast path."""

    def __init__(self, h, J, offset):
        self._terms = (h, J, offset)

    def ising(self):
        return self._terms


def test_an_object_with_ising_only_equals_its_tuple_and_its_mis_problem():
    problem = MISProblem(
        nx.random_regular_graph(3, 80, seed=2), weights=np.linspace(0.5, 2.0, 80), penalty=3.0
    )
    wrapped = IsingObject(*problem.ising())
    for method in METHODS:
        expected = ClosedForm(problem, method=method)(0.4, 0.2)
        assert ClosedForm(wrapped, method=method)(0.4, 0.2) == pytest.approx(expected, abs=1e-12)
        assert ClosedForm(problem.ising(), method=method)(0.4, 0.2) == pytest.approx(expected, abs=1e-12)


def test_an_adjacency_of_other_edges_is_not_used():
    """A problem's ``adjacency`` counts only when the edges read are its own ``edges``."""
    problem = MISProblem(nx.random_regular_graph(3, 80, seed=2))
    stranger = IsingObject(*problem.ising())
    stranger.adjacency = MISProblem(nx.path_graph(80)).adjacency  # wrong on purpose: must be ignored
    expected = ClosedForm(problem, method="sparse")(0.4, 0.2)
    assert ClosedForm(stranger, method="sparse")(0.4, 0.2) == pytest.approx(expected, abs=1e-12)
