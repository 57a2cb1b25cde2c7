import json
import subprocess
import sys

import numpy as np
import pytest

from clustagg.cli import main


def run_cli(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--points", "missing.csv"], "missing.csv: cannot read points"),
        (["run", "--max-iter", "0", "--n-samples", "100"], "max_iter must be a positive integer, got 0"),
        (["run", "--n-samples", "100", "--backend", "aer"], "--backend does not apply to --solver anneal"),
        (["run", "--mode", "elastic"], "argument --mode: invalid choice: 'elastic'"),
        (["run", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (
            ["aggregate", "--clusters", "none.npz", "--seed", "0", "--out", "s.json"],
            "none.npz: missing or unreadable",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and message in err
    assert out == ""


def test_bad_csv_line(capsys, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("x,y\n1,2\n3,4\n5;6\n")
    code, _, err = run_cli(capsys, "run", "--points", str(path))
    assert code == 2
    assert err.strip().endswith(f"{path}, line 4: expected numbers, got '5;6'")


def test_help_has_examples(capsys):
    code, out, _ = run_cli(capsys, "run", "--help")
    assert code == 0 and "examples:" in out and "mpiexec -n 3 python -m clustagg" in out


def test_run_writes_json_and_plot(capsys, tmp_path):
    code, out, _ = run_cli(
        capsys,
        "run",
        "--n-samples",
        "800",
        "--max-iter",
        "1",
        "--solver",
        "exact",
        "--json",
        str(tmp_path / "r.json"),
        "--plot",
        str(tmp_path / "r.png"),
    )
    assert code == 0 and out.startswith("baseline: silhouette")
    data = json.loads((tmp_path / "r.json").read_text())
    assert {"labels", "silhouette", "chosen_clusters", "iterations", "wall_seconds", "node_seconds"} <= set(
        data
    )
    assert len(data["labels"]) == 800
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"


def test_steps_on_files(capsys, tmp_path):
    points = tmp_path / "points.csv"
    assert run_cli(capsys, "generate", "--n-samples", "600", "--out", str(points))[0] == 0
    files = {name: str(tmp_path / name) for name in ("c.npz", "s.json", "score.json", "labels.npy")}
    assert run_cli(capsys, "cluster", "--points", str(points), "--seed", "4", "--out", files["c.npz"])[0] == 0
    assert (
        run_cli(capsys, "aggregate", "--clusters", files["c.npz"], "--seed", "4", "--out", files["s.json"])[0]
        == 0
    )
    # a step refuses inputs of another round
    code, _, err = run_cli(
        capsys, "aggregate", "--clusters", files["c.npz"], "--seed", "5", "--out", files["s.json"]
    )
    assert code == 2 and "clusters of seed 4" in err
    code, out, _ = run_cli(
        capsys,
        "score",
        "--points",
        str(points),
        "--clusters",
        files["c.npz"],
        "--selection",
        files["s.json"],
        "--seed",
        "4",
        "--out",
        files["score.json"],
        "--labels-out",
        files["labels.npy"],
    )
    assert code == 0 and json.loads(out)["rounds"] == 1
    assert np.load(files["labels.npy"]).shape == (600,)


@pytest.mark.slow
def test_process_exit_status_is_2():
    done = subprocess.run(
        [sys.executable, "-m", "clustagg", "run", "--threshold", "5", "--n-samples", "50"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "python -m clustagg run: error: threshold must be a number in (-1, 1], got 5.0"
    )
