import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import clustagg
from clustagg.errors import InvalidParameterError

RESULT_KEYS = {"labels", "silhouette", "chosen_clusters", "iterations", "wall_seconds", "node_seconds"}


def test_baseline_serial_result(points_1000):
    result = clustagg.run(points_1000, solver="exact", seed=2, max_iter=2, threshold=0.99)
    assert result.labels.shape == (1000,)
    assert len(result.iterations) == 2
    assert result.silhouette == max(result.iterations)
    assert result.iterations[result.best_iteration] == result.silhouette
    assert {c["algorithm"] for c in result.chosen_clusters} <= set(clustagg.ALGORITHMS)
    assert len(np.unique(result.labels)) == len(result.chosen_clusters)
    data = result.to_json()
    assert RESULT_KEYS <= set(data) and len(data["labels"]) == 1000
    # one process holds one node for the whole run
    assert result.node_seconds == pytest.approx(result.wall_seconds)
    assert [r["phase"] for r in result.timeline] == ["cluster", "quantum", "score"] * 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mode": "elastic"}, "mode must be one of 'baseline', 'malleable', 'workflow'; got 'elastic'"),
        ({"seed": -1}, "seed must be an integer >= 0, got -1"),
        ({"threshold": 2}, r"threshold must be a number in \(-1, 1\], got 2"),
        ({"max_iter": 0}, "max_iter must be a positive integer, got 0"),
        ({"quantum_delay": -1.0}, "quantum_delay must be a finite number >= 0, got -1.0"),
        ({"mode": "workflow", "solver": lambda p, seed: p}, "takes a solver name, not a callable"),
    ],
)
def test_run_rejects_bad_parameters(points_1000, kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        clustagg.run(points_1000, **kwargs)


def test_reference_like_run_rises_above_threshold(points_3000):
    # At 3,000 points, seed 11 plays the reference run's part: 0.675, 0.687, 0.560, then a
    # 6-cluster aggregate (DBSCAN + single linkage, close blobs merged) at 0.814 in round 4.
    result = clustagg.run(points_3000, seed=11)
    assert len(result.iterations) == 4
    assert max(result.iterations[:3]) <= 0.8 < result.iterations[3]
    assert result.best_iteration == 3 and len(result.chosen_clusters) == 6


@pytest.mark.slow
def test_modes_give_the_same_labels(points_3000, tmp_path):
    kwargs = {"seed": 0, "max_iter": 2, "quantum_delay": 0.2}
    baseline = clustagg.run(points_3000, "baseline", **kwargs)
    malleable = clustagg.run(points_3000, "malleable", workdir=tmp_path / "m", **kwargs)
    # The workflow (three processes a round) does one round here: tests/clustagg/test_hq.py checks
    # two rounds of it against the one-process run.
    kwargs["max_iter"] = 1
    workflow = clustagg.run(points_3000, "workflow", workdir=tmp_path / "w", cluster_processes=1, **kwargs)
    one_round = clustagg.run(points_3000, "baseline", **kwargs)
    assert one_round.iterations == baseline.iterations[:1]
    for other, expected in ((malleable, baseline), (workflow, one_round)):
        np.testing.assert_array_equal(other.labels, expected.labels)
        assert other.iterations == expected.iterations
        assert other.chosen_clusters == expected.chosen_clusters
    # malleable: rank 0 all along plus two workers while clustering; workflow: no node in the quantum step
    cluster = sum(r["end"] - r["start"] for r in malleable.timeline if r["phase"] == "cluster")
    assert malleable.node_seconds == pytest.approx(malleable.wall_seconds + 2 * cluster)
    assert {(r["phase"], r["nodes"]) for r in workflow.timeline} == {
        ("cluster", 1),
        ("quantum", 0),
        ("score", 1),
    }
    quantum = [r["end"] - r["start"] for r in workflow.timeline if r["phase"] == "quantum"]
    assert min(quantum) >= 0.2
    assert workflow.node_seconds == pytest.approx(
        sum(r["nodes"] * (r["end"] - r["start"]) for r in workflow.timeline)
    )
    # the malleable checkpoint names the last phase done
    assert (tmp_path / "m" / "checkpoint.json").read_text().count('"phase": "score"') == 1


@pytest.mark.slow
def test_workflow_recovers_from_a_killed_step(points_3000, tmp_path):
    workdir = tmp_path / "wf"
    command = [
        sys.executable, "-m", "clustagg", "workflow", "--n-samples", "3000", "--max-iter", "1",
        "--cluster-processes", "1", "--quantum-delay", "60", "--workdir", str(workdir),
    ]  # fmt: skip
    runner = subprocess.Popen(command, start_new_session=True)
    deadline = time.monotonic() + 120
    while not (workdir / "round-000" / "clusters.npz").exists():  # then comes the 60 s quantum step
        assert runner.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    os.killpg(runner.pid, signal.SIGKILL)  # kill the runner and its quantum step mid-step
    runner.wait()
    assert not (workdir / "round-000" / "selection.json").exists()
    # Rerun: the cluster output is reused, the killed quantum step reruns (now without delay).
    first = clustagg.run(points_3000, "workflow", workdir=workdir, max_iter=1, cluster_processes=1)
    assert [r["phase"] for r in first.timeline] == ["quantum", "score"]
    # Truncate a finished output and drop the one after it: both are redone, nothing else.
    (workdir / "round-000" / "selection.json").write_text('{"seed": ')
    (workdir / "round-000" / "score.json").unlink()
    second = clustagg.run(points_3000, "workflow", workdir=workdir, max_iter=1, cluster_processes=1)
    assert [r["phase"] for r in second.timeline] == ["quantum", "score"]
    expected = clustagg.run(points_3000, seed=0, max_iter=1)
    for result in (first, second):
        np.testing.assert_array_equal(result.labels, expected.labels)
        assert result.iterations == expected.iterations


@pytest.mark.slow
@pytest.mark.mpi
@pytest.mark.requires("mpiexec")
def test_mpi_baseline_matches_serial(points_3000, tmp_path):
    out = tmp_path / "mpi.json"
    done = subprocess.run(
        [
            "mpiexec",
            "-n",
            "3",
            sys.executable,
            "-m",
            "clustagg",
            "run",
            "--n-samples",
            "3000",
            "--max-iter",
            "2",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    mpi = json.loads(out.read_text())
    serial = clustagg.run(points_3000, seed=0, max_iter=2)
    np.testing.assert_array_equal(mpi["labels"], serial.labels)
    assert mpi["iterations"] == serial.iterations
    # three ranks held for the whole run
    assert mpi["node_seconds"] == pytest.approx(3 * mpi["wall_seconds"])
    assert {r["nodes"] for r in mpi["timeline"]} == {3}


def test_workdir_of_other_points_is_refused(points_1000, tmp_path):
    np.save(tmp_path / "points.npy", points_1000[:500])
    with pytest.raises(clustagg.StepInputError, match="holds the files of other points"):
        clustagg.run(points_1000, "workflow", workdir=tmp_path)
