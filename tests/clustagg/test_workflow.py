import shutil
import sys

import numpy as np
import pytest

import clustagg
from clustagg import workflow
from clustagg.cli import _build_parser
from clustagg.errors import ClustAggError, InvalidParameterError
from clustagg.loop import LoopSettings
from clustagg.rounds import RoundFiles

PYTHON = [sys.executable, "-m", "clustagg"]


@pytest.fixture
def rounds(points_1000, tmp_path):
    return RoundFiles(tmp_path, points_1000, seed=10)


def parse(command):
    """The command's arguments as ``python -m clustagg`` parses them."""
    assert command[: len(PYTHON)] == PYTHON
    return _build_parser().parse_args(command[len(PYTHON) :])


def test_cluster_command(rounds):
    commands = workflow.StepCommands(rounds, "anneal", {}, LoopSettings(), processes=1)
    args = parse(commands(2, "cluster"))
    assert (args.command, args.points, args.seed, args.out) == (
        "cluster",
        rounds.points,
        12,
        rounds.outputs(2)["cluster"],
    )
    mpi = workflow.StepCommands(rounds, "anneal", {}, LoopSettings(), processes=3)(2, "cluster")
    assert mpi[:3] == ["mpiexec", "-n", "3"] and parse(mpi[3:]) == args


def test_aggregate_command_passes_solver_options_and_delay(rounds):
    options = {"backend": "aer", "max_qubits": 12}
    commands = workflow.StepCommands(rounds, "qaoa", options, LoopSettings(quantum_delay=1.5), processes=3)
    args = parse(commands(0, "quantum"))
    assert args.command == "aggregate" and args.clusters == rounds.outputs(0)["cluster"]
    assert (args.solver, args.backend, args.max_qubits, args.quantum_delay) == ("qaoa", "aer", 12, 1.5)
    assert (args.seed, args.out) == (10, rounds.outputs(0)["quantum"])


@pytest.mark.parametrize("sample_size", [None, 300])
def test_score_command_chains_the_previous_round(rounds, sample_size):
    commands = workflow.StepCommands(rounds, "exact", {}, LoopSettings(sample_size=sample_size), processes=1)
    first = parse(commands(0, "score"))
    assert first.previous is None and first.previous_labels is None
    args = parse(commands(1, "score"))
    assert (args.points, args.clusters, args.selection) == (
        rounds.points,
        rounds.outputs(1)["cluster"],
        rounds.outputs(1)["quantum"],
    )
    assert (args.out, args.labels_out) == (rounds.outputs(1)["score"], rounds.labels(1))
    assert (args.previous, args.previous_labels) == (rounds.outputs(0)["score"], rounds.labels(0))
    assert args.exact_silhouette is (sample_size is None)
    if sample_size is not None:
        assert args.sample_size == sample_size


def test_run_step_reruns_a_failed_step_once(tmp_path):
    marker = tmp_path / "failed-once"
    flaky = "import pathlib, sys; p = pathlib.Path(sys.argv[1]); ok = p.exists(); p.touch(); sys.exit(not ok)"
    workflow.run_step([sys.executable, "-c", flaky, str(marker)], "flaky")
    assert marker.exists()
    failing = "import sys; sys.exit('no luck ' + sys.argv[1])"
    with pytest.raises(ClustAggError, match="workflow step score of round 3 failed twice:\nno luck x"):
        workflow.run_step([sys.executable, "-c", failing, "x"], "score of round 3")


@pytest.mark.timeout(60)
def test_run_step_kills_and_reruns_a_step_that_hangs(tmp_path):
    marker = tmp_path / "hung-once"
    hangs_once = (
        "import pathlib, sys, time; p = pathlib.Path(sys.argv[1]); first = not p.exists(); p.touch(); "
        "time.sleep(60 if first else 0)"
    )
    workflow.run_step([sys.executable, "-c", hangs_once, str(marker)], "flaky", timeout=5)
    hangs = "import sys, time; print('waiting for resources', file=sys.stderr, flush=True); time.sleep(60)"
    with pytest.raises(
        ClustAggError,
        match="cluster of round 0 failed twice:\ntimed out after 2 s; it printed:\nwaiting for resources$",
    ):
        workflow.run_step([sys.executable, "-c", hangs], "cluster of round 0", 2)


