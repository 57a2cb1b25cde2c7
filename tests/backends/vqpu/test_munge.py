"""MUNGE credentials through libmunge, against a private munged with its own key."""

import os

import pytest
from vqpu_helpers import expiry_probes, private_munged, wait_until_expired

from backends.vqpu import munge


def test_a_credential_decodes_to_its_uid_and_payload(munged):
    credential = munge.encode(b"job=12 server=https://q:1", socket=munged)
    decoded = munge.decode(credential, socket=munged)
    assert decoded == munge.Credential(os.getuid(), os.getgid(), b"job=12 server=https://q:1")


def test_a_credential_decodes_only_once(munged):
    credential = munge.encode(b"job=1", socket=munged)
    munge.decode(credential, socket=munged)
    with pytest.raises(munge.MungeError, match="Replayed") as error:
        munge.decode(credential, socket=munged)
    assert error.value.fault == "replayed"


def test_a_tampered_credential_is_invalid(munged):
    credential = munge.encode(b"job=1", socket=munged)
    body = credential[6:-1]
    forged = "MUNGE:" + body[:20] + ("A" if body[20] != "A" else "B") + body[21:] + ":"
    with pytest.raises(munge.MungeError) as error:
        munge.decode(forged, socket=munged)
    assert error.value.fault == "invalid"


def test_a_credential_past_its_ttl_is_expired(munged):
    credential = munge.encode(b"job=1", socket=munged, ttl=1)
    wait_until_expired(expiry_probes(munged, ttl=1), munged)  # made later, expired: so is this one
    with pytest.raises(munge.MungeError, match="Expired") as error:
        munge.decode(credential, socket=munged)
    assert error.value.fault == "expired"


def test_a_credential_of_another_key_is_refused(munged, tmp_path):
    with private_munged(tmp_path / "other") as other:
        credential = munge.encode(b"job=1", socket=other)
    with pytest.raises(munge.MungeError) as error:
        munge.decode(credential, socket=munged)
    assert error.value.fault == "invalid"


def test_an_unreachable_munged_is_the_service_s_fault_not_the_caller_s(tmp_path):
    with pytest.raises(munge.MungeError, match="Did you start munged") as error:
        munge.encode(b"job=1", socket=str(tmp_path / "nothing"))
    assert error.value.fault is None


def test_a_non_ascii_credential_is_invalid(munged):
    with pytest.raises(munge.MungeError, match="not ASCII") as error:
        munge.decode("MUNGE:é:", socket=munged)
    assert error.value.fault == "invalid"
