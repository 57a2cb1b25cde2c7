"""clustagg's malleable mode resizes its own Slurm allocation: grows to 3 nodes, shrinks to 1."""

import json
import re
import time
from datetime import datetime

import pytest

import clustagg
from clustagg import slurm as slurmlib

from .conftest import CLUSTER, job_output

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ENV = {"N_SAMPLES": "1500", "MAX_ITER": "2", "QUANTUM_DELAY": "3", "CLUSTAGG_ARGS": "--threshold 0.99"}


def epoch(text):
    """Slurm's local ``2026-11-27T02:10:01`` -> Unix seconds (as clustagg.slurm reads sacct's times)."""
    return datetime.fromisoformat(text).timestamp()


def watch_nodes(job, timeout):
    """Changes of the job's node count (``NumNodes``), sampled until it ends, each with the time the
    job itself gives it (``StartTime`` for its first size, ``ResizeTime`` for the others); and the
    job's fields once it has ended (``JobState``, ``EndTime``, ``ResizeTime``: its last resize)."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        fields = slurmlib.job_fields(job)[0]
        if fields["JobState"] in slurmlib.FINISHED:
            return seen, fields
        nodes = int(fields["NumNodes"].split("-")[0])
        if fields["JobState"] == "RUNNING" and (not seen or seen[-1][0] != nodes):
            seen.append((nodes, epoch(fields["ResizeTime" if seen else "StartTime"])))
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
    seen, final = watch_nodes(job, 240)
    output = job_output(tmp_path, job)
    assert final["JobState"] == "COMPLETED", output
    # the job itself: 1 node at the start, 3 for each clustering, 1 again for each quantum step
    assert [nodes for nodes, _ in seen][:4] == [1, 3, 1, 3], (seen, output)
    assert output.count("grown to 3 node(s)") == 2 and output.count("shrunk to 1 node(s)") == 2, output
    # and Slurm's accounting holds one record per size the job had, in that order
    records = wait_for_accounting(since, job)
    assert [r.nodes for r in records] == [1, 3, 1, 3, 1], records
    assert [r.state for r in records] == ["RESIZING"] * 4 + ["COMPLETED"], records
    # each record lasts from the job's own start or resize time to the next (or its end), within
    # a second, so its node-seconds are its nodes times that; the watcher may miss the last size
    # (the job can end within a sample), whose start is then the job's last ResizeTime
    starts = [start for _, start in seen[:5]]
    if len(starts) == 4:
        starts.append(epoch(final["ResizeTime"]))
    assert starts[-1] == epoch(final["ResizeTime"]), (seen, final)
    ends = [*starts[1:], epoch(final["EndTime"])]
    for record, start, end in zip(records, starts, ends, strict=True):
        assert abs(record.start - start) <= 1 and abs(record.end - end) <= 1, (record, start, end)
        assert abs(record.seconds - (end - start)) <= 1, (record, start, end)
        assert abs(record.node_seconds - record.nodes * (end - start)) <= record.nodes, (record, start, end)
    expected = sum(r.nodes * (end - start) for r, start, end in zip(records, starts, ends, strict=True))
    assert abs(sum(r.node_seconds for r in records) - expected) <= sum(r.nodes for r in records)
    # the whole job: from its start to its end, as sacct's first start and last end
    assert abs(sum(r.seconds for r in records) - (epoch(final["EndTime"]) - starts[0])) <= 1
    result = json.loads((tmp_path / f"malleable-{job}.json").read_text())
    assert len(result["labels"]) == 1500 and len(result["iterations"]) == 2
    assert -1 <= result["silhouette"] <= 1
    assert_workers_ran_on_the_added_nodes(output)
    # each quantum step ran as a job of its own on the qpu node (from the step's own environment)
    assert result["quantum_step_on"] == "qpu-partition"
    ran_on = [
        json.loads((tmp_path / f"malleable-{job}" / f"round-{i:03d}" / "selection.json").read_text())[
            "ran_on"
        ]
        for i in range(2)
    ]
    assert [(r["partition"], r["node"]) for r in ran_on] == [("qpu", "q1")] * 2, ran_on
    assert str(job) not in {r["job"] for r in ran_on}, ran_on
    points = clustagg.make_reference_points(1500)
    expected = clustagg.run(points, solver="exact", seed=0, max_iter=2, threshold=0.99)
    assert result["labels"] == expected.labels.tolist() and result["iterations"] == expected.iterations


WORKER_LINE = re.compile(
    r"clustagg worker: (joined|leaving) rank=(\d+)/(\d+) SLURMD_NODENAME=(\S+) node=(\S+)"
)


def assert_workers_ran_on_the_added_nodes(output):
    """Each worker, as it reports from its own environment: started by Slurm on a node added by the
    grow (never c1, the job's own node), and gone before that node was returned by the shrink."""
    lines = output.splitlines()
    joined = [
        (i, m.groups())
        for i, line in enumerate(lines)
        if (m := WORKER_LINE.search(line)) and m[1] == "joined"
    ]
    left = [
        (i, m.groups())
        for i, line in enumerate(lines)
        if (m := WORKER_LINE.search(line)) and m[1] == "leaving"
    ]
    assert len(joined) == 4 and len(left) == 4, output  # 2 workers x 2 cluster phases
    for _, (_, rank, size, slurmd, node) in joined:
        assert size == "3" and rank in {"1", "2"} and slurmd == node and slurmd in {"c2", "c3"}, output
    releases = [i for i, line in enumerate(lines) if "shrunk to 1 node(s) (released c2,c3)" in line]
    assert len(releases) == 2, output
    for phase, release in enumerate(releases):
        phase_left = [
            (i, groups) for i, groups in left if (releases[phase - 1] if phase else -1) < i < release
        ]
        assert sorted(groups[3] for _, groups in phase_left) == ["c2", "c3"], output


def test_malleable_job_gives_up_growing_when_the_nodes_are_busy(slurm, tmp_path):
    blocker = slurm.submit(CLUSTER / "hold_nodes.sh", "--nodes=2", cwd=tmp_path)
    assert slurmlib.wait_for_state(blocker, {"RUNNING"}, 60) == "RUNNING"
    job = slurm.submit(
        CLUSTER / "clustagg_malleable.sh",
        cwd=tmp_path,
        env={**ENV, "MAX_ITER": "1", "QUANTUM_DELAY": "0", "CLUSTAGG_GROW_TIMEOUT": "3"},
    )
    seen, final = watch_nodes(job, 240)
    output = job_output(tmp_path, job)
    assert final["JobState"] == "COMPLETED", output
    assert [nodes for nodes, _ in seen] == [1], output
    assert "gave up growing to 3 nodes after 3 s" in output
    result = json.loads((tmp_path / f"malleable-{job}.json").read_text())
    assert len(result["labels"]) == 1500


def test_malleable_job_with_asynchronous_grow_adopts_the_nodes_granted_during_a_quantum_step(slurm, tmp_path):
    wait_for_idle_cpu_nodes()
    env = {**ENV, "CLUSTAGG_ARGS": "--threshold 0.99 --grow async"}
    job = slurm.submit(CLUSTER / "clustagg_malleable.sh", cwd=tmp_path, env=env)
    state = slurm.wait(job, 240)
    output = job_output(tmp_path, job)
    assert state == "COMPLETED", output
    # the grow was only queued, and the workers it started joined a later cluster phase, on the
    # nodes added (a quantum step of 3 s lies between the request and the second cluster phase)
    assert "asked for 2 more node(s) without waiting" in output, output
    joined = [m.groups() for m in WORKER_LINE.finditer(output) if m[1] == "joined"]
    assert len(joined) == 2, output
    assert sorted(slurmd for _, _, size, slurmd, node in joined if size == "3" and slurmd == node) == [
        "c2",
        "c3",
    ]
    result = json.loads((tmp_path / f"malleable-{job}.json").read_text())
    points = clustagg.make_reference_points(1500)
    expected = clustagg.run(points, solver="exact", seed=0, max_iter=2, threshold=0.99)
    assert result["labels"] == expected.labels.tolist() and result["iterations"] == expected.iterations
