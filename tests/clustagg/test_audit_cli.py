"""Audit defects 2, 5, 6, 9 and 17: the command line refuses bad input with one line, status 2."""

import json
from pathlib import Path

import numpy as np
import pytest

from clustagg.cli import main


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_refused(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.rstrip("\n").split(": error: ", 1)[1] == message


def test_run_refuses_inputs_before_any_work(capsys, tmp_path):
    big = tmp_path / "big.npy"
    np.save(big, np.random.default_rng(0).normal(size=(30, 2)) * 1e300)  # used to hang
    row = np.load(big)[0].tolist()
    assert_refused(
        capsys,
        ["run", "--points", big, "--max-iter", "1", "--quiet"],
        f"{big}: points must have values of magnitude at most 1e+150 (distances overflow beyond); "
        f"row 0 is {row}",
    )
    cplx = tmp_path / "c.npy"
    np.save(cplx, np.array([[1 + 1j, 0], [1 - 1j, 0]] * 10))
    assert_refused(
        capsys,
        ["run", "--points", cplx],
        f"{cplx}: points must be real numbers, got complex values (complex128)",
    )
    three = tmp_path / "three.csv"
    three.write_text("x\n1\n2\n3\n")
    assert_refused(
        capsys,
        ["run", "--points", three],
        f"--points {three}: 3 points; rounds ask for up to 10 clusters, so at least 10 points are needed",
    )
    npz = tmp_path / "z.npz"
    np.savez(npz, points=np.eye(20))
    assert_refused(
        capsys,
        ["run", "--points", npz],
        f"{npz}: unsupported format (binary data); "
        "points must be CSV text (x,y,... per line, optional header) or a .npy array",
    )
    assert_refused(
        capsys,
        ["run", "--n-samples", 99999999999999],
        "--n-samples must be in 10..10000000, got 99999999999999",
    )
    assert_refused(capsys, ["run", "--n-samples", 5], "--n-samples must be in 10..10000000, got 5")
    assert_refused(
        capsys,
        ["generate", "--n-samples", 99999999999999, "--out", tmp_path / "p.csv"],
        "--n-samples must be in 1..10000000, got 99999999999999",
    )
    assert_refused(
        capsys,
        ["cluster", "--points", three, "--seed", 0, "--out", tmp_path / "c.npz"],
        (f"--points {three}: 3 points; rounds ask for up to 10 clusters, so at least 10 points are needed"),
    )


def test_run_refuses_a_workdir_it_cannot_use(capsys, tmp_path):
    a_file = tmp_path / "points.csv"
    a_file.write_text("x,y\n")
    assert_refused(
        capsys,
        ["run", "--mode", "workflow", "--n-samples", 300, "--workdir", a_file],
        f"--workdir {a_file}: not a directory",
    )
    assert_refused(
        capsys,
        ["run", "--mode", "malleable", "--n-samples", 300, "--workdir", a_file / "sub"],
        f"--workdir {a_file / 'sub'}: cannot create it (Not a directory)",
    )


@pytest.fixture(scope="module")
def round_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("round")
    points = folder / "points.csv"
    assert main(["generate", "--n-samples", "300", "--out", str(points)]) == 0
    assert main(["cluster", "--points", str(points), "--seed", "0", "--out", str(folder / "c.npz")]) == 0
    sel = folder / "s.json"
    assert main(["aggregate", "--clusters", str(folder / "c.npz"), "--seed", "0", "--out", str(sel)]) == 0
    return folder


def score_argv(folder, clusters, selection):
    return [
        "score", "--points", folder / "points.csv", "--clusters", clusters, "--selection", selection,
        "--seed", 0, "--out", folder / "o.json", "--labels-out", folder / "o.npy",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        ([-1, 2], "chosen[0] must be a candidate id in 0..{last}, found -1"),
        ([1, 2, 999], "chosen[2] must be a candidate id in 0..{last}, found 999"),
        ([1.5, 2], "chosen[0] must be a candidate id in 0..{last}, found 1.5"),
        ([True, 2], "chosen[0] must be a candidate id in 0..{last}, found True"),
        ("abc", "chosen must be a list of candidate ids, found 'abc'"),
    ],
)
def test_score_refuses_chosen_ids_that_are_not_candidates(capsys, round_files, tmp_path, chosen, message):
    selection = json.loads((round_files / "s.json").read_text())
    bad = tmp_path / "sel.json"
    bad.write_text(json.dumps({**selection, "chosen": chosen}))
    last = selection["n_candidates"] - 1
    assert_refused(
        capsys, score_argv(round_files, round_files / "c.npz", bad), f"{bad}: {message.format(last=last)}"
    )


