"""Slurm-bound access: MUNGE credentials of running jobs holding a vQPU, and nothing else."""

import os

import pytest
from vqpu_helpers import expiry_probes, squeue_printing, wait_until_expired

from backends.vqpu import munge
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.slurm_auth import SlurmAuth
from backends.vqpu.server.slurm_jobs import JobTable
from backends.vqpu.server.tokens import Caller

UID = os.getuid()


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def auth(tmp_path, munged, clock):
    lines = [
        f"41|41|{UID}|me|physics|vqpu:2|N/A",  # mine, two vQPUs
        f"42|42|{UID + 1}|other|chem|vqpu:1|N/A",  # someone else's
        f"43|43|{UID}|me|physics|(null)|N/A",  # mine, no vQPU
    ]
    jobs = JobTable(squeue=squeue_printing(tmp_path, lines), clock=clock)
    jobs.refresh()
    return SlurmAuth(jobs, "qsrv:8765", socket=munged)


def credential(munged, job, server="qsrv:8765", **options):
    return munge.encode(munge.job_payload(job, server), socket=munged, **options)


def refused(auth, cred):
    with pytest.raises(APIError) as error:
        auth.caller_of(cred)
    return error.value.status, error.value.code, error.value.detail


def test_a_running_job_of_the_caller_holding_a_vqpu_is_admitted_with_its_shares(auth, munged):
    assert auth.caller_of(credential(munged, "41")) == Caller("41", "me", "physics", 2)


def test_a_replayed_credential_is_refused(auth, munged):
    cred = credential(munged, "41")
    auth.caller_of(cred)
    assert refused(auth, cred) == (401, "unauthorized", "replayed MUNGE credential")


def test_a_forged_credential_is_refused(auth, munged):
    cred = credential(munged, "41")
    forged = cred[:30] + ("B" if cred[30] == "A" else "A") + cred[31:]
    assert refused(auth, forged)[:2] == (401, "unauthorized")


def test_an_expired_credential_is_refused(auth, munged):
    cred = credential(munged, "41", ttl=1)
    wait_until_expired(expiry_probes(munged, ttl=1), munged)  # made later, expired: so is this one
    assert refused(auth, cred) == (401, "unauthorized", "expired MUNGE credential")


def test_a_credential_for_another_server_is_refused(auth, munged):
    status, _, detail = refused(auth, credential(munged, "41", server="elsewhere:1"))
    assert status == 401 and "made for server 'elsewhere:1'" in detail


def test_a_payload_that_names_no_job_is_refused(auth, munged):
    status, _, detail = refused(auth, munge.encode(b"hello", socket=munged))
    assert status == 401 and "does not name a Slurm job" in detail


def test_a_foreign_job_is_refused(auth, munged):
    status, code, detail = refused(auth, credential(munged, "42"))
    assert (status, code) == (403, "forbidden") and f"does not belong to uid {UID}" in detail


def test_a_job_without_the_resource_is_refused(auth, munged):
    status, _, detail = refused(auth, credential(munged, "43"))
    assert status == 403 and "holds no vqpu licence or GRES" in detail


def test_a_job_that_ended_is_refused_after_the_next_poll(auth, munged, tmp_path, clock):
    assert auth.caller_of(credential(munged, "41")).job == "41"
    auth.jobs.command = squeue_printing(tmp_path, [])
    clock.now += 1
    auth.jobs.refresh()
    assert refused(auth, credential(munged, "41"))[0] == 403


def test_slurm_out_of_reach_fails_closed(auth, munged, tmp_path, clock):
    auth.jobs.command = [str(tmp_path / "no-squeue")]
    clock.now += auth.jobs.max_age + 1
    auth.jobs.refresh()
    status, code, _ = refused(auth, credential(munged, "41"))
    assert (status, code) == (503, "slurm_unavailable")


def test_munge_out_of_reach_fails_closed(auth, munged, tmp_path):
    cred = credential(munged, "41")
    auth.socket = str(tmp_path / "no-munged")
    status, code, _ = refused(auth, cred)
    assert (status, code) == (503, "auth_unavailable")
