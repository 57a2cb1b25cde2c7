"""The quantum step through HyperQueue, its server and worker a job on the qpu partition."""

import json
import os
import subprocess
import sys
import time

import pytest

from clustagg import run
from clustagg import slurm as slurmlib
from clustagg.data import make_reference_points
from clustagg.hq import HyperQueueStep

from .conftest import CLUSTER, job_output

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

N = 600


def wait_for_file(path, job, timeout=60):
    deadline = time.monotonic() + timeout
    while not path.exists():
        state = slurmlib.job_state(job)
        assert state in {"PENDING", "CONFIGURING", "RUNNING"}, f"job {job} is {state}"
        assert time.monotonic() < deadline, f"{path} did not appear within {timeout} s"
        time.sleep(0.5)


def test_quantum_steps_run_inside_the_hyperqueue_job_on_the_qpu_node(slurm, tmp_path):
    server = tmp_path / "hq"
    server.mkdir()
    job = slurm.submit(CLUSTER / "hq_qpu.sh", cwd=tmp_path, script_arguments=[str(server)])
    wait_for_file(server / "ready", job)

    # a task runs inside that Slurm job, on the qpu partition
    step = HyperQueueStep(server)
    where = "import os; print(os.environ['SLURM_JOB_PARTITION'], os.environ['SLURM_JOB_ID'])"
    probe = [sys.executable, "-c", where]
    assert step(probe, None, tmp_path / "probe.json") is None, job_output(tmp_path, job)
    assert (tmp_path / "probe.hq.out").read_text().split() == ["qpu", str(job)]

    # the baseline mode's quantum steps go there, each recording the job and node it ran in, and
    # the rounds equal the one-process run (the workflow's quantum steps take the same
    # HyperQueueStep: tests/clustagg/test_hq.py runs the workflow through a HyperQueue server)
    command = [sys.executable, "-m", "clustagg", "run", "--n-samples", str(N), "--max-iter", "2"]
    command += ["--threshold", "0.99", "--solver", "exact", "--seed", "4", "--quantum-step", "hyperqueue"]
    command += ["--workdir", str(tmp_path / "base"), "--json", str(tmp_path / "base.json"), "--quiet"]
    env = {**slurm.env, "CLUSTAGG_HQ_SERVER_DIR": str(server)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = run(make_reference_points(N), solver="exact", max_iter=2, threshold=0.99, seed=4)
    result = json.loads((tmp_path / "base.json").read_text())
    assert result["quantum_step_on"] == "hyperqueue"
    assert result["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert result["labels"] == list(expected.labels)
    ran_on = [
        json.loads((tmp_path / "base" / f"round-{i:03d}" / "selection.json").read_text())["ran_on"]
        for i in range(2)
    ]
    assert ran_on == [{"job": str(job), "partition": "qpu", "node": "q1"}] * 2

    # scancel stops the server: the job ends and its process is gone
    pid = int((server / "ready").read_text())
    slurmlib.cancel(job)
    assert slurm.wait(job, 60) == "CANCELLED"
    deadline = time.monotonic() + 30
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not os.path.exists(f"/proc/{pid}")
