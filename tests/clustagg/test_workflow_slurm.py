"""The workflow's steps as Slurm jobs or job steps: command lines, CLUSTAGG_SRUN_PARTITIONS and _HETJOB."""

import pytest

from clustagg.errors import InvalidParameterError
from clustagg.loop import LoopSettings
from clustagg.rounds import RoundFiles
from clustagg.workflow import StepCommands, srun_hetjob, srun_partitions


@pytest.fixture
def commands(tmp_path, points_1000):
    rounds = RoundFiles(tmp_path, points_1000, seed=10)
    return StepCommands(rounds, "exact", {}, LoopSettings(max_iter=2), 3, ("cpu", "qpu"))


def test_each_step_is_an_srun_on_its_partition(commands):
    cluster, quantum, score = (commands(0, phase) for phase in ("cluster", "quantum", "score"))
    assert cluster[:4] == ["srun", "--partition=cpu", "--nodes=3", "--ntasks=3"]
    assert "mpiexec" not in cluster  # the MPI ranks are Slurm's tasks
    assert quantum[:4] == ["srun", "--partition=qpu", "--nodes=1", "--ntasks=1"]
    assert score[:4] == ["srun", "--partition=cpu", "--nodes=1", "--ntasks=1"]
    assert [c[c.index("--seed") + 1] for c in (cluster, quantum, score)] == ["10", "10", "10"]


def test_without_partitions_the_steps_are_local(tmp_path, points_1000):
    local = StepCommands(RoundFiles(tmp_path, points_1000, seed=10), "exact", {}, LoopSettings(), 3)
    assert local(0, "cluster")[:3] == ["mpiexec", "-n", "3"]
    assert "srun" not in local(0, "quantum") + local(0, "score")


def test_partitions_come_from_the_environment(monkeypatch):
    monkeypatch.delenv("CLUSTAGG_SRUN_PARTITIONS", raising=False)
    assert srun_partitions() is None
    monkeypatch.setenv("CLUSTAGG_SRUN_PARTITIONS", "batch:quantum")
    assert srun_partitions() == ("batch", "quantum")


@pytest.mark.parametrize("value", ["cpu", "cpu:", ":qpu", "a:b:c"])
def test_malformed_partitions_are_refused_with_the_value(monkeypatch, value):
    monkeypatch.setenv("CLUSTAGG_SRUN_PARTITIONS", value)
    with pytest.raises(
        InvalidParameterError,
        match=f"CLUSTAGG_SRUN_PARTITIONS must be CPU_PARTITION:QPU_PARTITION.*{value!r}",
    ):
        srun_partitions()


def test_in_a_heterogeneous_job_each_step_runs_on_its_component(tmp_path, points_1000):
    rounds = RoundFiles(tmp_path, points_1000, seed=10)
    commands = StepCommands(rounds, "exact", {}, LoopSettings(), 3, hetjob=True)
    cluster, quantum, score = (commands(0, phase) for phase in ("cluster", "quantum", "score"))
    assert cluster[:4] == ["srun", "--het-group=0", "--nodes=3", "--ntasks=3"]
    assert "mpiexec" not in cluster
    assert quantum[:4] == ["srun", "--het-group=1", "--nodes=1", "--ntasks=1"]
    assert score[:4] == ["srun", "--het-group=0", "--nodes=1", "--ntasks=1"]


@pytest.mark.parametrize(("value", "expected"), [("0", False), ("1", True)])
def test_hetjob_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.delenv("CLUSTAGG_SRUN_PARTITIONS", raising=False)
    monkeypatch.setenv("CLUSTAGG_SRUN_HETJOB", value)
    assert srun_hetjob() is expected


def test_hetjob_and_partitions_exclude_each_other_and_bad_values_are_named(monkeypatch):
    monkeypatch.setenv("CLUSTAGG_SRUN_HETJOB", "yes")
    with pytest.raises(InvalidParameterError, match="CLUSTAGG_SRUN_HETJOB must be 0 or 1, got 'yes'"):
        srun_hetjob()
    monkeypatch.setenv("CLUSTAGG_SRUN_HETJOB", "1")
    monkeypatch.setenv("CLUSTAGG_SRUN_PARTITIONS", "cpu:qpu")
    with pytest.raises(InvalidParameterError, match="exclude each other"):
        srun_hetjob()
