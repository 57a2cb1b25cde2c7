import networkx as nx
import numpy as np
import pytest

from bbqmis import InvalidParameterError, MISProblem, bits_from_strings


def brute_force_mis_weight(problem, bits):
    independent = problem.is_independent(bits)
    return (bits[independent] @ problem.weights).max()


@pytest.mark.parametrize("weighted", [False, True])
def test_qubo_ising_and_cost_agree_on_every_bitstring(graphs, bitstrings, weighted):
    rng = np.random.default_rng(7)
    for graph in graphs(12, seed=1):
        n = graph.number_of_nodes()
        weights = rng.uniform(0.2, 3.0, n) if weighted else None
        problem = MISProblem(graph, weights=weights, penalty=3.5)
        x = bitstrings(n)
        q = problem.qubo()
        qubo_values = np.einsum("ki,ij,kj->k", x, q, x)
        h, J, offset = problem.ising()
        z = 1 - 2 * x.astype(float)
        ising_values = offset + z @ h + np.einsum("ki,ij,kj->k", z, J.toarray(), z)
        cost = problem.cost(x)
        np.testing.assert_allclose(qubo_values, cost, atol=1e-12)
        np.testing.assert_allclose(ising_values, cost, atol=1e-12)


def test_qubo_optimum_is_a_maximum_weight_independent_set(graphs, bitstrings):
    rng = np.random.default_rng(3)
    for graph in graphs(10, seed=2):
        weights = rng.uniform(0.5, 2.0, graph.number_of_nodes())
        problem = MISProblem(graph, weights=weights, penalty=2.01)
        x = bitstrings(problem.num_nodes)
        best = x[np.argmin(problem.cost(x))]
        assert problem.is_independent(best)
        assert best @ problem.weights == pytest.approx(brute_force_mis_weight(problem, x))


def test_bit_order_is_qiskit_order():
    problem = MISProblem(nx.path_graph(3))
    assert bits_from_strings("001").tolist() == [1, 0, 0]
    assert problem.to_nodes("001") == {0}
    assert problem.cost("101") == -2.0
    assert not problem.is_independent("011")
    assert problem.cost(["101", "011"]).tolist() == [-2.0, 0.0]


def test_nodes_with_arbitrary_labels_map_to_qubits_in_graph_order():
    graph = nx.Graph([("b", "a"), ("a", "c")])
    problem = MISProblem(graph)
    assert problem.nodes == ["b", "a", "c"]
    assert problem.to_nodes(problem.to_bits({"b", "c"})) == {"b", "c"}
    assert problem.edges.tolist() == [[0, 1], [1, 2]]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"penalty": 1.0}, "penalty=1 must exceed the largest vertex weight 1"),
        ({"weights": [1, 2, 3], "penalty": 2.5}, "penalty=2.5 must exceed the largest vertex weight 3"),
        ({"weights": [1, 0, 1]}, "weights must be positive and finite; node 1 has 0.0"),
        ({"weights": [1, 1]}, r"weights must have shape \(3,\), got \(2,\)"),
        ({"weights": "w"}, "node 0 has no attribute 'w' for its weight"),
    ],
)
def test_invalid_parameters_are_rejected_with_the_reason(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        MISProblem(nx.path_graph(3), **kwargs)


def test_bad_bitstrings_are_rejected():
    problem = MISProblem(nx.path_graph(3))
    with pytest.raises(InvalidParameterError, match="expected a bitstring of 3 characters"):
        problem.cost("01")
    with pytest.raises(InvalidParameterError, match=r"bits must have shape \(3,\)"):
        problem.cost([1, 0])


def test_repair_gives_maximal_independent_sets_deterministically(graphs):
    rng = np.random.default_rng(11)
    for graph in graphs(15, seed=4):
        problem = MISProblem(graph)
        for _ in range(10):
            bits = rng.integers(0, 2, problem.num_nodes)
            repaired = problem.repair(bits, seed=5)
            assert problem.is_maximal(repaired)
            assert np.array_equal(repaired, problem.repair(bits, seed=5))
            # Independent input vertices are never dropped.
            if problem.is_independent(bits):
                assert np.all(repaired >= bits)


def test_repair_drops_the_most_conflicted_vertex_first():
    # Star: centre 0 conflicts with every leaf; dropping it keeps all four leaves.
    problem = MISProblem(nx.star_graph(4))
    assert problem.to_nodes(problem.repair(np.ones(5), seed=0)) == {1, 2, 3, 4}


def test_qaoa_circuit_is_the_library_circuit_of_the_problem():
    from bbqmis import qaoa

    problem = MISProblem(nx.path_graph(4), weights=[1.0, 2.0, 1.0, 3.0], penalty=4.0)
    angles = {"gamma": 0.4, "beta": 0.2}
    for measure in (True, False):
        ours = problem.qaoa_circuit(measure=measure).assign_parameters(angles)
        assert ours == qaoa.circuit(problem, measure=measure).assign_parameters(angles)
    assert problem.qaoa_circuit().count_ops()["measure"] == 4
