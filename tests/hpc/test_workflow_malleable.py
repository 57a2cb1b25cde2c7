"""The workflow mode with a malleable cluster step (``--malleable-cluster``) on the emulated cluster:
the step's own Slurm job starts on one node, grows to three for the clusterings (a worker started by
Slurm on each added node) and shrinks back before the quantum step."""

import json
import re
import subprocess
import sys
import time
from datetime import datetime

import pytest

from clustagg import run
from clustagg import slurm as slurmlib
from clustagg.data import make_reference_points

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]
N = 900
WORKER_LINE = re.compile(
    r"clustagg worker: (joined|leaving) rank=(\d+)/(\d+) SLURMD_NODENAME=(\S+) node=(\S+)"
)


def wait_for_idle_cpu_nodes(timeout=60):
    deadline = time.monotonic() + timeout
    while slurmlib.slurm(["sinfo", "-h", "-p", "cpu", "-t", "idle", "-o", "%D"]).strip() != "3":
        assert time.monotonic() < deadline, slurmlib.slurm(["sinfo", "-N"])
        time.sleep(0.5)


def settled_records(since, jobs, timeout=30):
    """Accounting records since ``since`` once slurmdbd has the last job's final one."""
    deadline = time.monotonic() + timeout
    while True:
        records = [r for r in slurmlib.read_accounting(since) if not r.name.startswith("grow-")]
        if (len({r.job_id for r in records}) >= jobs and records[-1].state == "COMPLETED") or (
            time.monotonic() >= deadline
        ):
            return records
        time.sleep(0.5)


def test_malleable_cluster_step_grows_its_job_for_the_clusterings_and_shrinks_before_the_quantum_step(
    slurm, tmp_path
):
    wait_for_idle_cpu_nodes()
    since = datetime.now().replace(microsecond=0)
    done = subprocess.run(
        [sys.executable, "-m", "clustagg", "workflow", "--n-samples", str(N), "--max-iter", "1"]
        + ["--threshold", "0.99", "--solver", "exact", "--seed", "4", "--malleable-cluster"]
        + ["--workdir", str(tmp_path / "wf"), "--json", str(tmp_path / "out.json")],
        env={**slurm.env, "CLUSTAGG_SRUN_PARTITIONS": "cpu:qpu", "CLUSTAGG_STEP_TIMEOUT": "120"},
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    expected = run(make_reference_points(N), solver="exact", max_iter=1, threshold=0.99, seed=4)
    assert result["labels"] == list(expected.labels)
    assert result["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert result["quantum_step_on"] == "qpu-partition"
    # Slurm's records: the cluster step's job had 1 node, then 3, then 1 again before it ended;
    # the quantum and score steps came after it, each a job of its own
    records = settled_records(since, 3)
    assert [(r.partition, r.nodes, r.state) for r in records] == [
        ("cpu", 1, "RESIZING"), ("cpu", 3, "RESIZING"), ("cpu", 1, "COMPLETED"),
        ("qpu", 1, "COMPLETED"), ("cpu", 1, "COMPLETED"),
    ], records  # fmt: skip
    assert len({r.job_id for r in records[:3]}) == 1 and records[3].start >= records[2].end, records
    # each worker, from its own environment: started by Slurm on an added node, gone before the
    # shrink returned that node
    log = (tmp_path / "wf" / "round-000" / "cluster.log").read_text()
    lines = log.splitlines()
    events = [(i, m.groups()) for i, line in enumerate(lines) if (m := WORKER_LINE.search(line))]
    joined = [g for _, g in events if g[0] == "joined"]
    assert sorted(g[3] for g in joined) == ["c2", "c3"], log
    assert all(size == "3" and slurmd == node for _, _, size, slurmd, node in joined), log
    released = next(i for i, line in enumerate(lines) if "shrunk to 1 node(s) (released c2,c3)" in line)
    assert sorted(g[3] for i, g in events if g[0] == "leaving" and i < released) == ["c2", "c3"], log
