"""Slurm-bound vQPU access on the emulated cluster: only running jobs holding a vQPU are served.

A server with ``--slurm-auth`` (the cluster's MUNGE socket, ``squeue`` of its controller)
serves a job's ``probe`` when the job holds ``--licenses=vqpu:1`` and refuses one that does
not; credentials naming a finished, cancelled or foreign job, replayed or forged ones, are
refused, and a job's end revokes its access within a bounded time.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from vqpu_server import slurm_bound_server

from backends.vqpu import munge
from backends.vqpu.server.accounting import Ledger
from backends.vqpu.server.slurm_accounting import parse_admin_comment
from backends.vqpu.server.store import Store
from clustagg import slurm as slurmlib

pytestmark = pytest.mark.slow

INSTANCE = "qsrv-test"
#: The server's --slurm-poll; a job's end must revoke its access within a few polls.
POLL = 0.5
REVOCATION_BOUND = 3.0
JOB = """#!/bin/bash
out="probe-$SLURM_JOB_ID"
python -m backends.vqpu probe --url "$VQPU_URL" --shots 16 > "$out.json" 2> "$out.err"
echo $? > "$out.rc"
sleep "${HOLD:-0}"
"""


@pytest.fixture
def server(slurm, tmp_path):
    """A Slurm-bound vQPU server on the cluster: (url, environment of jobs and of MUNGE, process)."""
    with slurm_bound_server(slurm, tmp_path, INSTANCE, "--slurm-poll", str(POLL)) as (url, env, _, process):
        yield url, env, process


def submit(slurm, tmp_path, env, *arguments, hold=0):
    script = tmp_path / "job.sh"
    script.write_text(JOB)
    return slurm.submit(script, "-p", "qpushared", *arguments, cwd=tmp_path, env={**env, "HOLD": str(hold)})


def sacct_figures(env, job):
    """The vQPU figures ``sacct`` shows in the job's admin comment (``{}`` if none)."""
    shown = subprocess.run(
        ["sacct", "-j", str(job), "-X", "-n", "-P", "-o", "AdminComment"],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    return parse_admin_comment(shown.stdout.strip())


def status_with(url, credential):
    return httpx.get(f"{url}/health", headers={"Authorization": f"MUNGE {credential}"}, timeout=10)


def credential_for(env, job):
    return munge.encode(munge.job_payload(str(job), INSTANCE), socket=env["MUNGE_SOCKET"])


def credential_as_another_user(env, job):
    """A credential naming ``job`` for this server, encoded as the user nobody (uid 65534).

    MUNGE takes the encoder's identity from the socket's peer credentials (the effective
    UID at connect), so the test process encodes with its effective UID and GID switched to
    nobody's. The cluster's state folder and pytest's are root's only (mode 700): they are
    opened for traversal meanwhile, as a real cluster's /run/munge is.
    """
    socket_folder = Path(env["MUNGE_SOCKET"]).parent
    folders = [socket_folder, *socket_folder.parents]
    modes = {folder: folder.stat().st_mode for folder in folders if not folder.stat().st_mode & 0o001}
    payload = munge.job_payload(str(job), INSTANCE)
    try:
        for folder in modes:
            folder.chmod(0o755)
        os.setegid(65534)
        os.seteuid(65534)
        try:
            return munge.encode(payload, socket=env["MUNGE_SOCKET"])
        finally:
            os.seteuid(0)
            os.setegid(0)
    finally:
        for folder, mode in modes.items():
            folder.chmod(mode)


def seconds_until_refused(url, env, job, timeout=30.0):
    """Seconds until a fresh credential naming ``job`` gets 403 (polling every 50 ms)."""
    tic = time.monotonic()
    while time.monotonic() - tic < timeout:
        if status_with(url, credential_for(env, job)).status_code == 403:
            return time.monotonic() - tic
        time.sleep(0.05)
    raise AssertionError(f"job {job} was still served {timeout} s later")


def test_a_job_holding_a_vqpu_is_served_and_one_without_is_refused_and_sacct_bills_it(
    slurm, server, tmp_path
):
    url, env, process = server
    holding = submit(slurm, tmp_path, env, "--licenses=vqpu:1")
    without = submit(slurm, tmp_path, env)
    for job in (holding, without):
        assert slurm.wait(job, 120) == "COMPLETED", (tmp_path / f"slurm-{job}.out").read_text()
    assert (tmp_path / f"probe-{holding}.rc").read_text().strip() == "0", (
        tmp_path / f"probe-{holding}.err"
    ).read_text()
    counts = json.loads((tmp_path / f"probe-{holding}.json").read_text())["counts"]
    assert sum(counts[0].values()) == 16
    assert (tmp_path / f"probe-{without}.rc").read_text().strip() != "0"
    refusal = (tmp_path / f"probe-{without}.err").read_text()
    assert "403" in refusal and f"job {without} is not running or holds no vqpu licence or GRES" in refusal

    # the job's usage reaches its own Slurm record, equal to the server's ledger
    deadline = time.monotonic() + 60
    while (billed := sacct_figures(env, holding)).get("vqpu_shots") != 16:
        assert time.monotonic() < deadline, f"sacct shows {billed} for job {holding}"
        time.sleep(0.5)
    process.kill()
    process.wait(timeout=10)
    with contextlib.closing(Store(tmp_path / "vqpu.sqlite")) as store:
        ledger = Ledger.of_store(store).jobs[str(holding)]
    assert billed == {
        "vqpu_seconds": pytest.approx(ledger.quantum_seconds, abs=1e-6),
        "vqpu_circuits": ledger.circuits,
        "vqpu_shots": ledger.shots,
        "vqpu_batches": ledger.batches,
    }
    assert sacct_figures(env, without) == {}  # a refused job is billed nothing


def test_finished_cancelled_foreign_replayed_and_forged_credentials_are_refused(slurm, server, tmp_path):
    url, env, _ = server
    assert httpx.get(f"{url}/health", timeout=10).headers["www-authenticate"] == f'MUNGE server="{INSTANCE}"'

    running = submit(slurm, tmp_path, env, "--licenses=vqpu:1", hold=300)
    slurmlib.wait_for_state(running, {"RUNNING"}, 60)
    deadline = time.monotonic() + 10  # admitted from the first poll that sees it running
    while status_with(url, credential_for(env, running)).status_code != 200:
        assert time.monotonic() < deadline, "a running job holding a vQPU was not admitted"
        time.sleep(0.05)
    credential = credential_for(env, running)
    assert status_with(url, credential).status_code == 200
    replayed = status_with(url, credential)
    assert replayed.status_code == 401 and "replayed" in replayed.json()["detail"]
    fresh = credential_for(env, running)
    forged = fresh[:40] + ("A" if fresh[40] != "A" else "B") + fresh[41:]
    assert status_with(url, forged).status_code == 401
    other_server = munge.encode(munge.job_payload(str(running), "elsewhere"), socket=env["MUNGE_SOCKET"])
    assert status_with(url, other_server).status_code == 401

    # another user's credential naming this job: made as nobody through the cluster's munged
    stolen = credential_as_another_user(env, running)
    answer = status_with(url, stolen)
    assert answer.status_code == 403 and "does not belong to uid 65534" in answer.json()["detail"]

    slurmlib.cancel(running)
    assert seconds_until_refused(url, env, running) < REVOCATION_BOUND

    finished = submit(slurm, tmp_path, env, "--licenses=vqpu:1")
    assert slurm.wait(finished, 120) == "COMPLETED"
    assert seconds_until_refused(url, env, finished) < REVOCATION_BOUND
