"""Where the baseline and malleable modes run the quantum step (clustagg.quantum_step), offline.

The ``qpu-partition`` step is tested here with a stand-in ``srun`` on ``PATH`` that records its
options and environment and runs the command with the variables Slurm would set on the quantum
node; tests/hpc/test_quantum_step.py runs it on the emulated cluster.
"""

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from clustagg import InvalidParameterError, run
from clustagg.cli import main
from clustagg.data import make_reference_points
from clustagg.loop import LoopSettings
from clustagg.mpi import world
from clustagg.quantum_step import (
    QUANTUM_STEPS,
    QuantumStep,
    check_quantum_step,
    default_quantum_step,
    outside_job_environment,
    reported_place,
)
from clustagg.solvers import ExactSolver

pytestmark = pytest.mark.timeout(120)

N = 300

FAKE_SRUN = """\
import json, os, sys
args = sys.argv[1:]
options = []
while args and args[0].startswith("--"):
    options.append(args.pop(0))
with open(os.environ["FAKE_SRUN_LOG"], "a") as log:
    log.write(json.dumps({"options": options, "job": os.environ.get("SLURM_JOB_ID")}) + "\\n")
partition = next(o.split("=", 1)[1] for o in options if o.startswith("--partition="))
env = {**os.environ, "SLURM_JOB_ID": "99", "SLURM_JOB_PARTITION": partition, "SLURMD_NODENAME": "q1"}
os.execvpe(args[0], args, env)
"""