@pytest.mark.parametrize("text", ["0", "-3", "soon", "inf"])
def test_a_bad_step_timeout_names_the_variable(text, monkeypatch):
    monkeypatch.setenv("CLUSTAGG_STEP_TIMEOUT", text)
    with pytest.raises(InvalidParameterError, match="CLUSTAGG_STEP_TIMEOUT must be a positive number"):
        workflow.step_timeout()


def test_mpiexec_is_required_for_several_cluster_processes(points_1000, tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(InvalidParameterError, match="cluster_processes=3 needs mpiexec on PATH; use 1"):
        workflow.run_workflow(points_1000, "exact", {}, 0, LoopSettings(), tmp_path, processes=3)


@pytest.mark.slow
def test_workflow_equals_baseline(points_1000, tmp_path):
    loop = LoopSettings(threshold=0.99, max_iter=1)
    result = workflow.run_workflow(points_1000, "exact", {}, 2, loop, tmp_path, processes=1)
    expected = clustagg.run(points_1000, solver="exact", seed=2, max_iter=1, threshold=0.99)
    np.testing.assert_array_equal(result.labels, expected.labels)
    assert result.iterations == expected.iterations
    assert [(r["phase"], r["nodes"]) for r in result.timeline] == [
        ("cluster", 1),
        ("quantum", 0),
        ("score", 1),
    ]


def test_malleable_cluster_step_starts_on_one_node_and_grows_to_the_cluster_processes(rounds):
    commands = workflow.StepCommands(rounds, "anneal", {}, LoopSettings(), 3, ("cpu", "qpu"), malleable=True)
    command = commands(2, "cluster")
    assert command[:4] == ["srun", "--partition=cpu", "--nodes=1", "--ntasks=1"]
    args = parse(command[4:])
    assert (args.command, args.grow_to, args.seed) == ("cluster", 3, 12)
    local = workflow.StepCommands(rounds, "anneal", {}, LoopSettings(), 3, malleable=True)(2, "cluster")
    assert local[: len(PYTHON)] == PYTHON and parse(local).grow_to == 3  # no mpiexec: it grows itself


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"CLUSTAGG_MALLEABLE_CLUSTER": "yes"}, "CLUSTAGG_MALLEABLE_CLUSTER must be 0 or 1, got 'yes'"),
        (
            {"CLUSTAGG_MALLEABLE_CLUSTER": "1", "CLUSTAGG_SRUN_HETJOB": "1"},
            "a malleable cluster step needs steps that are jobs of their own; a component of "
            "CLUSTAGG_SRUN_HETJOB=1 cannot grow",
        ),
    ],
)
def test_a_bad_malleable_cluster_setting_names_the_variable(environ, message, monkeypatch):
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(InvalidParameterError) as error:
        workflow.malleable_cluster()
    assert str(error.value) == message


def test_run_local_keeps_what_a_step_printed_in_its_log(tmp_path):
    code = "import sys; print('grown to 3 node(s)', file=sys.stderr)"
    assert workflow.run_local([sys.executable, "-c", code], log=tmp_path / "round" / "cluster.log") is None
    assert (tmp_path / "round" / "cluster.log").read_text() == "grown to 3 node(s)\n"


@pytest.mark.parametrize("by", ["environment", "argument"])
def test_malleable_cluster_workflow_outside_slurm_equals_the_one_process_run(
    points_1000, tmp_path, monkeypatch, by
):
    # outside Slurm the step has no node to add: it clusters alone, with the same labels
    for name in ("SLURM_JOB_ID", "CLUSTAGG_SRUN_PARTITIONS", "CLUSTAGG_SRUN_HETJOB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("CLUSTAGG_MALLEABLE_CLUSTER", raising=False)
    if by == "environment":
        monkeypatch.setenv("CLUSTAGG_MALLEABLE_CLUSTER", "1")
    flag = {"malleable_cluster": True} if by == "argument" else {}
    monkeypatch.setattr(shutil, "which", lambda name: None)  # no mpiexec needed
    result = clustagg.run(points_1000, "workflow", "exact", 3, max_iter=1, workdir=tmp_path / "wf", **flag)
    expected = clustagg.run(points_1000, "baseline", "exact", 3, max_iter=1)
    assert result.labels.tolist() == expected.labels.tolist()
    assert (tmp_path / "wf" / "round-000" / "cluster.log").exists()
    _, meta = clustagg.steps.load_clusters(tmp_path / "wf" / "round-000" / "clusters.npz", seed=3)
    assert meta["processes"] == 1
