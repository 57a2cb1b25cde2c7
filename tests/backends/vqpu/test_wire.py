"""Circuits as base64 QPY: round trip, the QPY header, and one ValueError for anything else."""

from __future__ import annotations

import base64
import io

import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister, qpy
from qpy_hostile import patch_first_header, qpy_bytes
from vqpu_helpers import ghz

from backends.vqpu.wire import (
    QPYHeader,
    b64decode_payload,
    decode_circuits,
    encode_circuits,
    load_circuits,
    read_qpy_header,
)


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


@pytest.mark.parametrize("version", range(qpy.QPY_COMPATIBILITY_VERSION, qpy.QPY_VERSION + 1))
def test_the_header_is_read_in_every_version_qiskit_writes(version):
    wide, small = QuantumCircuit(4, 3), ghz(2)
    wide.h(range(4))
    buffer = io.BytesIO()
    qpy.dump([wide, small], buffer, version=version)
    assert read_qpy_header(buffer.getvalue()) == QPYHeader(version, 2, 4, 3, 4)


def test_the_header_reports_what_it_declares_not_what_follows():
    data = patch_first_header(qpy_bytes([ghz(1)]), qubits=2**32 - 1, circuits=2**64 - 1, instructions=7)
    header = read_qpy_header(data)
    assert (header.circuits, header.qubits, header.clbits, header.instructions) == (
        2**64 - 1,
        2**32 - 1,
        1,
        7,
    )


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "the payload does not start with b'QISKIT'"),
        (b"QISKI", "the payload does not start with b'QISKIT'"),
        (b"qiskit\x0f" + bytes(60), "the payload does not start with b'QISKIT'"),
        (b"QISKIT", "the payload does not start with b'QISKIT'"),
        (b"QISKIT\x00" + bytes(60), f"format version 0 is not in 1..{qpy.QPY_VERSION}"),
        (b"QISKIT\xff" + bytes(60), f"format version 255 is not in 1..{qpy.QPY_VERSION}"),
        (qpy_bytes([ghz(1)])[:40], "40 bytes are too few for its headers"),
        (qpy_bytes([ghz(1)])[:19] + b"s" + bytes(40), "the payload holds no circuits"),
        (patch_first_header(qpy_bytes([ghz(1)]), circuits=0), "the payload holds no circuits"),
    ],
    ids=["empty", "short-magic", "lower-case", "magic-only", "v0", "v255", "cut", "schedule", "no-programs"],
)
def test_a_bad_header_is_a_value_error(data, reason):
    with pytest.raises(ValueError) as info:
        read_qpy_header(data)
    assert str(info.value) == f"circuits are not base64-encoded QPY: {reason}"


def test_b64decode_payload_is_strict():
    assert b64decode_payload("aGVsbG8=") == b"hello"
    for bad in ("aGVsbG8", "aGVs bG8=", "ä"):
        with pytest.raises(ValueError, match="^circuits are not base64-encoded QPY: "):
            b64decode_payload(bad)


def test_load_circuits_takes_raw_qpy():
    assert load_circuits(qpy_bytes([ghz(2)])) == [ghz(2)]
    with pytest.raises(ValueError, match="^circuits are not base64-encoded QPY: "):
        load_circuits(b"QISKIT")
