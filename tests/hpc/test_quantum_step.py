"""The baseline mode's quantum step offloaded to the qpu partition, on the emulated cluster.

The job runs on the cpu partition; each round's quantum step is a Slurm job of its own on q1,
as the step itself records (its SLURM_JOB_PARTITION and SLURMD_NODENAME in selection.json) and as
Slurm's job records show. (The malleable mode's offloaded step is checked in test_malleable.py.)
"""

import json

import pytest

import clustagg
from clustagg import slurm as slurmlib

from .conftest import CLUSTER, job_output

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

N = 900
ENV = {
    "N_SAMPLES": str(N),
    "MAX_ITER": "2",
    "QUANTUM_DELAY": "1",
    "CLUSTAGG_ARGS": "--threshold 0.99 --seed 4",
}


def selections(workdir):
    return [json.loads((workdir / f"round-{i:03d}" / "selection.json").read_text()) for i in range(2)]


@pytest.mark.parametrize("nodes", [1, 3])  # one process, or one MPI rank per node (srun, PMI-2)
def test_baseline_job_sends_each_quantum_step_to_the_qpu_node(slurm, tmp_path, nodes):
    before = len(slurmlib.read_job_records(slurm.job_records))
    job = slurm.submit(CLUSTER / "clustagg_baseline.sh", f"--nodes={nodes}", cwd=tmp_path, env=ENV)
    state = slurm.wait(job, 240)
    output = job_output(tmp_path, job)
    assert state == "COMPLETED", output
    result = json.loads((tmp_path / f"baseline-{job}.json").read_text())
    assert result["quantum_step_on"] == "qpu-partition"
    # each step, from its own environment: a job other than the run's, on the qpu partition, on q1
    ran_on = [s["ran_on"] for s in selections(tmp_path / f"baseline-{job}")]
    assert [(r["partition"], r["node"]) for r in ran_on] == [("qpu", "q1")] * 2, ran_on
    assert len({r["job"] for r in ran_on} | {str(job)}) == 3, ran_on
    # the emulated latency was spent there
    assert all(s["seconds"] >= 1 for s in selections(tmp_path / f"baseline-{job}"))
    # and Slurm's records: two one-node jobs on qpu, then the run's own job on cpu
    records = slurmlib.read_job_records(slurm.job_records)[before:]
    assert [(r.partition, r.nodes, r.state) for r in records] == [
        ("qpu", 1, "COMPLETED"),
        ("qpu", 1, "COMPLETED"),
        ("cpu", nodes, "COMPLETED"),
    ], records
    assert {str(r.job_id) for r in records[:2]} == {r["job"] for r in ran_on}
    # the rounds equal the one-process run's
    points = clustagg.make_reference_points(N)
    expected = clustagg.run(points, solver="exact", seed=4, max_iter=2, threshold=0.99)
    assert result["labels"] == expected.labels.tolist() and result["iterations"] == expected.iterations
