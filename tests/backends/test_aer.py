"""The Aer backends: spec arguments, the device to transpile to, and the prepare hook."""

import pytest
from qiskit import QuantumCircuit
from qiskit.providers.fake_provider import GenericBackendV2
from qiskit_aer import AerSimulator

from backends import UnknownBackendError
from backends.aer import METHODS, AerBackend, from_spec


def bell():
    circuit = QuantumCircuit(2, 2, name="bell")
    circuit.h(0)
    circuit.cx(0, 1)
    circuit.measure([0, 1], [0, 1])
    return circuit


@pytest.mark.parametrize(("argument", "method"), sorted(METHODS.items()))
def test_from_spec_picks_the_simulation_method(argument, method):
    backend = from_spec(argument, name="my-aer", seed=2)
    assert isinstance(backend, AerBackend)
    assert (backend.name, backend.simulator.options.method, backend.seed) == ("my-aer", method, 2)
    [counts] = backend.run(bell(), shots=100)
    assert set(counts) <= {"00", "11"} and sum(counts.values()) == 100


def test_from_spec_refuses_unknown_arguments():
    with pytest.raises(UnknownBackendError) as info:
        from_spec("gpu", name="aer:gpu")
    assert str(info.value) == (
        "unknown Aer simulator 'gpu' in spec 'aer:gpu'; valid forms: aer, aer:mps, aer:noisy-<device>"
    )


def test_without_a_device_the_simulator_is_the_device():
    backend = AerBackend(AerSimulator(), name="plain")
    assert backend.device is backend.simulator
    assert backend.num_qubits == backend.simulator.num_qubits
    assert backend.transpile(bell())[0].count_ops() == bell().count_ops()  # nothing to transpile


def test_a_device_sets_width_and_native_gates():
    device = GenericBackendV2(num_qubits=3, basis_gates=["rz", "sx", "x", "cz"], seed=1)
    backend = AerBackend(AerSimulator(), device=device, name="generic", seed=1)

    [native] = backend.transpile(bell())
    [counts] = backend.run(bell(), shots=200)

    assert backend.num_qubits == 3
    assert set(native.count_ops()) <= {"rz", "sx", "x", "cz", "measure", "barrier"}
    assert set(counts) <= {"00", "11"} and sum(counts.values()) == 200


def test_prepare_rewrites_every_circuit_before_simulation():
    seen = []

    def flip_first(circuit):
        seen.append(circuit.name)
        flipped = circuit.copy_empty_like()
        flipped.x(0)
        flipped.measure(range(circuit.num_qubits), range(circuit.num_clbits))
        return flipped

    backend = AerBackend(AerSimulator(), prepare=flip_first, name="prepared", seed=1)
    counts = backend.run([bell(), bell()], shots=50)

    assert seen == ["bell", "bell"]
    assert counts == [{"01": 50}, {"01": 50}]
