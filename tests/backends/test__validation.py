"""Circuit checks of backends._validation: the batch as a list, and the width against a device."""

import pytest
from qiskit import QuantumCircuit

from backends import CircuitTooWideError, InvalidParameterError
from backends._validation import check_circuits, check_width


def measured(num_qubits=1, name="c"):
    circuit = QuantumCircuit(num_qubits, num_qubits, name=name)
    circuit.measure(range(num_qubits), range(num_qubits))
    return circuit


def test_one_circuit_or_any_iterable_becomes_a_list_of_the_same_objects():
    a, b = measured(name="a"), measured(name="b")
    assert check_circuits(a) == [a] and check_circuits(a)[0] is a
    for batch in ((a, b), [a, b], iter([a, b])):
        checked = check_circuits(batch)
        assert isinstance(checked, list) and [c is d for c, d in zip(checked, [a, b], strict=True)] == [
            True,
            True,
        ]


def test_measure_all_counts_as_measured():
    circuit = QuantumCircuit(2)
    circuit.measure_all()
    assert check_circuits(circuit) == [circuit]


@pytest.mark.parametrize(
    ("circuits", "message"),
    [
        ([], "circuits must hold at least one QuantumCircuit, got an empty sequence"),
        ("ghz", "circuits must be a QuantumCircuit or a sequence of them, got str"),
        (None, "circuits must be a QuantumCircuit or a sequence of them, got NoneType"),
        ([measured(), None], "circuits[1] must be a QuantumCircuit, got NoneType"),
        (
            [measured(), measured(), QuantumCircuit(1, name="bare")],
            "circuits[2] ('bare') has no measurements; add measure() or measure_all() "
            "so that counts can be returned",
        ),
    ],
)
def test_bad_batches_are_named(circuits, message):
    with pytest.raises(InvalidParameterError) as info:
        check_circuits(circuits)
    assert str(info.value) == message


def test_width_names_the_first_circuit_too_wide():
    fits, wide, wider = measured(2, "fits"), measured(3, "wide"), measured(4, "wider")
    check_width([fits], 2, "dev")
    with pytest.raises(CircuitTooWideError) as info:
        check_width([fits, wide, wider], 2, "dev")
    assert str(info.value) == (
        "circuit 'wide' needs 3 qubits but backend 'dev' has 2; lower --max-qubits or use circuit cutting "
        "(cutting.cut_qaoa)"
    )
