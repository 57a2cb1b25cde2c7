import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bbqmis.coloring.cli import main

MYCIEL3 = "data/graphs/myciel3.col"
MYCIEL4 = "data/graphs/myciel4.col"


def run_module(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "bbqmis", *args], capture_output=True, text=True, timeout=300, **kwargs
    )


def test_default_qaoa_run_proves_myciel3(tmp_path, capsys):
    out = tmp_path / "result.json"
    assert main([MYCIEL3, "--exact-share", "0", "--seed", "1", "--json", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "optimal      yes" in printed and "qaoa on aer" in printed
    data = json.loads(out.read_text())
    assert set(data) == {"coloring", "num_colors", "lower_bound", "optimal", "stopped", "stats"}
    assert data["num_colors"] == 4 and data["optimal"] is True
    assert data["stats"]["sampler"]["circuits"] >= 1
    assert sorted(map(int, data["coloring"])) == list(range(1, 12))
    edges = [tuple(map(int, line.split()[1:])) for line in open(MYCIEL3) if line.startswith("e ")]
    assert all(data["coloring"][str(u)] != data["coloring"][str(v)] for u, v in edges)


def test_progress_line_is_printed(capsys):
    assert main([MYCIEL4, "--sampler", "exact", "--exact-share", "0"]) == 0
    err = capsys.readouterr().err
    assert "nodes" in err and "colours" in err and "bound" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.col"], "bbqmis: error: [Errno 2] No such file or directory: 'missing.col'"),
        ([MYCIEL3, "--backend", "nowhere"], "bbqmis: error: unknown backend spec 'nowhere'"),
        ([MYCIEL3, "--resume"], "bbqmis: error: --resume needs --checkpoint FILE"),
        ([MYCIEL3, "--shots", "0"], "bbqmis: error: shots must be a positive integer, got 0"),
    ],
)
def test_bad_input_exits_2_with_one_line(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err


def test_graph_format_error_names_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.col"
    bad.write_text("p edge 3 1\ne 1 4\n")
    assert main([str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"bbqmis: error: {bad}:2:")


def test_help_has_examples():
    result = run_module("--help")
    assert result.returncode == 0 and "examples:" in result.stdout and "mpiexec -n 3" in result.stdout


@pytest.mark.slow
@pytest.mark.mpi
def test_mpi_run_matches_the_serial_run(tmp_path):
    serial, parallel = tmp_path / "serial.json", tmp_path / "mpi.json"
    assert run_module(MYCIEL4, "--sampler", "exact", "--json", str(serial), "--quiet").returncode == 0
    result = subprocess.run(
        [
            "mpiexec",
            "-n",
            "3",
            sys.executable,
            "-m",
            "bbqmis",
            MYCIEL4,
            "--sampler",
            "exact",
            "--json",
            str(parallel),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    a, b = json.loads(serial.read_text()), json.loads(parallel.read_text())
    assert a["num_colors"] == b["num_colors"] == 5 and b["optimal"]


@pytest.mark.slow
def test_killed_run_resumes_without_losing_the_incumbent(tmp_path):
    checkpoint, out = tmp_path / "run.ckpt", tmp_path / "result.json"
    # Sleeping 3 x the quantum time after each circuit makes the search slow enough to kill.
    args = [
        MYCIEL4,
        "--exact-share",
        "0",
        "--seed",
        "2",
        "--sleep-factor",
        "3",
        "--checkpoint",
        str(checkpoint),
        "--checkpoint-interval",
        "0.2",
        "--quiet",
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "bbqmis", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 240
    state = None
    while time.monotonic() < deadline:
        if checkpoint.exists():
            search = json.loads(checkpoint.read_text())["search"]
            state = search and search["tree"]
            if state and state["stats"].get("nodes_explored", 0) >= 3:
                break
        assert process.poll() is None, "the run finished before it could be killed; slow it down"
        time.sleep(0.1)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert state is not None and state["open"], "no checkpoint with open nodes was written"
    resumed = run_module(*args, "--resume", "--json", str(out))
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(out.read_text())
    assert data["num_colors"] == 5 and data["optimal"]
    assert data["stats"]["nodes_explored"] > state["stats"]["nodes_explored"]
    assert data["stats"]["incumbents"][: len(state["incumbents"])] == state["incumbents"]


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["aer:noisy-adonis", "iqm-fake:adonis"])
def test_noisy_and_fake_device_backends_run_unchanged(backend, tmp_path, capsys):
    out = tmp_path / "result.json"
    assert (
        main(
            [
                MYCIEL3,
                "--exact-share",
                "0",
                "--backend",
                backend,
                "--shots",
                "256",
                "--seed",
                "3",
                "--json",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    assert f"qaoa on {backend}" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["num_colors"] == 4 and data["optimal"] is True
    assert data["stats"]["sampler"]["circuits"] >= 1 and data["stats"]["sampler"]["quantum_seconds"] > 0


def test_an_unwritable_output_is_refused_before_any_search(tmp_path, capsys):
    assert main([MYCIEL3, "--json", str(tmp_path / "missing" / "out.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bbqmis: error: --json ") and "cannot write there" in err and "\n" not in err


def test_a_closed_stdout_pipe_keeps_the_json_result(tmp_path):
    out = tmp_path / "result.json"
    command = f"{sys.executable} -m bbqmis {MYCIEL3} --quiet --json {out} | head -1"
    completed = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120
    )
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    assert json.loads(out.read_text())["optimal"] is True
