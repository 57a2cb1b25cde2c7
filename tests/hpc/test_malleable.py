"""clustagg's malleable mode resizes its real Slurm allocation: grows to 3 nodes, shrinks to 1."""

import json
import time

import pytest

from clustagg import slurm as slurmlib

from .conftest import CLUSTER, job_output

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ENV = {"N_SAMPLES": "1500", "MAX_ITER": "2", "QUANTUM_DELAY": "3", "CLUSTAGG_ARGS": "--threshold 0.99"}


def held_nodes(job):
    """Nodes the run holds now according to squeue: its job's and its helper allocation's."""
    lines = slurmlib.slurm(["squeue", "-h", "-t", "RUNNING", "-o", "%i %j %D"]).split()
    rows = zip(lines[0::3], lines[1::3], lines[2::3], strict=True)
    return sum(int(nodes) for jobid, name, nodes in rows if jobid == str(job) or name == f"grow-{job}")


def watch_nodes(job, timeout):
    """Changes of the nodes the run holds, sampled until its job ends; and its final state."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = slurmlib.job_state(job)
        if state in slurmlib.FINISHED:
            return seen, state
        nodes = held_nodes(job)
        if state == "RUNNING" and nodes and (not seen or seen[-1] != nodes):
            seen.append(nodes)
        time.sleep(0.2)
    raise AssertionError(f"job {job} did not end within {timeout} s")


def test_malleable_job_grows_before_clustering_and_shrinks_for_the_quantum_step(slurm, tmp_path):
    job = slurm.submit(CLUSTER / "clustagg_malleable.sh", cwd=tmp_path, env=ENV)
    seen, state = watch_nodes(job, 240)
    output = job_output(tmp_path, job)
    assert state == "COMPLETED", output
    # 1 node at the start, 3 for each clustering, 1 again for each quantum step
    assert seen[:4] == [1, 3, 1, 3], (seen, output)
    assert output.count("grown to 3 node(s)") == 2 and output.count("shrunk to 1 node(s)") == 2, output
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
