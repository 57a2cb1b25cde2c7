"""Smoke test of ``benchmarks/trained_angles.py``: trained energies against a statevector and closed form."""

import networkx as nx
import numpy as np
import pytest

from bbqmis.mis import MISProblem, qaoa


def statevector_energy(problem: MISProblem, gamma: float, beta: float) -> float:
    """The QUBO energy of the p = 1 QAOA state, from qiskit's statevector (no closed form)."""
    from qiskit.quantum_info import Statevector

    circuit = qaoa.circuit(problem, measure=False)
    bound = circuit.assign_parameters({p: gamma if p.name == "gamma" else beta for p in circuit.parameters})
    n = problem.num_nodes
    bits = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.uint8)
    return float(Statevector(bound).probabilities() @ problem.cost(bits))


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_quick_run_trains_within_reach_of_the_closed_form(run_benchmark):
    args = ("--quick", "--sizes", "8", "--dimacs", "myciel5", "--evaluations", "20", "--shots", "512")
    lines, report = run_benchmark("trained_angles.py", *args, timeout=100)
    assert lines[0].startswith("| family | qubits | start |")
    assert report["benchmark"] == "trained_angles" and report["evaluations_budget"] == 20
    assert [(r["family"], r["qubits"]) for r in report["rows"]] == [("3-regular", 8), ("dimacs", 8)]
    regular = next(r for r in report["problems"] if r["family"] == "3-regular")
    problem = MISProblem(nx.random_regular_graph(3, 8, seed=0))  # the script's 3-regular problem, seed 0
    optimum = qaoa.optimize(problem)
    assert regular["optimum"] == pytest.approx(
        statevector_energy(problem, optimum.gamma, optimum.beta), abs=1e-9
    )
    assert regular["energy"] == pytest.approx(
        statevector_energy(problem, regular["gamma"], regular["beta"]), abs=1e-9
    )
    for record in report["problems"]:
        assert 1 <= record["evaluations"] <= 20
        assert 9 <= record["fit_evaluations"] <= record["evaluations"]  # 20 >= 18: the model fit ran
        assert record["energy"] >= record["optimum"] - 1e-9  # the closed form is the p = 1 optimum
        assert record["relative_gap"] == pytest.approx(
            (record["energy"] - record["optimum"]) / abs(record["optimum"])
        )
    assert report["target_met"] == all(r["relative_gap"] <= 0.05 for r in report["problems"])
    for family in report["families"]:  # the summary lines count what the records say
        same = [r for r in report["problems"] if r["family"] == family["family"]]
        assert family["within_target"] == sum(r["relative_gap"] <= 0.05 for r in same)
        assert family["mean_evaluations"] == pytest.approx(sum(r["evaluations"] for r in same) / len(same))
        assert any(line.startswith(f"{family['family']} (closed-form start): ") for line in lines)
    assert report["max_statevector_deviation"] < 1e-9


def test_bad_sizes_are_refused(assert_refused):
    assert_refused("trained_angles.py", ["--sizes", "x"])
