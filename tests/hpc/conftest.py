"""The emulated Slurm cluster (examples/slurm/cluster), started once per test session.

Slurm missing is a failure, not a skip: CI installs it with examples/slurm/install.sh.
Every test that submits jobs uses the ``slurm`` fixture, which cancels the test's jobs
afterwards, also when the test fails; the session fixture stops the daemons.
"""

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from clustagg import slurm as slurmlib

sys.path.insert(0, str(Path(__file__).parent))  # vqpu_server, the helpers of the vQPU tests here

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "examples" / "slurm" / "cluster"
REQUIRED = (
    "munged", "mariadbd", "slurmdbd", "slurmctld", "slurmd",
    "sbatch", "salloc", "scontrol", "squeue", "scancel", "srun", "sacct",
)  # fmt: skip


@dataclass
class Cluster:
    """A running emulated cluster: its state directory and the environment of its commands."""

    state: Path
    env: dict[str, str]
    jobs: list[int] = field(default_factory=list)

    @property
    def job_records(self) -> Path:
        return self.state / "jobcomp.txt"

    def submit(self, script, *arguments, cwd, env=None, script_arguments=()):
        """sbatch ARGUMENTS SCRIPT SCRIPT_ARGUMENTS in ``cwd`` with this cluster's environment
        (plus ``env``); the job id."""
        job = slurmlib.submit(
            [f"--chdir={cwd}", f"--output={cwd}/slurm-%j.out", *arguments, str(script), *script_arguments],
            env={**self.env, **(env or {})},
        )
        self.jobs.append(job)
        return job

    def wait(self, job, timeout):
        """Wait until the job has finished; its final state."""
        return slurmlib.wait_for_state(job, slurmlib.FINISHED, timeout)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    missing = [command for command in REQUIRED if shutil.which(command) is None]
    if missing:
        pytest.fail(
            f"Slurm is not installed ({', '.join(missing)} not on PATH): run "
            f"'bash examples/slurm/install.sh' (needs root or sudo)",
            pytrace=False,
        )
    state = tmp_path_factory.mktemp("slurm-cluster")
    started = subprocess.run(
        ["bash", str(CLUSTER / "start.sh"), str(state)], capture_output=True, text=True, timeout=120
    )
    try:
        if started.returncode != 0:
            pytest.fail(f"the emulated cluster did not start:\n{started.stderr}", pytrace=False)
        env = {
            **os.environ,
            "SLURM_CONF": str(state / "slurm.conf"),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        }
        os.environ["SLURM_CONF"] = env["SLURM_CONF"]
        yield Cluster(state, env)
    finally:
        subprocess.run(["bash", str(CLUSTER / "stop.sh"), str(state)], capture_output=True, timeout=120)
        os.environ.pop("SLURM_CONF", None)


@pytest.fixture
def slurm(cluster):
    """The cluster, with the jobs this test submits cancelled at its end."""
    cluster.jobs.clear()
    yield cluster
    slurmlib.cancel(*cluster.jobs)
    for job in cluster.jobs:
        slurmlib.wait_for_state(job, slurmlib.FINISHED, 60)


def job_output(cwd, job):
    path = Path(cwd) / f"slurm-{job}.out"
    return path.read_text() if path.exists() else "(no output)"
