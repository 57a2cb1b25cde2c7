"""The dynamic vQPU count on the emulated cluster: the server raises Slurm's licence count.

A remote licence ``vqpu@dyn`` with count 1 is made in slurmdbd; a server with
``--dynamic-count 1:3 --licence-server dyn`` sees its device idle while every licence is in
use, and raises the count one step at a time: the three jobs asking for the licence,
first one running and two pending for licences, all run, and the count stops at the maximum.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from vqpu_server import eventually, slurm_bound_server

pytestmark = pytest.mark.slow

HOLDER = """#!/bin/bash
out="probe-$SLURM_JOB_ID"
python -m backends.vqpu probe --url "$VQPU_URL" --shots 16 > "$out.json" 2> "$out.err"
echo $? > "$out.rc"
sleep 300
"""


def run(env, *command):
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def running(env, jobs) -> list[int]:
    states = run(env, "squeue", "-h", "-j", ",".join(map(str, jobs)), "-o", "%i %T").stdout.split("\n")
    return [int(line.split()[0]) for line in states if line.endswith(" RUNNING")]


def licence_total(env) -> int | None:
    shown = run(env, "scontrol", "show", "license", "-o").stdout
    found = re.search(r"LicenseName=vqpu@dyn Total=(\d+)", shown)
    return int(found[1]) if found else None


@pytest.fixture
def remote_licence(slurm):
    add = ["sacctmgr", "-i", "add", "resource", "name=vqpu", "server=dyn", "count=1", "type=license"]
    done = run(slurm.env, *add, "cluster=qcluster", "percentallowed=100")
    assert done.returncode == 0, done.stderr
    try:
        eventually(lambda: licence_total(slurm.env) == 1, "slurmctld sees the remote licence", 30)
        yield "vqpu@dyn"
    finally:
        run(slurm.env, "sacctmgr", "-i", "delete", "resource", "name=vqpu", "server=dyn")


@pytest.mark.timeout(300)
def test_an_idle_device_with_every_licence_in_use_raises_slurms_licence_count(
    slurm, remote_licence, tmp_path
):
    options = (
        "--dynamic-count",
        "1:3",
        "--licence-server",
        "dyn",
        "--count-interval",
        "1",
        "--slurm-poll",
        "0.5",
    )
    with slurm_bound_server(slurm, tmp_path, "qsrv-count", *options) as (_, env, _, process):
        (tmp_path / "holder.sh").write_text(HOLDER)
        jobs = [
            slurm.submit(tmp_path / "holder.sh", "-p", "qpushared", f"--licenses={remote_licence}:1",
                         cwd=tmp_path, env=env)
            for _ in range(3)
        ]  # fmt: skip
        eventually(lambda: len(running(env, jobs)) == 3, "all three jobs running", 120, pace=0.5)
        assert licence_total(env) == 3
        # the jobs holding the remote licence are served
        rcs = [eventually(lambda j=j: (tmp_path / f"probe-{j}.rc").exists(), "probe done", 60) for j in jobs]
        assert rcs and all((tmp_path / f"probe-{j}.rc").read_text().strip() == "0" for j in jobs), [
            (tmp_path / f"probe-{j}.err").read_text() for j in jobs
        ]
        log = (tmp_path / "server.log").read_text()
        assert "vQPU count 1 -> 2" in log and "vQPU count 2 -> 3" in log, log
        assert "vQPU count 3 -> 4" not in log  # the maximum holds
        assert process.poll() is None
