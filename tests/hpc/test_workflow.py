"""The workflow mode for real: steps as Slurm jobs (srun per step), the CWL loop under cwltool,
and under StreamFlow with its steps bound to the cpu and qpu partitions."""

import json
import shutil
import subprocess
import sys

import pytest

from clustagg import run
from clustagg import slurm as slurmlib
from clustagg.data import make_reference_points

from .conftest import ROOT

pytestmark = pytest.mark.slow
N = 900


@pytest.fixture(scope="module")
def expected():
    """The same loop in one process (every mode gives the same rounds for a seed)."""
    return run(make_reference_points(N), solver="exact", max_iter=1, threshold=0.99, seed=4)


@pytest.mark.timeout(300)
def test_workflow_steps_run_as_slurm_jobs_on_the_cpu_and_qpu_partitions(slurm, tmp_path, expected):
    before = len(slurmlib.read_job_records(slurm.job_records))
    done = subprocess.run(
        [sys.executable, "-m", "clustagg", "workflow", "--n-samples", str(N), "--max-iter", "1"]
        + ["--threshold", "0.99", "--solver", "exact", "--seed", "4"]
        + ["--workdir", str(tmp_path / "wf"), "--json", str(tmp_path / "out.json")],
        env={**slurm.env, "CLUSTAGG_SRUN_PARTITIONS": "cpu:qpu", "CLUSTAGG_STEP_TIMEOUT": "90"},
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp_path / "out.json").read_text())
    assert result["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert result["labels"] == list(expected.labels)
    assert result["quantum_step_on"] == "qpu-partition"
    steps = [(r.partition, r.nodes, r.state) for r in slurmlib.read_job_records(slurm.job_records)[before:]]
    # each step ran once: none hung at MPI start-up and was rerun (see cluster/task_prolog.sh)
    assert steps == [("cpu", 3, "COMPLETED"), ("qpu", 1, "COMPLETED"), ("cpu", 1, "COMPLETED")]


@pytest.mark.timeout(300)
def test_cwl_loop_runs_under_cwltool(tmp_path, expected):
    points = tmp_path / "points.csv"
    generate = [sys.executable, "-m", "clustagg", "generate", "--n-samples", str(N), "--out", str(points)]
    subprocess.run(generate, check=True)
    job = tmp_path / "job.yml"
    job.write_text(
        f"points: {{class: File, path: {points}}}\nseed: 4\nthreshold: 0.99\nmax_iter: 1\nsolver: exact\n"
    )
    done = subprocess.run(
        ["cwltool", "--enable-ext", "--preserve-entire-environment", "--outdir", str(tmp_path / "out")]
        + [str(ROOT / "examples" / "clustagg" / "workflow.cwl"), str(job)],
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    score = json.loads((tmp_path / "out" / "score.json").read_text())
    assert score["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert score["silhouette"] == pytest.approx(expected.silhouette, abs=1e-12)


@pytest.mark.timeout(420)
def test_cwl_loop_runs_under_streamflow_with_steps_on_the_cpu_and_qpu_partitions(slurm, tmp_path, expected):
    # the example's CWL files and StreamFlow file, with this test's points and job
    example = tmp_path / "example"
    shutil.copytree(ROOT / "examples" / "clustagg", example)
    generate = [sys.executable, "-m", "clustagg", "generate", "--n-samples", str(N)]
    subprocess.run([*generate, "--out", str(example / "points.csv")], check=True)
    (example / "job-slurm.yml").write_text(
        "points: {class: File, path: points.csv}\nseed: 4\nthreshold: 0.99\nmax_iter: 1\nsolver: exact\n"
        "processes: 3\n"
    )
    before = len(slurmlib.read_job_records(slurm.job_records))
    done = subprocess.run(
        [sys.executable, "-m", "streamflow", "run", "--quiet", "--outdir", str(tmp_path / "out")]
        + [str(example / "streamflow.yml")],
        env={**slurm.env, "HOME": str(tmp_path)},  # StreamFlow keeps its database in ~/.streamflow
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    score = json.loads((tmp_path / "out" / "score.json").read_text())
    assert score["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert score["silhouette"] == pytest.approx(expected.silhouette, abs=1e-12)
    steps = [(r.partition, r.nodes, r.state) for r in slurmlib.read_job_records(slurm.job_records)[before:]]
    assert steps == [("cpu", 3, "COMPLETED"), ("qpu", 1, "COMPLETED"), ("cpu", 1, "COMPLETED")]
