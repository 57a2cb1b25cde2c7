"""clustagg's malleable mode resizes its own Slurm allocation: grows to 3 nodes, shrinks to 1."""

import json
import time
from datetime import datetime

import pytest

from clustagg import slurm as slurmlib

from .conftest import CLUSTER, job_output

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ENV = {"N_SAMPLES": "1500", "MAX_ITER": "2", "QUANTUM_DELAY": "3", "CLUSTAGG_ARGS": "--threshold 0.99"}


def watch_nodes(job, timeout):
    """Changes of the job's node count (``NumNodes``), sampled until it ends; and its final state."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = slurmlib.job_state(job)
        if state in slurmlib.FINISHED:
            return seen, state
        nodes = slurmlib.job_nodes(job)
        if state == "RUNNING" and (not seen or seen[-1] != nodes):
            seen.append(nodes)
        time.sleep(0.2)
    raise AssertionError(f"job {job} did not end within {timeout} s")


def wait_for_idle_cpu_nodes(timeout=60):
    """Until the three cpu nodes are idle (an earlier test's cancelled jobs may still be completing),
    so that a grow finds both nodes it asks for."""
    deadline = time.monotonic() + timeout
    while slurmlib.slurm(["sinfo", "-h", "-p", "cpu", "-t", "idle", "-o", "%D"]).strip() != "3":
        assert time.monotonic() < deadline, slurmlib.slurm(["sinfo", "-N"])
        time.sleep(0.5)


def wait_for_accounting(since, job, timeout=30):
    """The job's accounting records once slurmdbd has its final one (it writes asynchronously)."""
    deadline = time.monotonic() + timeout
    while True:
        records = [r for r in slurmlib.read_accounting(since) if r.job_id == job]
        if (records and records[-1].state == "COMPLETED") or time.monotonic() >= deadline:
            return records
        time.sleep(0.5)


def test_malleable_job_grows_before_clustering_and_shrinks_for_the_quantum_step(slurm, tmp_path):
    wait_for_idle_cpu_nodes()
    since = datetime.now().replace(microsecond=0)
    job = slurm.submit(CLUSTER / "clustagg_malleable.sh", cwd=tmp_path, env=ENV)
    seen, state = watch_nodes(job, 240)
    output = job_output(tmp_path, job)
    assert state == "COMPLETED", output
    # the job itself: 1 node at the start, 3 for each clustering, 1 again for each quantum step
    assert seen[:4] == [1, 3, 1, 3], (seen, output)
    assert output.count("grown to 3 node(s)") == 2 and output.count("shrunk to 1 node(s)") == 2, output
    # and Slurm's accounting holds one record per size the job had, in that order
    records = wait_for_accounting(since, job)
    assert [r.nodes for r in records] == [1, 3, 1, 3, 1], records
    assert [r.state for r in records] == ["RESIZING"] * 4 + ["COMPLETED"], records
    result = json.loads((tmp_path / f"malleable-{job}.json").read_text())
    assert len(result["labels"]) == 1500 and len(result["iterations"]) == 2
    assert -1 <= result["silhouette"] <= 1


def test_malleable_job_gives_up_growing_when_the_nodes_are_busy(slurm, tmp_path):
    blocker = slurm.submit(CLUSTER / "hold_nodes.sh", "--nodes=2", cwd=tmp_path)
    assert slurmlib.wait_for_state(blocker, {"RUNNING"}, 60) == "RUNNING"
    job = slurm.submit(
        CLUSTER / "clustagg_malleable.sh",
        cwd=tmp_path,
        env={**ENV, "MAX_ITER": "1", "QUANTUM_DELAY": "0", "CLUSTAGG_GROW_TIMEOUT": "3"},
    )
    seen, state = watch_nodes(job, 240)
    output = job_output(tmp_path, job)
    assert state == "COMPLETED", output
    assert seen == [1], output
    assert "gave up growing to 3 nodes after 3 s" in output
    result = json.loads((tmp_path / f"malleable-{job}.json").read_text())
    assert len(result["labels"]) == 1500
