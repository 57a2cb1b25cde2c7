"""Every backend as a Qiskit ``BackendV2``: target, jobs, counts, memory, registers and timing records."""

from collections import Counter

import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, transpile
from qiskit.circuit import Parameter
from qiskit.providers import BackendV2, JobStatus, JobV1
from qiskit.transpiler.exceptions import TranspilerError
from qiskit_aer import AerSimulator

from backends import (
    InvalidParameterError,
    QiskitBackend,
    UnknownBackendError,
    get_backend,
    get_qiskit_backend,
    record_timings,
)

SHOTS = 300


def registers_circuit() -> QuantumCircuit:
    """Three registers over 4 qubits, qubit 3 unmeasured; outcome is always 'c b a' = '1 10 0'.

    Clbits in order: a[0], b[0], b[1], c[0]; the rotations make it a real circuit to transpile.
    """
    q = QuantumRegister(4, "q")
    a, b, c = ClassicalRegister(1, "a"), ClassicalRegister(2, "b"), ClassicalRegister(1, "c")
    circuit = QuantumCircuit(q, a, b, c, name="registers")
    circuit.x(q[1])
    circuit.ry(3.141592653589793, q[2])
    circuit.cx(q[1], q[3])
    circuit.measure(q[0], a[0])
    circuit.measure(q[1], b[1])
    circuit.measure(q[0], b[0])
    circuit.measure(q[2], c[0])
    return circuit


@pytest.fixture(scope="module")
def qiskit_backend():
    return get_qiskit_backend("aer", num_qubits=5, seed=4)


def test_is_a_backend_v2_whose_target_has_the_devices_qubits(qiskit_backend):
    assert isinstance(qiskit_backend, BackendV2)
    assert isinstance(qiskit_backend.backend, type(get_backend("aer")))
    assert qiskit_backend.name == "aer"
    assert qiskit_backend.num_qubits == qiskit_backend.target.num_qubits == 5
    assert qiskit_backend.max_circuits is None
    assert {"cx", "rz", "measure", "reset"} <= set(qiskit_backend.operation_names)

    wide = QuantumCircuit(6)
    wide.h(range(6))
    wide.measure_all()
    with pytest.raises(TranspilerError, match="6"):
        transpile(wide, qiskit_backend)


@pytest.mark.timeout(120)  # the first transpile of a process loads every transpiler plugin
def test_transpile_keeps_width_and_run_gives_aers_counts_with_register_spaces(qiskit_backend):
    circuit = registers_circuit()
    native = transpile(circuit, qiskit_backend, seed_transpiler=1)
    assert native.num_qubits == 4  # no coupling map: no layout onto all 5 qubits

    job = qiskit_backend.run(native, shots=SHOTS)
    assert isinstance(job, JobV1)
    result = job.result()

    reference = AerSimulator().run(circuit, shots=SHOTS).result().get_counts()
    assert result.get_counts() == reference == {"1 10 0": SHOTS}
    assert result.get_counts("registers") == reference
    assert job.status() is JobStatus.DONE
    assert result.backend_name == "aer" and result.success


def test_memory_holds_every_shot_of_the_counts_in_seeded_order(qiskit_backend):
    bell = QuantumCircuit(2, 2, name="bell")
    bell.h(0)
    bell.cx(0, 1)
    bell.measure([0, 1], [0, 1])

    first = qiskit_backend.run(bell, shots=SHOTS, memory=True, seed_simulator=9).result()
    again = qiskit_backend.run(bell, shots=SHOTS, memory=True, seed_simulator=9).result()
    other = qiskit_backend.run(bell, shots=SHOTS, memory=True, seed_simulator=10).result()

    memory = first.get_memory()
    assert len(memory) == SHOTS
    assert Counter(memory) == first.get_counts()
    assert set(memory) == {"00", "11"}
    assert memory == again.get_memory()  # same seed: same samples, same order
    assert memory != other.get_memory()
    assert memory != sorted(memory)  # shots are not grouped by outcome
    with pytest.raises(Exception, match="No memory"):
        qiskit_backend.run(bell, shots=5).result().get_memory()


def test_several_circuits_are_one_execution_with_its_timing_record(qiskit_backend):
    circuits = []
    for qubit in range(3):
        circuit = QuantumCircuit(3, 3, name=f"x{qubit}")
        circuit.x(qubit)
        circuit.measure(range(3), range(3))
        circuits.append(circuit)
    before = len(qiskit_backend.backend.timings)

    with record_timings() as records:
        result = qiskit_backend.run(circuits, shots=50).result()

    assert result.get_counts() == [{"001": 50}, {"010": 50}, {"100": 50}]
    assert result.get_counts("x2") == {"100": 50}
    [record] = qiskit_backend.backend.timings[before:]
    assert records == result.timings == [record]
    assert (record.circuits, record.shots) == (3, 50)
    assert result.time_taken == record.quantum_seconds


