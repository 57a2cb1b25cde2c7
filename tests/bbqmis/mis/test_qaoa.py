import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from qiskit.quantum_info import Statevector

from bbqmis import MISProblem, qaoa


def statevector_energy(problem, gamma, beta):
    """<f> from qiskit's Statevector of the bound circuit: the reference for the closed form."""
    qc = qaoa.circuit(problem, measure=False)
    probabilities = Statevector(qc.assign_parameters({"gamma": gamma, "beta": beta})).probabilities()
    n = qc.num_qubits
    k = np.arange(2**n)
    bits = (k[:, None] >> np.arange(n)) & 1
    h, J, offset = qaoa._ising(problem)
    z = 1 - 2 * bits
    diagonal = offset + z @ h + np.einsum("ki,ij,kj->k", z, J.toarray(), z)
    return probabilities @ diagonal


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
        assert qaoa.expectation(problem, gamma, beta) == pytest.approx(
            statevector_energy(problem, gamma, beta), abs=1e-9
        )


def test_closed_form_equals_statevector_on_general_ising_with_triangles(graphs):
    rng = np.random.default_rng(1)
    for graph in graphs(12, seed=11):
        ising = random_ising(graph, rng)
        gamma, beta = rng.uniform(-3, 3, 2)
        assert qaoa.expectation(ising, gamma, beta) == pytest.approx(
            statevector_energy(ising, gamma, beta), abs=1e-9
        )


def test_expectation_broadcasts_over_angle_arrays():
    problem = MISProblem(nx.petersen_graph())
    gammas = np.linspace(0.1, 2.0, 7)
    betas = np.linspace(-1.0, 1.0, 5)
    grid = qaoa.expectation(problem, gammas[:, None], betas[None, :])
    assert grid.shape == (7, 5)
    for i in (0, 3, 6):
        for j in (0, 2, 4):
            assert grid[i, j] == pytest.approx(qaoa.expectation(problem, gammas[i], betas[j]), abs=1e-12)
    chunked = qaoa.ClosedForm(problem)(gammas[:, None], betas[None, :], chunk=1)
    np.testing.assert_allclose(chunked, grid, atol=1e-12)


def test_graph_without_edges():
    problem = MISProblem(nx.empty_graph(3))
    # Only fields: <Z_u> = sin 2b sin 2g h_u with h_u = 1/2.
    expected = -1.5 + 3 * 0.5 * np.sin(0.6) * np.sin(0.2)
    assert qaoa.expectation(problem, 0.2, 0.3) == pytest.approx(expected, abs=1e-12)


def test_circuit_structure():
    problem = MISProblem(nx.path_graph(3))
    qc = qaoa.circuit(problem)
    ops = qc.count_ops()
    assert (ops["h"], ops["rzz"], ops["rx"], ops["measure"]) == (3, 2, 3, 3)
    # Middle vertex: h = 1/2 - 2 * 2/4 = -1/2 != 0; ends: 1/2 - 2/4 = 0, no RZ gate.
    assert ops["rz"] == 1
    assert [p.name for p in qc.parameters] == ["beta", "gamma"]
    assert "measure" not in qaoa.circuit(problem, measure=False).count_ops()


def test_optimize_finds_the_grid_minimum_and_reports_work():
    problem = MISProblem(nx.cycle_graph(7))
    angles = qaoa.optimize(problem)
    gammas = np.linspace(0, 2 * np.pi, 400)
    betas = np.linspace(0, np.pi, 200, endpoint=False)
    dense_min = qaoa.expectation(problem, gammas[:, None], betas[None, :]).min()
    assert angles.energy <= dense_min + 1e-6
    assert angles.energy == pytest.approx(qaoa.expectation(problem, angles.gamma, angles.beta), abs=1e-12)
    assert angles.evaluations > 800 and angles.seconds > 0
    assert set(angles.to_json()) == {"gamma", "beta", "energy", "evaluations", "seconds"}


def test_sample_on_aer_matches_the_exact_distribution():
    problem = MISProblem(nx.path_graph(4))
    angles = qaoa.optimize(problem)
    shots = 20000
    counts = qaoa.sample(problem, angles, shots=shots, seed=3)
    assert sum(counts.values()) == shots
    assert all(len(key) == 4 for key in counts)
    qc = qaoa.circuit(problem, measure=False)
    bound = qc.assign_parameters({"gamma": angles.gamma, "beta": angles.beta})
    exact = Statevector(bound).probabilities_dict()
    tvd = 0.5 * sum(abs(counts.get(k, 0) / shots - p) for k, p in exact.items())
    assert tvd < 0.03
    energy = sum(problem.cost(k) * c for k, c in counts.items()) / shots
    assert energy == pytest.approx(angles.energy, abs=0.05)