@pytest.fixture
def fake_srun(tmp_path, monkeypatch):
    """An ``srun`` on PATH that logs its options and the job it saw, then runs its command as on q1."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "srun"
    script.write_text(f"#!{sys.executable}\n{FAKE_SRUN}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "srun.log"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SRUN_LOG", str(log))
    monkeypatch.delenv("CLUSTAGG_SRUN_PARTITIONS", raising=False)
    return log


@pytest.fixture(scope="module")
def expected():
    return run(make_reference_points(N), solver="exact", max_iter=2, threshold=0.99, seed=3)


# -- choosing the place -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("solver", "options", "environ", "where"),
    [
        ("exact", {}, {}, "local"),
        ("exact", {}, {"SLURM_JOB_ID": "5"}, "qpu-partition"),
        ("anneal", {}, {"SLURM_JOB_ID": "5", "CLUSTAGG_HQ_SERVER_DIR": "/hq"}, "hyperqueue"),
        ("qaoa", {"backend": "vqpu:http://127.0.0.1:8000"}, {}, "vqpu"),
        ("qaoa", {"backend": "vqpu:http://127.0.0.1:8000"}, {"SLURM_JOB_ID": "5"}, "vqpu"),
        (ExactSolver(), {}, {"SLURM_JOB_ID": "5"}, "local"),  # a callable cannot travel
    ],
)
def test_default_place_follows_slurm_hyperqueue_and_the_backend(solver, options, environ, where):
    assert default_quantum_step(solver, options, environ) == where


def test_local_is_reported_as_rank0():
    assert [reported_place(w) for w in QUANTUM_STEPS] == ["qpu-partition", "hyperqueue", "vqpu", "rank0"]


@pytest.mark.parametrize(
    ("where", "solver", "options", "delay", "message"),
    [
        (
            "qpu",
            "exact",
            {},
            0.0,
            "--quantum-step must be one of 'qpu-partition', 'hyperqueue', 'vqpu', 'local'; got 'qpu'",
        ),
        (
            "hyperqueue",
            "exact",
            {},
            0.0,
            "--quantum-step hyperqueue needs CLUSTAGG_HQ_SERVER_DIR=DIR (a HyperQueue server)",
        ),
        ("vqpu", "anneal", {}, 0.0, "--quantum-step vqpu needs --solver qaoa --backend vqpu:URL"),
        (
            "vqpu",
            "qaoa",
            {"backend": "aer"},
            0.0,
            "--quantum-step vqpu needs --solver qaoa --backend vqpu:URL",
        ),
        (
            "vqpu",
            "qaoa",
            {"backend": "vqpu:http://h:1"},
            2.0,
            "--quantum-step vqpu takes its latency from the vQPU server (--latency); drop --quantum-delay 2",
        ),
        (
            "qpu-partition",
            ExactSolver(),
            {},
            0.0,
            "--quantum-step qpu-partition runs the solver by name; got a callable",
        ),
    ],
)
def test_a_place_that_cannot_work_here_is_refused(monkeypatch, where, solver, options, delay, message):
    monkeypatch.delenv("CLUSTAGG_HQ_SERVER_DIR", raising=False)
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(message)}$"):
        check_quantum_step(where, solver, options, delay, name="--quantum-step")


def test_qpu_partition_needs_srun(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(InvalidParameterError, match="^quantum_step qpu-partition needs srun on PATH"):
        check_quantum_step("qpu-partition", "exact", {}, 0.0)


def test_outside_job_environment_drops_the_jobs_variables_only():
    env = {
        "SLURM_JOB_ID": "4",
        "SLURM_NODELIST": "c1",
        "SLURM_CONF": "/s.conf",
        "SLURMD_NODENAME": "c1",
        "A": "1",
    }
    assert outside_job_environment(env) == {"SLURM_CONF": "/s.conf", "SLURMD_NODENAME": "c1", "A": "1"}


def test_an_offloaded_step_needs_the_run_files():
    with pytest.raises(InvalidParameterError, match="needs the run's RoundFiles"):
        QuantumStep("qpu-partition", "exact", {}, LoopSettings())


# -- the command line -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--quantum-step", "qpu"], "argument --quantum-step: invalid choice: 'qpu'"),
        (["--mode", "workflow", "--quantum-step", "local"], "--quantum-step applies to --mode baseline and"),
        (["--quantum-step", "hyperqueue"], "--quantum-step hyperqueue needs CLUSTAGG_HQ_SERVER_DIR=DIR"),
        (["--quantum-step", "vqpu"], "--quantum-step vqpu needs --solver qaoa --backend vqpu:URL"),
        (["--mode", "malleable", "--grow", "later"], "argument --grow: invalid choice: 'later'"),
    ],
)
def test_a_bad_quantum_step_exits_2_with_one_line_naming_the_option(
    capsys, monkeypatch, tmp_path, argv, message
):
    monkeypatch.delenv("CLUSTAGG_HQ_SERVER_DIR", raising=False)
    out = tmp_path / "out.json"
    assert main(["run", "--n-samples", str(N), "--solver", "exact", "--json", str(out), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and argv[-2] in err, err
    assert not out.exists()


def test_json_says_the_quantum_step_ran_on_rank0_by_default_outside_slurm(
    capsys, monkeypatch, tmp_path, expected
):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    out = tmp_path / "out.json"
    argv = ["--max-iter", "2", "--threshold", "0.99", "--seed", "3", "--quiet"]
    assert main(["run", "--n-samples", str(N), "--solver", "exact", "--json", str(out), *argv]) == 0
    data = json.loads(out.read_text())
    assert data["quantum_step_on"] == "rank0"
    assert data["labels"] == expected.labels.tolist()


def test_a_local_step_with_solver_options_runs_the_solver_built_with_them(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    out = tmp_path / "out.json"
    argv = ["--max-iter", "1", "--seed", "3", "--quiet", "--json", str(out)]
    assert main(["run", "--n-samples", str(N), "--solver", "qaoa", "--shots", "64", *argv]) == 0
    data = json.loads(out.read_text())
    assert data["quantum_step_on"] == "rank0" and len(data["labels"]) == N


# -- the qpu-partition step, with a stand-in srun ------------------------------------------------
def selections(workdir):
    return [json.loads(p.read_text()) for p in sorted(Path(workdir).glob("round-*/selection.json"))]


@pytest.mark.slow
def test_baseline_sends_its_quantum_step_to_a_job_of_its_own_on_the_qpu_partition(
    capsys, monkeypatch, tmp_path, fake_srun, expected
):
    world()  # MPI starts before the run pretends to be inside a job
    monkeypatch.setenv("SLURM_JOB_ID", "7")  # so the default is qpu-partition
    out, workdir = tmp_path / "out.json", tmp_path / "run"
    argv = ["--max-iter", "2", "--threshold", "0.99", "--seed", "3", "--quiet", "--workdir", str(workdir)]
    assert main(["run", "--n-samples", str(N), "--solver", "exact", "--json", str(out), *argv]) == 0, (
        capsys.readouterr().err
    )
    data = json.loads(out.read_text())
    assert data["quantum_step_on"] == "qpu-partition"
    assert data["labels"] == expected.labels.tolist() and data["iterations"] == expected.iterations
    calls = [json.loads(line) for line in fake_srun.read_text().splitlines()]
    # one srun per round, a job of its own (the caller's SLURM_JOB_ID was not passed on) on qpu
    assert calls == [{"options": ["--partition=qpu", "--nodes=1", "--ntasks=1"], "job": None}] * 2
    assert [s["ran_on"] for s in selections(workdir)] == [{"job": "99", "partition": "qpu", "node": "q1"}] * 2


@pytest.mark.slow
def test_malleable_sends_its_quantum_step_to_the_partition_of_clustagg_srun_partitions(
    monkeypatch, tmp_path, fake_srun, expected
):
    monkeypatch.setenv("CLUSTAGG_SRUN_PARTITIONS", "cpu:qpushared")
    result = run(
        make_reference_points(N),
        mode="malleable",
        solver="exact",
        max_iter=2,
        threshold=0.99,
        seed=3,
        workdir=tmp_path / "run",
        workers=1,
        quantum_step="qpu-partition",
        quantum_delay=0.2,
    )
    assert result.quantum_step_on == "qpu-partition"
    assert result.labels.tolist() == expected.labels.tolist() and result.iterations == expected.iterations
    calls = [json.loads(line)["options"] for line in fake_srun.read_text().splitlines()]
    assert calls == [["--partition=qpushared", "--nodes=1", "--ntasks=1"]] * 2
    assert [s["ran_on"]["partition"] for s in selections(tmp_path / "run")] == ["qpushared"] * 2
    # the emulated latency is spent in the step, on the quantum side
    assert all(s["seconds"] >= 0.2 for s in selections(tmp_path / "run"))


@pytest.mark.slow
def test_baseline_sends_its_quantum_step_to_a_hyperqueue_worker(monkeypatch, tmp_path, expected):
    from hyperqueue import LocalCluster
    from hyperqueue.cluster import WorkerConfig

    server = tmp_path / "hq"
    with LocalCluster(str(server)) as cluster:
        cluster.start_worker(WorkerConfig(cores=1))
        monkeypatch.setenv("CLUSTAGG_HQ_SERVER_DIR", str(server))
        result = run(
            make_reference_points(N),
            solver="exact",
            max_iter=2,
            threshold=0.99,
            seed=3,
            workdir=tmp_path / "run",
            quantum_step="hyperqueue",
        )
    assert result.quantum_step_on == "hyperqueue"
    assert result.labels.tolist() == expected.labels.tolist() and result.iterations == expected.iterations
    assert all((tmp_path / "run" / f"round-{i:03d}" / "selection.hq.out").exists() for i in range(2))


def test_run_refuses_an_unknown_grow():
    with pytest.raises(InvalidParameterError, match="^grow must be one of 'blocking', 'async'; got 'later'$"):
        run(make_reference_points(N), mode="malleable", grow="later")
