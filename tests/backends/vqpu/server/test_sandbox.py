"""The decoder process: summaries of nested circuits, memory and time limits, restarts."""

from __future__ import annotations

import os
import signal
import time

import pytest
from qiskit import QuantumCircuit
from qpy_hostile import nested_definition, qpy_bytes
from vqpu_helpers import ghz

from backends.vqpu.server.sandbox import CircuitSummary, DecodeLimitError, DecodeWorker, summarize_circuits


@pytest.fixture
def worker():
    worker = DecodeWorker(memory_bytes=256 * 2**20, timeout=10)
    yield worker
    worker.close()


def test_summary_covers_control_flow_blocks_and_custom_definitions():
    definition = QuantumCircuit(3)
    definition.h(range(3))
    definition.cx(0, 1)
    with_gate = QuantumCircuit(3, 2)
    with_gate.append(definition.to_gate(), range(3))
    branch = QuantumCircuit(2, 7)
    with branch.if_test((branch.clbits[0], 1)):
        branch.x(1)
    assert summarize_circuits([with_gate, branch]) == CircuitSummary(
        circuits=2, qubits=3, nested_qubits=3, clbits=7, instructions=4, unmeasured=0
    )


def test_summary_does_not_expand_standard_gates():
    circuit = QuantumCircuit(3)
    circuit.mcx([0, 1], 2)
    circuit.h(0)
    assert summarize_circuits([circuit]) == CircuitSummary(1, 3, 3, 0, 2, 0)


def test_the_worker_summarises_qpy_and_keeps_running(worker):
    assert worker.summarize(qpy_bytes([ghz(2), ghz(4)])) == CircuitSummary(2, 4, 4, 4, 8, None)
    assert worker.summarize(nested_definition(40)).nested_qubits == 40
    with pytest.raises(ValueError, match="^circuits are not base64-encoded QPY: "):
        worker.summarize(b"QISKIT\x0f" + bytes(40))
    assert worker.summarize(qpy_bytes([ghz(1)])).qubits == 1


def test_a_payload_beyond_the_memory_limit_is_refused_and_the_worker_replaced(worker):
    worker.summarize(qpy_bytes([ghz(1)]))
    first = worker._process.pid
    tic = time.monotonic()
    with pytest.raises(DecodeLimitError, match=r"^deserialising the circuits needs more than 256 MiB$"):
        worker.summarize(nested_definition(2**25))
    assert time.monotonic() - tic < 10
    assert worker.summarize(qpy_bytes([ghz(1)])).qubits == 1 and worker._process.pid != first


def test_a_payload_beyond_the_time_limit_is_cut_off():
    worker = DecodeWorker(memory_bytes=8 * 2**30, timeout=0.2)
    try:
        worker.summarize(qpy_bytes([ghz(1)]))
        with pytest.raises(DecodeLimitError, match=r"^deserialising the circuits took longer than 0.2 s$"):
            worker.summarize(nested_definition(2**24))
        assert worker.summarize(qpy_bytes([ghz(2)])).qubits == 2
    finally:
        worker.close()


def test_a_worker_that_dies_is_replaced(worker):
    worker.summarize(qpy_bytes([ghz(1)]))
    os.kill(worker._process.pid, signal.SIGKILL)
    worker._process.wait()
    assert worker.summarize(qpy_bytes([ghz(3)])).qubits == 3


def test_close_is_safe_twice_and_the_worker_starts_again(worker):
    worker.summarize(qpy_bytes([ghz(1)]))
    process = worker._process
    worker.close()
    worker.close()
    assert process.poll() is not None
    assert worker.summarize(qpy_bytes([ghz(1)])).qubits == 1