def test_default_shots_and_options(qiskit_backend):
    circuit = QuantumCircuit(1, 1)
    circuit.measure(0, 0)
    assert qiskit_backend.run(circuit).result().get_counts() == {"0": 1024}
    qiskit_backend.set_options(shots=7)
    try:
        assert qiskit_backend.run(circuit).result().get_counts() == {"0": 7}
    finally:
        qiskit_backend.set_options(shots=1024)


def test_bad_input_is_refused_before_anything_runs(qiskit_backend):
    theta = Parameter("theta")
    unbound = QuantumCircuit(1, 1, name="unbound")
    unbound.rx(theta, 0)
    unbound.measure(0, 0)
    unmeasured = QuantumCircuit(1, 1, name="quiet")
    before = len(qiskit_backend.backend.timings)

    with pytest.raises(InvalidParameterError) as info:
        qiskit_backend.run(unbound, shots=5)
    assert str(info.value) == "circuits[0] ('unbound') must have all parameters bound, got unbound ['theta']"
    with pytest.raises(InvalidParameterError, match=r"circuits\[0\] \('quiet'\) has no measurements"):
        qiskit_backend.run(unmeasured, shots=5)
    with pytest.raises(InvalidParameterError) as info:
        qiskit_backend.run(unbound.assign_parameters([0.1]), shots=5, noise=True)
    assert str(info.value) == (
        "run options must be among ['memory', 'seed_simulator', 'shots'], got ['noise'] (backend 'aer')"
    )
    with pytest.raises(InvalidParameterError, match="shots must be a positive integer, got 0"):
        qiskit_backend.run(unbound.assign_parameters([0.1]), shots=0)
    assert len(qiskit_backend.backend.timings) == before


def test_a_failing_execution_is_a_job_in_error(qiskit_backend, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("device on fire")

    circuit = QuantumCircuit(1, 1)
    circuit.measure(0, 0)
    monkeypatch.setattr(qiskit_backend.backend, "run", broken)
    job = qiskit_backend.run(circuit, shots=5)
    with pytest.raises(RuntimeError, match="device on fire"):
        job.result()
    assert job.status() is JobStatus.ERROR
    with pytest.raises(InvalidParameterError, match="was submitted already"):
        job.submit()


def test_wraps_any_quantum_backend_and_refuses_anything_else():
    class Zeros:
        """A QuantumBackend by protocol only: every shot reads all zeros."""

        name = "zeros"
        num_qubits = 3
        max_circuits = 2
        timings: list = []

        def run(self, circuits, shots, seed=None):
            return [{"0" * circuit.num_clbits: shots} for circuit in circuits]

    wrapped = get_qiskit_backend(Zeros())
    assert (wrapped.name, wrapped.num_qubits, wrapped.max_circuits) == ("zeros", 3, 2)
    circuit = QuantumCircuit(QuantumRegister(2), ClassicalRegister(2, "x"), ClassicalRegister(1, "y"))
    circuit.h(0)
    circuit.measure([0, 1, 1], [0, 1, 2])
    result = wrapped.run(circuit, shots=4, memory=True).result()
    assert result.get_counts() == {"0 00": 4}
    assert result.get_memory() == ["0 00"] * 4
    assert result.timings == []  # this backend publishes no records

    with pytest.raises(InvalidParameterError, match="backend must be a QuantumBackend, got str"):
        QiskitBackend("aer")
    with pytest.raises(UnknownBackendError, match="unknown backend spec 'qpu'"):
        get_qiskit_backend("qpu")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_iqm_fake_device_runs_circuits_transpiled_for_its_target():
    qiskit_backend = get_qiskit_backend("iqm-fake:adonis", seed=2)
    assert qiskit_backend.num_qubits == qiskit_backend.target.num_qubits == 5
    circuit = registers_circuit()
    counts = qiskit_backend.run(transpile(circuit, qiskit_backend), shots=SHOTS).result().get_counts()
    assert sum(counts.values()) == SHOTS
    assert max(counts, key=counts.get) == "1 10 0"  # noisy, but the ideal outcome dominates
    assert counts["1 10 0"] > 0.7 * SHOTS
