"""Classical references: exact and greedy independent sets, simulated annealing (bbqmis.mis.classical)."""

import re

import networkx as nx
import numpy as np
import pytest

from bbqmis.mis.classical import (
    check_beta_range,
    greedy_independent_set,
    maximum_independent_set,
    simulated_annealing,
)
from bbqmis.mis.errors import InvalidParameterError
from bbqmis.mis.problem import MISProblem


def brute_force_mis_weight(problem, bits):
    independent = problem.is_independent(bits)
    return (bits[independent] @ problem.weights).max()


# -- maximum_independent_set ---------------------------------------------------------------
def test_classical_references(graphs, bitstrings):
    for graph in graphs(8, seed=5):
        problem = MISProblem(graph)
        exact = maximum_independent_set(graph)
        assert problem.is_independent(problem.to_bits(exact))
        assert len(exact) == brute_force_mis_weight(problem, bitstrings(problem.num_nodes))
        greedy = greedy_independent_set(graph, seed=1)
        assert problem.is_maximal(problem.to_bits(greedy))
        assert len(greedy) <= len(exact)


def test_exact_weighted_mis_with_fractional_weights():
    graph = nx.path_graph(3)
    assert maximum_independent_set(graph, weights=[0.4, 1.25, 0.4]) == {1}
    assert maximum_independent_set(graph, weights=[0.7, 1.25, 0.7]) == {0, 2}


def test_unweighted_maximum_matches_brute_force_over_all_subsets(graphs, bitstrings):
    for graph in graphs(15, seed=31):
        problem = MISProblem(graph)
        exact = maximum_independent_set(graph)
        assert isinstance(exact, frozenset) and exact <= set(graph)
        assert problem.is_independent(problem.to_bits(exact))
        assert len(exact) == brute_force_mis_weight(problem, bitstrings(problem.num_nodes))


@pytest.mark.parametrize("kind", ["integer", "fractional"])
def test_weighted_maximum_matches_brute_force_over_all_subsets(graphs, bitstrings, kind):
    rng = np.random.default_rng(12)
    for graph in graphs(15, seed=32):
        n = graph.number_of_nodes()
        weights = rng.integers(1, 10, n) if kind == "integer" else rng.uniform(0.1, 5.0, n)
        problem = MISProblem(graph, weights, penalty=100.0)  # the penalty is unused here
        exact = maximum_independent_set(graph, weights)
        assert problem.is_independent(problem.to_bits(exact))
        weight = problem.to_bits(exact) @ problem.weights
        # Fractional weights are rounded to 1e-6 for networkx: allow that much per vertex.
        assert weight == pytest.approx(brute_force_mis_weight(problem, bitstrings(n)), abs=n * 1e-6)


def test_weights_by_attribute_and_mapping_give_the_same_set():
    graph = nx.star_graph(3)
    nx.set_node_attributes(graph, {0: 5.0, 1: 1.0, 2: 1.0, 3: 1.0}, "w")
    assert maximum_independent_set(graph, "w") == {0}  # 5 > 1 + 1 + 1
    assert maximum_independent_set(graph, {0: 2.0, 1: 1.0, 2: 1.0, 3: 1.0}) == {1, 2, 3}


def test_maximum_independent_set_keeps_arbitrary_labels():
    graph = nx.relabel_nodes(nx.cycle_graph(6), {i: f"v{i}" for i in range(6)})
    assert maximum_independent_set(graph) in ({"v0", "v2", "v4"}, {"v1", "v3", "v5"})


def test_maximum_independent_set_rejects_bad_weights():
    with pytest.raises(InvalidParameterError, match="weights must be positive and finite"):
        maximum_independent_set(nx.path_graph(2), [1.0, -1.0])


# -- greedy_independent_set ----------------------------------------------------------------
def test_greedy_is_maximal_and_reproducible(graphs):
    for graph in graphs(15, seed=33):
        problem = MISProblem(graph)
        for seed in range(3):
            greedy = greedy_independent_set(graph, seed=seed)
            assert problem.is_maximal(problem.to_bits(greedy))
            assert greedy == greedy_independent_set(graph, seed=seed)


def test_greedy_is_the_repair_of_the_empty_selection(graphs):
    for graph in graphs(6, seed=34):
        problem = MISProblem(graph, penalty=100.0)  # the penalty is unused here
        expected = problem.to_nodes(problem.repair(np.zeros(problem.num_nodes), seed=7))
        assert greedy_independent_set(graph, seed=7) == expected


def test_greedy_weight_meets_the_gwmin_guarantee(graphs):
    # GWMIN (Sakai, Togasaki and Yamazaki 2003) finds weight >= sum_v w(v) / (deg(v) + 1).
    rng = np.random.default_rng(14)
    for graph in graphs(20, seed=35):
        weights = rng.uniform(0.1, 4.0, graph.number_of_nodes())
        problem = MISProblem(graph, weights, penalty=100.0)  # the penalty is unused here
        greedy = greedy_independent_set(graph, weights, seed=0)
        degree = np.array([graph.degree(v) for v in problem.nodes])
        assert problem.to_bits(greedy) @ problem.weights >= (problem.weights / (degree + 1)).sum() - 1e-12
        assert problem.is_maximal(problem.to_bits(greedy))


