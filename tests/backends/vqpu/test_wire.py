"""Circuits as base64 QPY: round trip, and one ValueError for anything else."""

from __future__ import annotations

import base64

import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
from vqpu_helpers import ghz

from backends.vqpu.wire import decode_circuits, encode_circuits


def test_round_trip_keeps_circuits_registers_and_names():
    q, a, b = QuantumRegister(2, "q"), ClassicalRegister(1, "a"), ClassicalRegister(2, "b")
    registers = QuantumCircuit(q, a, b, name="registers")
    registers.measure(0, a[0])
    registers.measure(1, b[1])
    circuits = [ghz(3), registers]

    payload = encode_circuits(circuits)
    decoded = decode_circuits(payload)

    assert isinstance(payload, str) and base64.b64decode(payload, validate=True)
    assert decoded == circuits
    assert [c.name for c in decoded] == ["ghz", "registers"]
    assert [reg.name for reg in decoded[1].cregs] == ["a", "b"]
    assert decode_circuits(payload.encode("ascii")) == circuits  # as stored: bytes


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("not base64!", "Only base64 data is allowed"),
        (base64.b64encode(b"hello").decode(), ""),
        ("", ""),
    ],
)
def test_anything_else_is_a_value_error(payload, reason):
    with pytest.raises(ValueError) as info:
        decode_circuits(payload)
    assert str(info.value).startswith("circuits are not base64-encoded QPY: ")
    assert reason in str(info.value)


def test_an_empty_batch_decodes_to_an_error():
    with pytest.raises(
        ValueError, match="^circuits are not base64-encoded QPY: the payload holds no circuits$"
    ):
        decode_circuits(encode_circuits([]))
