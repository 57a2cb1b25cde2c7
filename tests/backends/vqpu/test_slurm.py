"""A real single-node Slurm (examples/slurm): jobs holding a vQPU licence, or GRES, share one server."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from datetime import datetime

import pytest
from vqpu_helpers import HERE, spawn_server, subprocess_env

from backends.vqpu.server.store import read_batches

SLURM = HERE.parents[2] / "examples" / "slurm"


def _run(*command, env=None, timeout=60):
    return subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=timeout, check=True
    ).stdout


def _started_ended(info: str) -> tuple[datetime, datetime]:
    """A job's StartTime and EndTime from ``scontrol show job`` (one-second resolution)."""
    times = dict(re.findall(r"(StartTime|EndTime)=(\S+)", info))
    return datetime.fromisoformat(times["StartTime"]), datetime.fromisoformat(times["EndTime"])


@pytest.mark.slow
@pytest.mark.parametrize(
    ("resource", "held"), [("licenses", "Licenses=vqpu:1"), ("gres", "TresPerNode=gres:vqpu:1")]
)
def test_three_jobs_share_the_vqpu_two_at_a_time(tmp_path, resource, held):
    missing = [c for c in ("munged", "slurmctld", "slurmd", "sinfo", "sbatch") if shutil.which(c) is None]
    if missing:
        pytest.fail(f"Slurm is not installed (no {', '.join(missing)}): run 'bash {SLURM}/install.sh' first")
    state = tmp_path / "slurm"
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("# one 'name token' per job, appended by submit.sh\n")
    env = {**subprocess_env(), "SLURM_CONF": str(state / "slurm.conf")}
    try:
        _run("bash", str(SLURM / "start.sh"), str(state), "2", timeout=60)
        assert "vqpu" in _run("scontrol", "show", "licenses", env=env)
        assert "Gres=vqpu:2" in _run("scontrol", "show", "node", env=env)
        with spawn_server(tmp_path / "db.sqlite", "--token-file", str(tokens)) as (_, url):
            probe = f"{shlex.quote(sys.executable)} -m backends.vqpu probe --url {url} --shots 64 --repeat 3"
            ids = _run(
                "bash",
                str(SLURM / "submit.sh"),
                "3",
                url,
                str(tokens),
                env={**env, "VQPU_COMMAND": probe, "OUTPUT_DIR": str(tmp_path), "VQPU_RESOURCE": resource},
            ).split()
            assert len(ids) == 3
            deadline = time.monotonic() + 120
            while _run("squeue", "-h", "-j", ",".join(ids), env=env).strip():
                assert time.monotonic() < deadline, _run("squeue", env=env)
                time.sleep(0.5)
            jobs = {job_id: _run("scontrol", "show", "job", job_id, env=env) for job_id in ids}
    finally:
        subprocess.run(["bash", str(SLURM / "stop.sh"), str(state)], timeout=60, env=env)
    for job_id, info in jobs.items():
        output = (tmp_path / f"vqpu-{job_id}.out").read_text()
        assert "JobState=COMPLETED" in info and "ExitCode=0:0" in info, (info, output)
        assert held in info
        result = json.loads(output.splitlines()[-1])
        assert [sum(c.values()) for c in result["counts"]] == [64, 64, 64]
        assert all(set(c) <= {"00", "11"} for c in result["counts"])
        assert len(result["timings"]) == 3
    # two vQPU units: never more than two of the three jobs held one at the same time
    spans = [_started_ended(info) for info in jobs.values()]
    for start, _ in spans:
        assert sum(begin <= start < end for begin, end in spans) <= 2, spans
    batches = read_batches(tmp_path / "db.sqlite")
    names = [line.split()[0] for line in tokens.read_text().splitlines() if not line.startswith("#")]
    assert len(batches) == 9 and all(b.status == "done" and b.fetched == 1 for b in batches)
    assert sorted({b.job for b in batches}) == sorted(names) and len(names) == 3
    assert not os.path.exists(state / "slurmctld.pid")
