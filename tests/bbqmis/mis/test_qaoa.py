import subprocess
import sys

import networkx as nx
import numpy as np
import pytest
from qiskit.quantum_info import Statevector

from bbqmis import MISProblem, qaoa
from bbqmis.mis import closed_form

from .conftest import statevector_energy


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


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_optimize_reaches_the_dense_grid_minimum_on_weighted_problems(seed):
    rng = np.random.default_rng(seed)
    graph = nx.gnp_random_graph(9, 0.4, seed=seed)  # triangles, maybe isolated vertices
    problem = MISProblem(graph, weights=rng.uniform(0.2, 2.0, 9), penalty=2.5)
    angles = qaoa.optimize(problem)
    gamma_max = np.pi / qaoa.ClosedForm(problem).scale
    gammas = np.linspace(0, gamma_max, 600)
    betas = np.linspace(0, np.pi, 300, endpoint=False)
    dense_min = qaoa.expectation(problem, gammas[:, None], betas[None, :]).min()
    assert angles.energy <= dense_min + 1e-9
    assert angles.energy == pytest.approx(statevector_energy(problem, angles.gamma, angles.beta), abs=1e-9)


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


def test_the_closed_form_is_still_importable_from_qaoa():
    assert qaoa.ClosedForm is closed_form.ClosedForm
    assert qaoa.expectation is closed_form.expectation
    assert qaoa.DENSE_MAX_ENTRIES == closed_form.DENSE_MAX_ENTRIES


def test_the_mis_problem_and_the_closed_form_load_without_qiskit():
    code = (
        "import sys, networkx as nx; from bbqmis.mis.problem import MISProblem; "
        "from bbqmis.mis.closed_form import expectation; "
        "expectation(MISProblem(nx.path_graph(3)), 0.4, 0.2); "
        "print('qiskit' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
