"""The ``null`` backend: random counts of the right width, zero quantum time, no simulation."""

import numpy as np
import pytest
from qiskit import QuantumCircuit

from backends import CircuitTooWideError, UnknownBackendError, get_backend
from backends.null import NullBackend, random_counts


def _measured(qubits: int, clbits: int) -> QuantumCircuit:
    circuit = QuantumCircuit(qubits, clbits)
    circuit.h(range(qubits))
    circuit.measure(range(min(qubits, clbits)), range(min(qubits, clbits)))
    return circuit


def test_counts_cover_every_clbit_and_sum_to_the_shots():
    backend = get_backend("null", seed=5)
    counts = backend.run([_measured(3, 3), _measured(2, 5), _measured(1, 1)], shots=200)
    assert [sum(c.values()) for c in counts] == [200, 200, 200]
    assert [{len(bits) for bits in c} for c in counts] == [{3}, {5}, {1}]
    assert all(set(bits) <= {"0", "1"} for c in counts for bits in c)


def test_counts_are_uniform():
    counts = random_counts(3, 80_000, np.random.default_rng(1))
    assert sorted(counts) == [format(i, "03b") for i in range(8)]
    # each outcome has probability 1/8: 10,000 expected, standard deviation about 94
    assert all(abs(c - 10_000) < 600 for c in counts.values()), counts


def test_wide_registers_use_the_bit_path():
    counts = random_counts(70, 50, np.random.default_rng(2))
    assert {len(bits) for bits in counts} == {70} and sum(counts.values()) == 50


def test_quantum_time_is_zero_and_runs_are_seeded():
    a, b = get_backend("null", seed=9), get_backend("null", seed=9)
    circuit = _measured(4, 4)
    assert a.run(circuit, 64) == b.run(circuit, 64)
    assert a.run(circuit, 64, seed=3) == b.run(circuit, 64, seed=3) != a.run(circuit, 64, seed=4)
    assert [r.quantum_seconds for r in a.timings] == [0.0, 0.0, 0.0]


def test_width_comes_from_the_spec_and_is_checked():
    assert get_backend("null").num_qubits == 64
    backend = get_backend("null:5")
    assert isinstance(backend, NullBackend) and backend.num_qubits == 5 and backend.name == "null:5"
    assert get_backend("null:5", num_qubits=3).num_qubits == 3
    with pytest.raises(CircuitTooWideError):
        backend.run(_measured(6, 6), 10)


@pytest.mark.parametrize("spec", ["null:0", "null:x", "null:-3"])
def test_bad_specs_name_the_spec(spec):
    with pytest.raises(UnknownBackendError, match=f"bad null spec '{spec}'"):
        get_backend(spec)


def test_no_clbits_give_the_empty_bitstring():
    assert random_counts(0, 7, np.random.default_rng(3)) == {"": 7}