def test_greedy_prefers_a_heavy_centre_and_otherwise_low_degree():
    star = nx.star_graph(4)
    assert greedy_independent_set(star) == {1, 2, 3, 4}
    assert greedy_independent_set(star, {0: 10.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}) == {0}


def test_greedy_seed_breaks_ties():
    graph = nx.cycle_graph(8)  # vertex-transitive: every first pick is a tie
    found = {greedy_independent_set(graph, seed=seed) for seed in range(20)}
    assert len(found) > 1
    assert all(len(s) in (3, 4) for s in found)


# -- simulated_annealing --------------------------------------------------------------------
def test_annealing_returns_one_uint8_row_per_read():
    problem = MISProblem(nx.cycle_graph(5))
    bits = simulated_annealing(problem, num_reads=7, num_sweeps=20, seed=0)
    assert bits.shape == (7, 5) and bits.dtype == np.uint8
    assert set(np.unique(bits)) <= {0, 1}


def test_annealing_is_reproducible_with_a_seed():
    problem = MISProblem(nx.petersen_graph())
    first = simulated_annealing(problem, num_reads=16, num_sweeps=50, seed=3)
    np.testing.assert_array_equal(first, simulated_annealing(problem, num_reads=16, num_sweeps=50, seed=3))
    a = simulated_annealing(problem, num_reads=16, num_sweeps=50, seed=np.random.default_rng(3))
    b = simulated_annealing(problem, num_reads=16, num_sweeps=50, seed=np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)


def test_annealing_finds_the_qubo_optimum_on_small_graphs(graphs, bitstrings):
    rng = np.random.default_rng(15)
    for graph in graphs(6, seed=36):
        problem = MISProblem(graph, rng.uniform(0.5, 2.0, graph.number_of_nodes()), penalty=3.0)
        optimum = problem.cost(bitstrings(problem.num_nodes)).min()
        bits = simulated_annealing(problem, num_reads=16, num_sweeps=200, seed=1)
        costs = problem.cost(bits)
        assert costs.min() == pytest.approx(optimum)
        best = bits[np.argmin(costs)]
        assert problem.is_independent(best)
        assert best @ problem.weights == pytest.approx(brute_force_mis_weight(problem, bitstrings(len(best))))


def test_annealing_keeps_qubit_order_on_arbitrary_labels():
    # A heavy vertex in the middle of a path: the optimum selects qubit 1 only.
    graph = nx.Graph([("x", "hub"), ("hub", "y")])
    problem = MISProblem(graph, {"x": 1.0, "hub": 5.0, "y": 1.0}, penalty=6.0)
    bits = simulated_annealing(problem, num_reads=8, num_sweeps=100, seed=0)
    assert problem.nodes[1] == "hub"
    assert [0, 1, 0] in bits.tolist()


def test_annealing_on_an_empty_problem():
    assert simulated_annealing(MISProblem(nx.Graph()), num_reads=3, seed=0).shape == (3, 0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_reads": 0}, "num_reads must be a positive integer, got 0"),
        ({"num_sweeps": 2.5}, "num_sweeps must be a positive integer, got 2.5"),
        ({"beta_range": (5.0, 1.0)}, "beta_range must be (low, high) with 0 < low < high, got (5.0, 1.0)"),
    ],
)
def test_annealing_rejects_bad_parameters(kwargs, message):
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(message)}$"):
        simulated_annealing(MISProblem(nx.path_graph(2)), **kwargs)


# -- check_beta_range ---------------------------------------------------------------------------
def test_check_beta_range_returns_floats():
    low, high = check_beta_range([1, 10])
    assert (low, high) == (1.0, 10.0) and type(low) is float and type(high) is float
    assert check_beta_range(np.array([0.5, 2.0])) == (0.5, 2.0)


@pytest.mark.parametrize(
    ("beta_range", "message"),
    [
        ((1.0,), "beta_range must be a pair (low, high), got (1.0,)"),
        ((1.0, 2.0, 3.0), "beta_range must be a pair (low, high), got (1.0, 2.0, 3.0)"),
        (None, "beta_range must be a pair (low, high), got None"),
        (("a", "b"), "beta_range must be a pair (low, high), got ('a', 'b')"),
        ((0.0, 1.0), "beta_range must be (low, high) with 0 < low < high, got (0.0, 1.0)"),
        ((2.0, 2.0), "beta_range must be (low, high) with 0 < low < high, got (2.0, 2.0)"),
        ((-1.0, 1.0), "beta_range must be (low, high) with 0 < low < high, got (-1.0, 1.0)"),
        ((1.0, float("inf")), "beta_range must be (low, high) with 0 < low < high, got (1.0, inf)"),
        ((float("nan"), 1.0), "beta_range must be (low, high) with 0 < low < high, got (nan, 1.0)"),
    ],
)
def test_check_beta_range_messages(beta_range, message):
    with pytest.raises(InvalidParameterError) as info:
        check_beta_range(beta_range)
    assert str(info.value) == message
