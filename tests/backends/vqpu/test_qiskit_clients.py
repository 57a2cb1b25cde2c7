"""Qiskit programs on a live vQPU: a plain sampling script, BackendV2, the sampler, qiskit-addon-cutting."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, transpile
from qiskit.circuit import Parameter
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit_addon_cutting import (
    generate_cutting_experiments,
    partition_problem,
    reconstruct_expectation_values,
)
from vqpu_helpers import HERE, serve, subprocess_env

from backends import get_qiskit_backend, get_sampler
from backends.vqpu.server.limits import Limits

SCRIPT = HERE.parents[2] / "examples" / "qiskit" / "sample_bell.py"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_plain_qiskit_sampling_script_runs_on_the_vqpu(physical, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("slurm-4242 secret-4242\n")
    with serve(physical, tmp_path / "db.sqlite", tokens=tokens) as (service, url):
        done = subprocess.run(
            [sys.executable, str(SCRIPT), f"vqpu:{url}", "--shots", "400"],
            env={**subprocess_env(), "VQPU_TOKEN": "secret-4242"},
            capture_output=True,
            text=True,
            timeout=100,
        )
        batches = service.store.batches()
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    assert set(counts) == {"00", "11"}  # a Bell state: never 01 or 10
    assert sum(counts.values()) == 400
    assert 120 < counts["00"] < 280
    [batch] = batches  # the script's one job ran on the server, as the token's job
    assert (batch.job, batch.circuits, batch.shots, batch.status) == ("slurm-4242", 1, 400, "done")


def test_the_scripts_bad_input_is_one_line_and_status_2():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "vqpu:localhost:1"],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "sample_bell.py: bad vqpu spec 'vqpu:localhost:1': The 'url' parameter must start with "
        "http:// or https://. Got 'localhost:1' instead.\n"
    )
    assert done.stdout == ""


@pytest.mark.slow
@pytest.mark.timeout(120)  # the first transpile of a process loads every transpiler plugin
def test_the_qiskit_backend_of_the_vqpu_gives_aers_counts(physical, tmp_path):
    q, a, b = QuantumRegister(3, "q"), ClassicalRegister(1, "a"), ClassicalRegister(2, "b")
    circuit = QuantumCircuit(q, a, b, name="registers")
    circuit.x(q[0])
    circuit.cx(q[0], q[2])
    circuit.measure(q[0], a[0])
    circuit.measure(q[1], b[0])
    circuit.measure(q[2], b[1])
    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        backend = get_qiskit_backend(f"vqpu:{url}", job="backend-v2", seed=2)
        assert backend.num_qubits == backend.target.num_qubits == 5
        result = backend.run(transpile(circuit, backend), shots=100, memory=True).result()
    reference = get_qiskit_backend("aer").run(circuit, shots=100).result()
    assert result.get_counts() == reference.get_counts() == {"10 1": 100}
    assert result.get_memory() == ["10 1"] * 100
    [record] = result.timings
    assert record.label == f"vqpu:{url}" and record.started <= record.ended
    assert backend.backend.timings == [record]


def test_the_sampler_on_the_vqpu_binds_parameters_and_splits_jobs_at_the_servers_limit(physical, tmp_path):
    theta = Parameter("theta")
    circuit = QuantumCircuit(2, name="sweep")
    circuit.rx(theta, 0)
    circuit.cx(0, 1)
    circuit.measure_all()
    angles = np.array([[0.0], [np.pi], [0.0], [np.pi], [np.pi]])
    with serve(physical, tmp_path / "db.sqlite", limits=Limits(max_circuits=2)) as (service, url):
        sampler = get_sampler(f"vqpu:{url}", job="sweeper", seed=8)
        assert sampler.backend.max_circuits == 2
        result = sampler.run([(circuit, angles), (circuit, [np.pi], 30)], shots=50).result()
        batches = service.store.batches()
    sweep, single = result
    assert [sweep.data.meas.get_counts(i) for i in range(5)] == [
        {"00": 50},
        {"11": 50},
        {"00": 50},
        {"11": 50},
        {"11": 50},
    ]
    assert single.data.meas.get_counts() == {"11": 30}
    assert sorted((batch.circuits, batch.shots) for batch in batches) == [(1, 30), (1, 50), (2, 50), (2, 50)]
    assert {batch.job for batch in batches} == {"sweeper"}
    assert len(result.metadata["timings"]) == 4


def cut_problem() -> tuple[QuantumCircuit, SparsePauliOp]:
    """Four qubits entangled across the middle by one RZZ gate, and an observable on both halves."""
    circuit = QuantumCircuit(4)
    for qubit in range(4):
        circuit.ry(0.4 + 0.3 * qubit, qubit)
    circuit.cx(0, 1)
    circuit.cx(2, 3)
    circuit.rzz(0.7, 1, 2)
    circuit.ry(0.5, 1)
    circuit.ry(0.6, 2)
    return circuit, SparsePauliOp(["ZZII", "IZZI", "XIIX"], coeffs=[1.0, 0.5, 0.3])


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_qiskit_addon_cutting_reconstructs_the_exact_expectation_through_the_vqpu(physical, tmp_path):
    circuit, observable = cut_problem()
    exact = Statevector(circuit).expectation_value(observable).real
    problem = partition_problem(circuit, partition_labels="AABB", observables=observable.paulis)
    subexperiments, coefficients = generate_cutting_experiments(
        problem.subcircuits, problem.subobservables, num_samples=np.inf
    )
    shots = 10_000
    # Each term is a product of two +-1 estimates (variance <= 2 / shots); terms are independent.
    weights = np.array([weight for weight, _ in coefficients])
    sigma = np.abs(observable.coeffs).sum() * np.sqrt(2 * np.sum(weights**2) / shots)
    assert 4 * sigma < abs(exact) / 2  # the tolerance below tells the value from 0 or its opposite

    with serve(physical, tmp_path / "db.sqlite") as (service, url):
        sampler = get_sampler(f"vqpu:{url}", job="cutting", seed=13)
        results = {
            label: sampler.run(subexperiments[label], shots=shots).result() for label in subexperiments
        }
        batches = service.store.batches()

    terms = reconstruct_expectation_values(results, coefficients, problem.subobservables)
    estimate = float(np.real(np.dot(terms, observable.coeffs)))
    assert estimate == pytest.approx(exact, abs=4 * sigma)
    assert sum(batch.circuits for batch in batches) == sum(len(s) for s in subexperiments.values())
    assert {batch.qubits for batch in batches} == {2}  # the halves, not the 4-qubit circuit
