"""vQPU maintenance on the emulated cluster: Slurm starts no vQPU job, accepted batches wait it out.

A Slurm-bound server (``--slurm-auth``) is put in maintenance by the admin's command while a
job has batches queued: Slurm's reservation ``vqpu-maintenance`` holds every ``vqpu``
licence, so a job submitted meanwhile with ``--licenses=vqpu:1`` stays PENDING (reason
``Licenses``); the running job keeps running, its client is answered 503 with
``Retry-After`` and waits. After ``maintenance off`` the reservation is gone, the pending job
starts and is served, and the first job gets every result it had submitted.
"""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest
from vqpu_server import eventually, slurm_bound_server

from backends.vqpu import munge
from backends.vqpu.server.store import read_batches

pytestmark = pytest.mark.slow

INSTANCE = "qsrv-maintenance"
DEADLINE = 120.0
#: A job that submits three batches (each 2 s of emulated device time), says so, then waits for them.
SUBMITTER = """#!/bin/bash
python - <<'EOF'
import json, os
from qiskit import QuantumCircuit
from backends.vqpu.api import VQPUSession
from backends.vqpu.wire import encode_circuits
circuit = QuantumCircuit(1, 1); circuit.measure(0, 0)
job = os.environ["SLURM_JOB_ID"]
with VQPUSession(os.environ["VQPU_URL"], deadline=300) as session:
    ids = [session.submit(encode_circuits([circuit]), 8, key=f"k{i}")["id"] for i in range(3)]
    open(f"submitted-{job}", "w").write(json.dumps(ids))
    results = [session.result(i) for i in ids]
open(f"results-{job}.json", "w").write(json.dumps(results))
EOF
"""
PROBE = """#!/bin/bash
out="probe-$SLURM_JOB_ID"
python -m backends.vqpu probe --url "$VQPU_URL" --shots 16 > "$out.json" 2> "$out.err"
echo $? > "$out.rc"
"""


def run(env, *command):
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def reservation_exists(env) -> bool:
    return run(env, "scontrol", "show", "reservation", "vqpu-maintenance").returncode == 0


def job_state(env, job) -> tuple[str, str]:
    """``(state, reason)`` from ``squeue`` ("" when the job left it)."""
    shown = run(env, "squeue", "-h", "-j", str(job), "-o", "%T|%r").stdout.strip()
    state, _, reason = shown.partition("|")
    return state, reason


def maintenance(env, db, action):
    done = run(env, sys.executable, "-m", "backends.vqpu", "maintenance", action, "--db", str(db))
    assert done.returncode == 0, done.stderr
    return done.stdout


def health(url, env, job):
    credential = munge.encode(munge.job_payload(str(job), INSTANCE), socket=env["MUNGE_SOCKET"])
    answer = httpx.get(f"{url}/health", headers={"Authorization": f"MUNGE {credential}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture
def server(slurm, tmp_path):
    """A Slurm-bound server, 2 s of device time per circuit: (url, env of jobs, database)."""
    options = ("--slurm-poll", "0.5", "--latency", "2", "--probe-interval", "1")
    with slurm_bound_server(slurm, tmp_path, INSTANCE, *options) as (url, env, db, _):
        try:
            yield url, env, db
        finally:
            run(env, sys.executable, "-m", "backends.vqpu", "maintenance", "off", "--db", str(db))
            run(env, "scontrol", "delete", "ReservationName=vqpu-maintenance")  # never left to other tests


def test_maintenance_holds_new_vqpu_jobs_and_queued_batches_until_it_ends(slurm, server, tmp_path):
    url, env, db = server
    (tmp_path / "submitter.sh").write_text(SUBMITTER)
    (tmp_path / "probe.sh").write_text(PROBE)
    first = slurm.submit(
        tmp_path / "submitter.sh", "-p", "qpushared", "--licenses=vqpu:1", cwd=tmp_path, env=env
    )
    ids = json.loads(
        eventually(lambda: _read(tmp_path / f"submitted-{first}"), "the batches submitted", DEADLINE)
    )

    assert "maintenance on since" in maintenance(env, db, "on")
    state = eventually(lambda: (h := health(url, env, first))["maintenance"] and h, "maintenance noticed", 30)
    assert state["maintenance_reason"] == "admin: by the administrator"
    eventually(lambda: reservation_exists(env), "Slurm's reservation made", 30)
    # the batch running when maintenance began finishes; the next ones wait in the queue
    eventually(
        lambda: not any(b.status == "running" for b in read_batches(db)), "the running batch ended", 30
    )
    waiting = [b.id for b in read_batches(db) if b.status == "queued"]
    assert waiting and set(waiting) <= set(ids), [(b.id, b.status) for b in read_batches(db)]

    second = slurm.submit(
        tmp_path / "probe.sh", "-p", "qpushared", "--licenses=vqpu:1", cwd=tmp_path, env=env
    )
    # the scheduler has looked at the job and refused it: PENDING for want of licences
    assert eventually(lambda: job_state(env, second)[1] == "Licenses", "pending for licences", 30)
    assert job_state(env, first)[0] == "RUNNING"  # the running job keeps its licence
    assert [b.status for b in read_batches(db) if b.id in waiting] == ["queued"] * len(waiting)
    assert job_state(env, second) == ("PENDING", "Licenses")  # several scheduler passes later

    assert "maintenance off" in maintenance(env, db, "off")
    eventually(lambda: not reservation_exists(env), "Slurm's reservation deleted", 30)
    for job in (first, second):
        assert slurm.wait(job, DEADLINE) == "COMPLETED", (tmp_path / f"slurm-{job}.out").read_text()
    results = json.loads((tmp_path / f"results-{first}.json").read_text())
    assert [r["id"] for r in results] == ids
    assert [(r["status"], sum(r["counts"][0].values())) for r in results] == [("done", 8)] * 3
    assert (tmp_path / f"probe-{second}.rc").read_text().strip() == "0", (
        tmp_path / f"probe-{second}.err"
    ).read_text()
    started = {b.id: b.started for b in read_batches(db)}
    assert all(started[i] > state["maintenance_since"] for i in waiting)  # they ran after it began


def _read(path):
    return path.read_text() if path.exists() else None
