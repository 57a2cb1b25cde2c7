"""What a submission passes before it is stored: its body's fields, the limits, the sandboxed decoding."""

from __future__ import annotations

import pydantic
import pytest
from vqpu_helpers import ghz

from backends.vqpu.server.admission import Admission, BatchIn
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.limits import MAX_PENDING_DECODES, Limits
from backends.vqpu.server.sandbox import DecodeWorker
from backends.vqpu.wire import encode_circuits


@pytest.fixture
def admission():
    decoder = DecodeWorker(memory_bytes=2**30, timeout=30.0)
    yield Admission(Limits(max_circuits=2, max_clbits=8), max_qubits=3, max_shots=100, decoder=decoder)
    decoder.close()


def body(circuits, shots=10):
    return BatchIn(key="k", circuits=encode_circuits(circuits), shots=shots)


def refusal(admission, batch):
    with pytest.raises(APIError) as info:
        admission.check(batch)
    return info.value.status, info.value.code, info.value.detail


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"shots": True}, "int_type"),
        ({"shots": 1.0}, "int_type"),
        ({"shots": 0}, "greater_than_equal"),
        ({"shots": 2**63}, "less_than_equal"),
        ({"seed": -1}, "greater_than_equal"),
        ({"key": ""}, "string_too_short"),
        ({"extra": 1}, "extra_forbidden"),
    ],
)
def test_the_body_fields_are_strict(fields, problem):
    with pytest.raises(pydantic.ValidationError) as info:
        BatchIn(**{"key": "k", "circuits": "UUlTS0lU", "shots": 10, **fields})
    assert info.value.errors()[0]["type"] == problem


def test_a_batch_within_the_limits_is_summarised(admission):
    summary = admission.check(body([ghz(2), ghz(3)]))
    assert (summary.circuits, summary.qubits, summary.clbits, summary.unmeasured) == (2, 3, 3, None)
    assert admission.decode_slots.acquire(blocking=False)  # the slot was given back
    admission.decode_slots.release()


@pytest.mark.parametrize(
    ("circuits", "shots", "expected"),
    [
        ([ghz(2)], 101, (422, "too_many_shots", "shots=101 exceeds the limit of 100")),
        ([ghz(2)] * 3, 10, (422, "too_many_circuits", "batch has 3 circuits, the limit is 2")),
        ([ghz(4)], 10, (422, "too_many_qubits", "a circuit needs 4 qubits, the limit is 3")),
    ],
)
def test_the_first_limit_exceeded_is_named(admission, circuits, shots, expected):
    assert refusal(admission, body(circuits, shots)) == expected


def test_undecodable_circuits_are_a_bad_request(admission):
    status, code, _ = refusal(admission, BatchIn(key="k", circuits="not base64!", shots=10))
    assert (status, code) == (400, "bad_circuits")


def test_a_circuit_without_measurements_is_refused(admission):
    unmeasured = ghz(2).remove_final_measurements(inplace=False)
    assert refusal(admission, body([ghz(2), unmeasured])) == (
        400,
        "no_measurements",
        "circuits[1] has no measurements; add measure() or measure_all() so that counts can be returned",
    )


def test_busy_decoder_slots_answer_503(admission):
    for _ in range(MAX_PENDING_DECODES):
        admission.decode_slots.acquire()
    try:
        assert refusal(admission, body([ghz(2)])) == (
            503,
            "busy",
            f"{MAX_PENDING_DECODES} submissions are being checked already; retry later",
        )
    finally:
        for _ in range(MAX_PENDING_DECODES):
            admission.decode_slots.release()
