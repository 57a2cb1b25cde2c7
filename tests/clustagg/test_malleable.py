import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import clustagg
from clustagg import malleable, steps
from clustagg.errors import ClustAggError, InvalidParameterError
from clustagg.loop import LoopSettings
from clustagg.rounds import RoundFiles
from clustagg.solvers import ExactSolver


def test_quantum_and_score_phases_equal_the_steps(points_1000, tmp_path):
    rounds = RoundFiles(tmp_path, points_1000, seed=1)
    steps.cluster_file(points_1000, 1, rounds.outputs(0)["cluster"])  # as the spawned phase would
    phases = malleable.MalleablePhases(
        points_1000, ExactSolver(), LoopSettings(sample_size=None), rounds, workers=2
    )
    phases.quantum(0)
    phases.score(0)
    candidates = steps.cluster(points_1000, 1)
    selection = steps.aggregate(candidates, ExactSolver(), 1)
    labels, silhouette = steps.score_round(points_1000, candidates, selection, sample_size=None)
    assert steps.load_json(rounds.outputs(0)["quantum"], seed=1)["chosen"] == selection["chosen"]
    assert rounds.state(0).iterations == [pytest.approx(silhouette)]
    np.testing.assert_array_equal(steps.load_labels(rounds.labels(0)), labels)


def test_more_than_one_process_is_refused(points_1000, tmp_path, monkeypatch):
    monkeypatch.setattr(malleable, "world", lambda: SimpleNamespace(size=3))
    with pytest.raises(
        InvalidParameterError, match="starts on one process and spawns its workers; got 3 processes"
    ):
        malleable.run_malleable(points_1000, ExactSolver(), 0, LoopSettings(), tmp_path, workers=2)
    assert not (tmp_path / "points.npy").exists()


def path_without_mpiexec():
    """The PATH folders that hold no mpiexec (python itself is started by its full path)."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(f for f in folders if f and not (Path(f) / "mpiexec").exists())


def test_without_mpiexec_the_run_is_refused_before_anything(points_1000, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", path_without_mpiexec())
    for variable in ("PMI_RANK", "PMI_FD", "PMI_PORT", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ClustAggError, match="needs mpiexec on PATH"):
        malleable.run_malleable(points_1000, ExactSolver(), 0, LoopSettings(), tmp_path, workers=2)
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_without_mpiexec_fails_fast_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PMI", "OMPI_"))}
    env["PATH"] = path_without_mpiexec()
    command = [sys.executable, "-m", "clustagg", "run", "--mode", "malleable", "--n-samples", "200"]
    start = time.monotonic()
    done = subprocess.run(
        [*command, "--workdir", str(tmp_path / "run")], env=env, capture_output=True, text=True, timeout=120
    )
    assert time.monotonic() - start < 60
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("python -m clustagg run: error: mode='malleable' spawns its workers")
    assert "no mpiexec was found on PATH" in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.requires("mpiexec")
def test_malleable_spawns_workers_and_resumes_from_its_checkpoint(points_1000, tmp_path):
    loop = LoopSettings(threshold=0.99, max_iter=1)
    result = malleable.run_malleable(points_1000, ExactSolver(), 0, loop, tmp_path, workers=1)
    expected = clustagg.run(points_1000, solver="exact", seed=0, max_iter=1, threshold=0.99)
    np.testing.assert_array_equal(result.labels, expected.labels)
    assert result.iterations == expected.iterations
    assert [(r["phase"], r["nodes"]) for r in result.timeline] == [
        ("cluster", 2),
        ("quantum", 1),
        ("score", 1),
    ]
    assert json.loads((tmp_path / "checkpoint.json").read_text()) == {
        "iteration": 0,
        "phase": "score",
        "seed": 0,
    }
    again = malleable.run_malleable(points_1000, ExactSolver(), 0, loop, tmp_path, workers=1)
    assert again.timeline == []  # every phase is on disk: nothing runs, nothing is spawned
    np.testing.assert_array_equal(again.labels, result.labels)


@pytest.mark.parametrize("value", ["abc", "0", "-5", "inf"])
def test_a_bad_grow_timeout_is_refused_in_one_line(monkeypatch, value):
    monkeypatch.setenv("SLURM_JOB_ID", "1")
    monkeypatch.setenv("CLUSTAGG_GROW_TIMEOUT", value)
    with pytest.raises(InvalidParameterError) as error:
        malleable.slurm_allocation()
    assert str(error.value) == f"CLUSTAGG_GROW_TIMEOUT must be a positive number of seconds, got {value!r}"
