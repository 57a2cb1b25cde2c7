"""The QuantumBackend contract, written once and run against every offline backend."""

import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister

from backends import CircuitTooWideError, QuantumBackend, get_backend

SPECS = ["aer", "aer:mps", "aer:noisy-adonis", "iqm-fake:adonis", "iqm-fake:deneb"]
# IQMFakeBackend.run takes no simulator seed, so only these give reproducible samples.
SEEDED_SPECS = ["aer", "aer:mps", "aer:noisy-adonis"]
SHOTS = 200


@pytest.fixture(scope="module", params=SPECS)
def backend(request):
    return get_backend(request.param, seed=11)


def top_key(counts):
    return max(counts, key=counts.get)


def test_satisfies_protocol(backend):
    assert isinstance(backend, QuantumBackend)
    assert backend.label == backend.name
    assert backend.num_qubits >= 5
    assert isinstance(backend.timings, list)


def test_counts_cover_all_clbits_in_caller_order(backend):
    # clbits in order: a[0], a[1], b[0], b[1]; b[1] is never written.
    q, a, b = QuantumRegister(3, "q"), ClassicalRegister(2, "a"), ClassicalRegister(2, "b")
    circuit = QuantumCircuit(q, a, b, name="registers")
    circuit.x(q[1])
    circuit.measure(q[0], a[1])
    circuit.measure(q[1], b[0])
    circuit.measure(q[2], a[0])
    before = len(backend.timings)

    [counts] = backend.run(circuit, shots=SHOTS)

    assert all(len(bits) == 4 and set(bits) <= {"0", "1"} for bits in counts)
    assert sum(counts.values()) == SHOTS
    assert top_key(counts) == "0100"  # only b[0] (clbit 2) is set
    [record] = backend.timings[before:]
    assert (record.label, record.circuits, record.shots) == (backend.name, 1, SHOTS)
    assert record.submitted <= record.started <= record.ended
    assert record.quantum_seconds == pytest.approx(record.ended - record.started)


def test_a_sequence_is_one_execution(backend):
    circuits = []
    for qubit in (0, 2):
        circuit = QuantumCircuit(3, 3, name=f"x{qubit}")
        circuit.x(qubit)
        circuit.measure(range(3), range(3))
        circuits.append(circuit)
    before = len(backend.timings)

    counts = backend.run(circuits, shots=SHOTS)

    assert [top_key(c) for c in counts] == ["001", "100"]
    [record] = backend.timings[before:]
    assert (record.circuits, record.shots) == (2, SHOTS)


def test_too_wide_circuit_is_refused_before_submission(backend, monkeypatch):
    def must_not_run(*args):
        raise AssertionError("circuit was submitted")

    monkeypatch.setattr(backend, "_execute", must_not_run)
    circuit = QuantumCircuit(backend.num_qubits + 1, name="wide")
    circuit.measure_all()
    before = len(backend.timings)

    with pytest.raises(CircuitTooWideError) as info:
        backend.run(circuit, shots=SHOTS)

    assert str(info.value) == (
        f"circuit 'wide' needs {backend.num_qubits + 1} qubits but backend '{backend.name}' has "
        f"{backend.num_qubits}; lower --max-qubits or use circuit cutting (cutting.cut_qaoa)"
    )
    assert len(backend.timings) == before


@pytest.mark.parametrize("spec", SEEDED_SPECS)
def test_seed_makes_runs_reproducible(spec):
    circuit = QuantumCircuit(3)
    circuit.h(range(3))
    circuit.measure_all()
    first, second = get_backend(spec, seed=5), get_backend(spec, seed=5)

    runs_first = [first.run(circuit, SHOTS) for _ in range(2)]
    runs_second = [second.run(circuit, SHOTS) for _ in range(2)]

    assert runs_first == runs_second
    assert runs_first[0] != runs_first[1]  # successive runs draw fresh seeds
    assert first.run(circuit, SHOTS, seed=3) == second.run(circuit, SHOTS, seed=3)
