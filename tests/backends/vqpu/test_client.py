"""The ``vqpu:`` backend honours the QuantumBackend contract like ``aer``."""

from __future__ import annotations

import time

import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
from vqpu_helpers import ghz, serve

from backends import CircuitTooWideError, QuantumBackend, get_backend
from backends.vqpu.api import VQPURejectedError
from backends.vqpu.wire import encode_circuits


def two_registers() -> QuantumCircuit:
    """X on qubit 0 measured into register a, qubit 1 (|0>) into register b: always 'b a' = '0 1'."""
    q, a, b = QuantumRegister(2), ClassicalRegister(1, "a"), ClassicalRegister(2, "b")
    circuit = QuantumCircuit(q, a, b)
    circuit.x(0)
    circuit.measure(0, a[0])
    circuit.measure(1, b[0])
    circuit.measure(1, b[1])
    return circuit


def test_same_counts_shape_as_aer(physical, tmp_path):
    circuits = [ghz(3), two_registers()]
    reference = get_backend("aer").run(circuits, 64, seed=3)
    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        backend = get_backend(f"vqpu:{url}", job="contract")
        counts = backend.run(circuits, 64, seed=3)
    assert isinstance(backend, QuantumBackend)
    assert (backend.name, backend.num_qubits) == (f"vqpu:{url}", 5)
    assert len(counts) == len(reference) == 2
    for got, want, circuit in zip(counts, reference, circuits, strict=True):
        assert sum(got.values()) == sum(want.values()) == 64
        assert {len(bits) for bits in got} == {circuit.num_clbits}
        assert set(got) <= {"000", "111"} or set(got) == set(want)
    assert counts[1] == reference[1] == {"001": 64}


def test_sleep_factor_and_timing_record(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite", latency=0.1) as (_, url):
        backend = get_backend(f"vqpu:{url}", job="sleepy", sleep_factor=2.0)
        tic = time.perf_counter()
        backend.run(ghz(2), 10)
        wall = time.perf_counter() - tic
    (record,) = backend.timings
    assert record.quantum_seconds >= 0.1
    assert record.sleep_seconds == pytest.approx(2.0 * record.quantum_seconds)
    assert wall >= record.quantum_seconds + record.sleep_seconds
    assert record.submitted <= record.started <= record.ended
    assert (record.circuits, record.shots, record.label) == (1, 10, f"vqpu:{url}")


def test_queue_time_is_the_wait_behind_other_jobs(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite", latency=0.3) as (_, url):
        blocker = get_backend(f"vqpu:{url}", job="first")
        first = blocker.session.submit(encode_circuits([ghz(2)]), 10)  # occupies the device for 0.3 s
        waiting = get_backend(f"vqpu:{url}", job="second")
        waiting.run(ghz(2), 10)
        first = blocker.session.result(first["id"])
    (record,) = waiting.timings
    assert record.started >= first["ended"]  # it ran after the other job's batch ...
    assert record.queue_seconds == pytest.approx(record.started - record.submitted)
    assert record.submitted < first["ended"]  # ... while it was already waiting
    assert record.queue_seconds >= first["ended"] - record.submitted


def test_width_token_and_spec_errors(physical, tmp_path, monkeypatch):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("job-a secret-a\n")
    with serve(physical, tmp_path / "db.sqlite", tokens=tokens) as (_, url):
        monkeypatch.setenv("VQPU_TOKEN", "secret-a")
        backend = get_backend(f"vqpu:{url}")  # token from the environment
        with pytest.raises(CircuitTooWideError, match="needs 6 qubits but backend"):
            backend.run(ghz(6), 10)
        monkeypatch.delenv("VQPU_TOKEN")
        with pytest.raises(VQPURejectedError, match="missing token"):
            get_backend(f"vqpu:{url}")
    with pytest.raises(ValueError, match="bad vqpu spec 'vqpu:localhost:1'"):
        get_backend("vqpu:localhost:1")
