"""Request limits of the vQPU server check themselves."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from backends import InvalidParameterError
from backends.vqpu.server.limits import MAX_WAIT, Limits


def test_defaults():
    assert dataclasses.asdict(Limits()) == {
        "max_payload_bytes": 8 * 2**20,
        "max_shots": 100_000,
        "max_result_bytes": 64 * 2**20,
        "max_circuits": 1_000,
        "max_queue": 1_000,
        "max_batches_per_share": None,
        "max_qubits": None,
        "max_clbits": 1_024,
        "max_instructions": 10_000,
        "max_decode_bytes": 2**30,
        "max_decode_seconds": 10.0,
        "max_read_seconds": 10.0,
        "max_connections": 512,
        "max_head_bytes": 64 * 2**10,
    }
    assert MAX_WAIT == 30.0


def test_positive_integers_are_accepted():
    limits = Limits(max_payload_bytes=1, max_shots=np.int64(5), max_circuits=1, max_queue=1, max_qubits=3)
    assert (limits.max_shots, limits.max_qubits) == (5, 3)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_payload_bytes", 0),
        ("max_shots", -5),
        ("max_circuits", True),
        ("max_queue", 2.0),
        ("max_qubits", 0),
        ("max_shots", None),
        ("max_instructions", 2**63),
        ("max_connections", 1.5),
        ("max_head_bytes", 0),
        ("max_head_bytes", "65536"),
    ],
)
def test_anything_else_is_refused(field, value):
    with pytest.raises(InvalidParameterError) as info:
        Limits(**{field: value})
    assert str(info.value) == f"The '{field}' limit must be a positive integer. Got {value!r} instead."


@pytest.mark.parametrize("value", [0, -1.0, float("inf"), float("nan"), True, "10"])
@pytest.mark.parametrize("field", ["max_decode_seconds", "max_read_seconds"])
def test_seconds_must_be_positive_and_finite(field, value):
    with pytest.raises(InvalidParameterError) as info:
        Limits(**{field: value})
    assert (
        str(info.value) == f"The '{field}' limit must be a positive number of seconds. Got {value!r} instead."
    )


def test_seconds_may_be_fractions_or_integers():
    assert Limits(max_decode_seconds=0.5, max_read_seconds=np.int64(3)).max_decode_seconds == 0.5


def test_limits_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().max_shots = 1


@pytest.mark.timeout(60)
def test_the_backend_s_shot_limit_is_its_max_shots_attribute():
    from types import SimpleNamespace

    from backends import get_backend
    from backends.vqpu.server.limits import backend_max_shots

    assert backend_max_shots(get_backend("aer")) == backend_max_shots(get_backend("null")) == 1_000_000
    assert backend_max_shots(SimpleNamespace(max_shots=None)) is None  # BaseBackend's default: no limit
    assert backend_max_shots(SimpleNamespace()) is None
