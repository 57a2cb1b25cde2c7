"""BaseBackend: input checks, sleep factor and device timestamps."""

import time

import pytest
from qiskit import QuantumCircuit
from qiskit_aer import AerSimulator

from backends import BaseBackend, CircuitTooWideError, Execution, InvalidParameterError, get_backend


def measured_x(num_qubits=2, qubit=0):
    circuit = QuantumCircuit(num_qubits, num_qubits, name="x")
    circuit.x(qubit)
    circuit.measure(range(num_qubits), range(num_qubits))
    return circuit


class ReportedWindowBackend(BaseBackend):
    """Reports a device execution window of ``device_seconds`` that lies in the future."""

    def __init__(self, device_seconds, **options):
        super().__init__(AerSimulator(), name="stub", **options)
        self.device_seconds = device_seconds
        self.executed = 0

    def _execute(self, circuits, shots, seed):
        self.executed += 1
        started = time.time() + 1.0
        counts = [{"0" * circuit.num_clbits: shots} for circuit in circuits]
        return Execution(counts, (started, started + self.device_seconds))


@pytest.fixture(scope="module")
def aer():
    return get_backend("aer", seed=1)


@pytest.mark.parametrize(
    ("circuits", "message"),
    [
        ([], "circuits must hold at least one QuantumCircuit, got an empty sequence"),
        (5, "circuits must be a QuantumCircuit or a sequence of them, got int"),
        ([measured_x(), "x"], "circuits[1] must be a QuantumCircuit, got str"),
        (
            QuantumCircuit(2, name="bare"),
            "circuits[0] ('bare') has no measurements; add measure() or measure_all() "
            "so that counts can be returned",
        ),
    ],
)
def test_bad_circuits_are_named(aer, circuits, message):
    with pytest.raises(InvalidParameterError) as info:
        aer.run(circuits, shots=10)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("shots", "seed", "message"),
    [
        (0, None, "shots must be a positive integer, got 0"),
        (2.5, None, "shots must be a positive integer, got 2.5"),
        (True, None, "shots must be a positive integer, got True"),
        (10, -1, "seed must be None or an integer >= 0, got -1"),
    ],
)
def test_bad_shots_and_seed(aer, shots, seed, message):
    with pytest.raises(InvalidParameterError, match="^" + message.replace(".", r"\.") + "$"):
        aer.run(measured_x(), shots=shots, seed=seed)


@pytest.mark.parametrize("sleep_factor", [-0.5, float("nan"), "1"])
def test_sleep_factor_must_be_non_negative(sleep_factor):
    with pytest.raises(InvalidParameterError) as info:
        get_backend("aer", sleep_factor=sleep_factor)
    assert str(info.value) == f"sleep_factor must be a finite number >= 0, got {sleep_factor!r}"


def test_num_qubits_caps_the_width():
    backend = get_backend("aer", num_qubits=2)
    assert backend.num_qubits == 2
    with pytest.raises(CircuitTooWideError, match="circuit 'x' needs 3 qubits but backend 'aer' has 2;"):
        backend.run(measured_x(3), shots=10)
    with pytest.raises(InvalidParameterError) as info:
        get_backend("aer", num_qubits=31)
    assert str(info.value) == "num_qubits must be <= 30 (the qubits of backend 'aer'), got 31"


def test_sleep_factor_sleeps_alpha_times_quantum_seconds():
    alpha = 3.0
    backend = get_backend("aer", sleep_factor=alpha, label="sleepy")
    backend.run(measured_x(), shots=10)  # warm up the transpiler

    tic = time.perf_counter()
    backend.run(measured_x(), shots=10)
    elapsed = time.perf_counter() - tic

    record = backend.timings[-1]
    assert record.label == "sleepy"
    assert record.queue_seconds == 0.0  # local simulator: started == submitted
    assert record.quantum_seconds > 0
    assert record.sleep_seconds == pytest.approx(alpha * record.quantum_seconds)
    assert elapsed >= record.quantum_seconds + record.sleep_seconds


def test_device_timestamps_drive_quantum_and_sleep_seconds():
    backend = ReportedWindowBackend(device_seconds=0.2, sleep_factor=0.5)

    tic = time.perf_counter()
    [counts] = backend.run(measured_x(), shots=10)
    elapsed = time.perf_counter() - tic

    record = backend.timings[-1]
    assert counts == {"00": 10}
    assert record.quantum_seconds == pytest.approx(0.2)
    assert record.sleep_seconds == pytest.approx(0.1)
    assert record.queue_seconds >= 1.0  # the window starts one second after submission
    assert 0.1 <= elapsed < 1.0  # slept for the device's 0.2 s, not for wall time


def test_default_sleep_factor_is_zero():
    backend = ReportedWindowBackend(device_seconds=5.0)
    tic = time.perf_counter()
    backend.run(measured_x(), shots=1)
    assert time.perf_counter() - tic < 2.5
    assert backend.timings[-1].sleep_seconds == 0.0


def test_transpile_leaves_the_callers_circuit_alone(aer):
    circuit = measured_x(3, qubit=1)
    [native] = aer.transpile(circuit)
    assert native.num_clbits == circuit.num_clbits
    assert circuit.count_ops() == {"measure": 3, "x": 1}


def test_a_long_running_backend_keeps_only_its_recent_timings(monkeypatch):
    monkeypatch.setattr("backends.base.MAX_TIMINGS", 2)
    backend = get_backend("null:2", seed=1)
    runs = [backend.execute(measured_x(), shots=i + 1) for i in range(9)]
    assert 2 <= len(backend.timings) <= 4  # never more than twice the bound
    assert backend.timings == [run.timing for run in runs[-len(backend.timings) :]]
