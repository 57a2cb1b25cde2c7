"""clustagg.reconfiguration on the emulated cluster: a user's MPI program (examples/slurm/cluster/
malleable_sum.py) grows and shrinks its job; each rank reports the node Slurm started it on."""

import json
import time

import pytest

from clustagg import slurm as slurmlib

from .conftest import CLUSTER, job_output

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TOTAL = 1000
EXPECTED_SUM = TOTAL * (TOTAL - 1) // 2


def wait_for_idle_cpu_nodes(timeout=60):
    deadline = time.monotonic() + timeout
    while slurmlib.slurm(["sinfo", "-h", "-p", "cpu", "-t", "idle", "-o", "%D"]).strip() != "3":
        assert time.monotonic() < deadline, slurmlib.slurm(["sinfo", "-N"])
        time.sleep(0.5)


def run_sum(cluster, tmp_path, *arguments):
    """Run malleable_sum.py in a one-node job; its step lines and its resize history."""
    wait_for_idle_cpu_nodes()
    script = tmp_path / "sum.sh"
    script.write_text(
        f"#!/bin/bash\npython {CLUSTER / 'malleable_sum.py'} --total {TOTAL} {' '.join(arguments)}\n"
    )
    job = cluster.submit(script, "--partition=cpu", "--nodes=1", cwd=tmp_path)
    try:
        assert cluster.wait(job, 240) == "COMPLETED", job_output(tmp_path, job)
    finally:
        slurmlib.cancel(job)  # ended already, unless the wait failed
    output = job_output(tmp_path, job)
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    steps = [line for line in lines if "step" in line]
    history = [line for line in lines if "history" in line]
    assert history, output
    return steps, history[0]["history"], output


@pytest.fixture(scope="module")
def blocking(cluster, tmp_path_factory):
    """Steps, resize history and output of one run whose blocking resizes grow the job to 3 nodes,
    shrink it to 1, grow it to 2 and shrink it to 1: both tests read it."""
    return run_sum(cluster, tmp_path_factory.mktemp("blocking"), "--plan", "1,3,3,1,2,2,1")


def test_workers_run_on_the_nodes_added_and_leave_the_released_ones(blocking):
    steps, history, output = blocking
    assert [step["sum"] for step in steps] == [EXPECTED_SUM] * 7, output
    nodes = [step["nodes"] for step in steps]
    # rank 0 stays on the job's own node; each worker reports the node that Slurm started it on
    assert nodes[0] == ["c1"] and nodes[3] == ["c1"] and nodes[6] == ["c1"], output
    assert nodes[1] == nodes[2] and nodes[1][0] == "c1" and sorted(nodes[1][1:]) == ["c2", "c3"], output
    assert nodes[4] == nodes[5] and nodes[4][0] == "c1" and nodes[4][1] in {"c2", "c3"}, output
    assert [(r["kind"], r["nodes_before"], r["nodes_after"]) for r in history] == [
        ("grow", 1, 3), ("shrink", 3, 1), ("grow", 1, 2), ("shrink", 2, 1),
    ], history  # fmt: skip


def test_an_asynchronous_grow_blocks_the_program_less_than_a_blocking_one(blocking, slurm, tmp_path):
    plan = ",".join(["3"] * 40 + ["1"])  # 40 steps of 0.3 s: time for Slurm and the workers to start
    steps, asynchronous, output = run_sum(slurm, tmp_path, "--plan", plan, "--work", "0.3", "--asynchronous")
    assert [step["sum"] for step in steps] == [EXPECTED_SUM] * 41, output
    assert steps[0]["nodes"] == ["c1"], output  # the program went on while Slurm granted the nodes
    grown = [step for step in steps if len(step["nodes"]) == 3]
    assert grown and all(sorted(step["nodes"][1:]) == ["c2", "c3"] for step in grown), output
    grow_blocking = blocking[1][0]  # the blocking run's first resize, also a grow from 1 to 3 nodes
    assert [grow_blocking[key] for key in ("kind", "nodes_before", "nodes_after")] == ["grow", 1, 3]
    grow_async = next(r for r in asynchronous if r["kind"] == "grow")
    print(
        f"\nreconfiguration overhead (request to workers running, program blocked): "
        f"blocking {grow_blocking['seconds']:.3f} s / {grow_blocking['blocked_seconds']:.3f} s; "
        f"asynchronous {grow_async['seconds']:.3f} s / {grow_async['blocked_seconds']:.3f} s"
    )
    assert grow_async["blocked_seconds"] < grow_blocking["blocked_seconds"], (blocking[1], asynchronous)