def rewrite_clusters(source, target, labelings, algorithms=None):
    with np.load(source) as data:
        np.savez(
            target,
            labelings=labelings(data["labelings"]),
            algorithms=data["algorithms"] if algorithms is None else np.array(algorithms),
            meta=data["meta"],
        )


@pytest.mark.parametrize(
    ("labelings", "algorithms", "message"),
    [
        (lambda x: x[:, :100], None, "labelings of 100 points; expected 300"),
        (
            lambda x: x[:2],
            ["kmeans", "dbscan"],
            "clusterings of kmeans, dbscan; expected kmeans, dbscan, hclust",
        ),
        (
            lambda x: x.astype(float),
            None,
            "missing or unreadable clusters file (labelings must be integers, got dtype float64)",
        ),
    ],
)
def test_score_and_aggregate_refuse_clusters_that_do_not_fit(
    capsys, round_files, tmp_path, labelings, algorithms, message
):
    bad = tmp_path / "c.npz"
    rewrite_clusters(round_files / "c.npz", bad, labelings, algorithms)
    assert_refused(capsys, score_argv(round_files, bad, round_files / "s.json"), f"{bad}: {message}")
    assert_refused(
        capsys,
        ["aggregate", "--clusters", bad, "--seed", 0, "--out", tmp_path / "s.json"],
        f"{bad}: {message}",
    )


def test_score_of_labels_far_apart_is_the_score_of_contiguous_ones(capsys, round_files, tmp_path):
    spread = tmp_path / "c.npz"
    rewrite_clusters(round_files / "c.npz", spread, lambda x: x.astype(np.int64) * 1000)
    code, out, _ = run_cli(capsys, *score_argv(round_files, round_files / "c.npz", round_files / "s.json"))
    expected = json.loads(out)["silhouette"]
    code, out, _ = run_cli(capsys, *score_argv(round_files, spread, round_files / "s.json"))
    assert code == 0 and json.loads(out)["silhouette"] == expected > 0
    assert (
        main(["aggregate", "--clusters", str(spread), "--seed", "0", "--out", str(tmp_path / "s.json")]) == 0
    )
    assert (
        json.loads(Path(tmp_path / "s.json").read_text())["chosen"]
        == json.loads((round_files / "s.json").read_text())["chosen"]
    )


@pytest.mark.timeout(60)
def test_score_refuses_previous_labels_of_other_points_in_one_line(capsys, round_files, tmp_path):
    # The check is steps.load_labels's: the command line relies on it.
    code, _, _ = run_cli(capsys, *score_argv(round_files, round_files / "c.npz", round_files / "s.json"))
    assert code == 0
    bad = tmp_path / "previous.npy"
    np.save(bad, np.zeros(100, dtype=np.int32))
    argv = [*score_argv(round_files, round_files / "c.npz", round_files / "s.json")]
    argv += ["--previous", round_files / "o.json", "--previous-labels", bad]
    argv[argv.index("--out") + 1] = tmp_path / "o.json"
    argv[argv.index("--labels-out") + 1] = tmp_path / "o.npy"
    assert_refused(capsys, argv, f"{bad}: labels of 100 points; expected 300")
    assert not (tmp_path / "o.json").exists()


@pytest.mark.timeout(60)
def test_score_refuses_a_selection_of_overlapping_clusters_in_one_line(capsys, round_files, tmp_path):
    with np.load(round_files / "c.npz") as data:
        labelings = data["labelings"]
    kmeans, dbscan = int(labelings[0, 0]), int(labelings[0].max()) + 1 + int(labelings[1, 0])
    selection = json.loads((round_files / "s.json").read_text())
    bad = tmp_path / "sel.json"
    bad.write_text(json.dumps({**selection, "chosen": [kmeans, dbscan]}))
    assert_refused(
        capsys,
        score_argv(round_files, round_files / "c.npz", bad),
        f"{bad}: chosen clusters {kmeans} and {dbscan} share point 0",
    )
