import json

import numpy as np
import pytest

from clustagg import steps
from clustagg.errors import StepInputError
from clustagg.loop import LoopSettings
from clustagg.rounds import PHASES, RoundFiles
from clustagg.solvers import ExactSolver
from clustagg.timeline import Timeline


def executors(rounds, X, calls):
    """In-process phases writing real outputs, recording each call as (phase, round)."""

    def cluster(i):
        calls.append(("cluster", i))
        steps.cluster_file(X, rounds.seed + i, rounds.outputs(i)["cluster"])

    def quantum(i):
        calls.append(("quantum", i))
        out = rounds.outputs(i)
        steps.aggregate_file(out["cluster"], rounds.seed + i, out["quantum"], ExactSolver())

    def score(i):
        calls.append(("score", i))
        out = rounds.outputs(i)
        steps.score_file(
            X,
            out["cluster"],
            out["quantum"],
            rounds.seed + i,
            out["score"],
            rounds.labels(i),
            **rounds.previous(i),
        )

    return {"cluster": cluster, "quantum": quantum, "score": score}


NODES = {"cluster": 3, "quantum": 0, "score": 1}


def test_layout(points_1000, tmp_path):
    rounds = RoundFiles(tmp_path / "run", points_1000, seed=5)
    np.testing.assert_array_equal(np.load(tmp_path / "run" / "points.npy"), points_1000)
    assert rounds.outputs(2) == {
        "cluster": tmp_path / "run" / "round-002" / "clusters.npz",
        "quantum": tmp_path / "run" / "round-002" / "selection.json",
        "score": tmp_path / "run" / "round-002" / "score.json",
    }
    assert rounds.previous(0) == {}
    assert rounds.previous(3) == {
        "previous": tmp_path / "run" / "round-002" / "score.json",
        "previous_labels": tmp_path / "run" / "round-002" / "labels.npy",
    }
    RoundFiles(tmp_path / "run", points_1000.copy(), seed=5)  # the same points: accepted


def test_other_points_are_refused(points_1000, tmp_path):
    RoundFiles(tmp_path, points_1000, seed=0)
    with pytest.raises(StepInputError, match="holds the files of other points"):
        RoundFiles(tmp_path, points_1000[:-1], seed=0)


def test_run_writes_every_phase_and_resumes_what_is_missing(points_1000, tmp_path):
    X, calls = points_1000, []
    rounds = RoundFiles(tmp_path, X, seed=2)
    snapshots = []
    loop = LoopSettings(threshold=0.99, max_iter=2, progress=snapshots.append)
    first = rounds.run(Timeline(floor=0), loop, executors(rounds, X, calls), NODES, "test")
    assert calls == [(phase, i) for i in range(2) for phase in PHASES]
    # Progress: each phase as it starts, with the scores so far, then the end.
    assert [(s["phase"], s["round"]) for s in snapshots] == [
        *((phase, f"{i + 1}/2") for i in range(2) for phase in PHASES),
        ("done", "2/2"),
    ]
    assert snapshots[0]["best"] is None and snapshots[3]["silhouette"] == first.iterations[0]
    assert snapshots[-1]["best"] == first.silhouette
    assert [(r["phase"], r["nodes"]) for r in first.timeline] == [(p, NODES[p]) for p in PHASES] * 2
    assert all(rounds.done(i, phase) for i in range(2) for phase in PHASES)
    assert json.loads((tmp_path / "checkpoint.json").read_text()) == {
        "iteration": 1,
        "phase": "score",
        "seed": 2,
    }
    assert first.mode == "test" and len(first.iterations) == 2

    # A truncated output and the one after it are redone; nothing else is.
    out = rounds.outputs(1)
    out["quantum"].write_text('{"seed": ')
    out["score"].unlink()
    assert not rounds.done(1, "quantum") and rounds.done(1, "cluster")
    calls.clear()
    snapshots.clear()
    second = rounds.run(Timeline(floor=0), loop, executors(rounds, X, calls), NODES, "test")
    assert calls == [("quantum", 1), ("score", 1)]
    assert [s["phase"] for s in snapshots] == ["quantum", "score", "done"]  # skipped phases are not shown
    np.testing.assert_array_equal(second.labels, first.labels)
    assert second.iterations == first.iterations


def test_run_stops_above_the_threshold_and_outputs_of_another_seed_are_redone(points_1000, tmp_path):
    X, calls = points_1000, []
    rounds = RoundFiles(tmp_path, X, seed=2)
    loop = LoopSettings(threshold=-0.99, max_iter=3)
    result = rounds.run(Timeline(floor=0), loop, executors(rounds, X, calls), NODES, "test")
    assert len(result.iterations) == 1 and [c[1] for c in calls] == [0, 0, 0]
    other = RoundFiles(tmp_path, X, seed=3)  # same directory, another run seed
    assert not any(other.done(0, phase) for phase in PHASES)
    calls.clear()
    other.run(Timeline(floor=0), loop, executors(other, X, calls), NODES, "test")
    assert calls == [(phase, 0) for phase in PHASES]
