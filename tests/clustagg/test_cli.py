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
            ["run", "--points", "missing.csv", "--solver", "qaoa", "--backend", "iqm-fake:nope"],
            "unknown IQM device 'nope' in spec 'iqm-fake:nope'",
        ),
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


SUBCOMMANDS = ["run", "workflow", "generate", "cluster", "aggregate", "score"]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_help_shows_defaults_examples_and_exit_status(capsys, command):
    code, out, _ = run_cli(capsys, command, "--help")
    assert code == 0
    examples = out.split("examples:\n", 1)[1]
    assert examples.lstrip().split("\n", 1)[0].split("python -m clustagg ", 1)[1].startswith(command)
    assert "exit status:\n  0  success" in out and "\n  2  bad input" in out
    if command in ("run", "workflow", "generate"):
        assert "(default: 80000)" in out  # --n-samples
    if command in ("run", "workflow", "aggregate"):
        assert "MWIS solver (default: anneal)" in out


def test_version(capsys):
    import importlib.metadata

    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out == f"python -m clustagg {importlib.metadata.version('bbqmis')}\n"


def small_run(capsys, tmp_path, *extra):
    return run_cli(
        capsys,
        "run",
        "--n-samples",
        "600",
        "--max-iter",
        "2",
        "--threshold",
        "1",
        "--solver",
        "exact",
        "--json",
        str(tmp_path / "r.json"),
        *extra,
    )


def test_progress_on_stderr_names_every_phase_of_every_round_and_quiet_silences_it(capsys, tmp_path):
    code, out, err = small_run(capsys, tmp_path)
    assert code == 0
    lines = err.splitlines()
    phases = [line.split(" | ")[:2] for line in lines]
    expected = [
        [f"clustagg baseline {phase}", f"round {i}/2"]
        for i in (1, 2)
        for phase in ("cluster", "quantum", "score")
    ]
    assert [p for p in phases if p[0] != "clustagg baseline done"] == expected
    result = json.loads((tmp_path / "r.json").read_text())
    assert lines[-1].startswith(
        f"clustagg baseline done | round 2/2 | silhouette {result['iterations'][-1]:.4g}"
    )
    code, quiet_out, quiet_err = small_run(capsys, tmp_path, "--quiet")
    assert code == 0 and quiet_err == ""
    quiet = json.loads((tmp_path / "r.json").read_text())
    timing = ("wall_seconds", "node_seconds", "timeline")
    assert {k: v for k, v in quiet.items() if k not in timing} == {
        k: v for k, v in result.items() if k not in timing
    }
    assert quiet_out.split(";")[:2] == out.split(";")[:2]


def test_plot_draws_the_chosen_clustering(capsys, tmp_path):
    from matplotlib import colormaps
    from matplotlib.image import imread

    code, _, _ = small_run(capsys, tmp_path, "--quiet", "--plot", str(tmp_path / "c.png"))
    assert code == 0
    result = json.loads((tmp_path / "r.json").read_text())
    k = len(set(result["labels"]))
    assert k == len(result["chosen_clusters"]) and 2 <= k <= 10
    pixels = imread(tmp_path / "c.png")[..., :3].reshape(-1, 3)
    palette = np.array(colormaps["tab10"].colors)
    drawn = {
        i for i, colour in enumerate(palette) if np.sum(np.abs(pixels - colour).max(axis=1) < 0.02) >= 10
    }
    expected = {min(10 * j // (k - 1), 9) for j in range(k)}  # labels 0..k-1 spread over tab10
    assert len(expected) == k and expected <= drawn
    assert drawn - expected <= {7}  # tab10's grey is also the anti-aliased black of the text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--json", "no/such/dir/r.json"], "--json no/such/dir/r.json: folder no/such/dir does not exist"),
        (["--plot", "c.bmpx"], "--plot c.bmpx: format must be one of"),
        (["--reference", "--points", "p.csv"], "--reference replays the run on the 80000 reference points"),
        (["--reference", "--mode", "workflow", "--n-samples", "80000"], "reference=True replays"),
    ],
)
def test_outputs_and_reference_are_checked_before_any_work(capsys, monkeypatch, argv, message):
    monkeypatch.setattr("clustagg.cli.make_reference_points", lambda n: pytest.fail("points were made"))
    code, out, err = run_cli(capsys, "run", *argv)
    assert code == 2 and err.count("\n") == 1 and message in err and out == ""


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["generate", "--out", "no/such/dir/p.npy"],
            "--out no/such/dir/p.npy: folder no/such/dir does not exist",
        ),
        (["generate", "--out", "."], "--out .: is a directory"),
    ],
)
def test_generate_checks_its_output_before_any_work(capsys, monkeypatch, tmp_path, argv, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("clustagg.cli.make_reference_points", lambda n: pytest.fail("points were made"))
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and message in err and out == ""


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (
            RuntimeError("disk on fire"),
            1,
            "python -m clustagg run: internal error: RuntimeError: disk on fire",
        ),
        (KeyboardInterrupt(), 130, "python -m clustagg run: interrupted"),
    ],
)
def test_exit_status_of_failures(capsys, monkeypatch, raised, code, message):
    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr("clustagg.cli.run", fail)
    got, _, err = run_cli(capsys, "run", "--n-samples", "50", "--quiet")
    assert got == code and err == message + "\n"


def test_the_console_script_and_the_module_report_their_own_names(monkeypatch, capsys):
    import importlib.metadata
    import sys

    from clustagg.cli import main as clustagg_main

    version = importlib.metadata.version("bbqmis")
    for argv0, prog in (
        ("/usr/local/bin/clustagg", "clustagg"),
        ("/x/clustagg/__main__.py", "python -m clustagg"),
    ):
        monkeypatch.setattr(sys, "argv", [argv0])
        assert clustagg_main(["--version"]) == 0
        assert capsys.readouterr().out == f"{prog} {version}\n"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", ["run", "cluster"])
def test_points_with_many_duplicates_give_one_line_per_degenerate_clustering(tmp_path, command):
    # scikit-learn's ConvergenceWarning (two lines: message and source) used to reach stderr.
    points = tmp_path / "points.csv"
    np.savetxt(points, np.repeat([[0.0, 0.0], [5.0, 5.0], [9.0, 1.0]], 10, axis=0), delimiter=",")
    argv = {
        "run": ["run", "--points", points, "--max-iter", "2", "--quiet"],
        "cluster": ["cluster", "--points", points, "--seed", "0", "--out", tmp_path / "c.npz"],
    }[command]
    done = subprocess.run(
        [sys.executable, "-m", "clustagg", *map(str, argv)], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(
        line.startswith("clustagg.clusterers: kmeans: Number of distinct clusters (3) found smaller than")
        for line in lines
    ), done.stderr
    assert "Warning" not in done.stderr
    if command == "run":
        assert done.stdout.startswith("baseline: silhouette 0.667 at round 1")
    else:
        from clustagg.steps import load_clusters

        candidates, _ = load_clusters(tmp_path / "c.npz", seed=0, n_samples=30)
        assert candidates.labelings.shape == (3, 30) and candidates.labelings[0].max() == 2
