"""benchmarks/hpc_modes.py --from-json: the tables and figures of a saved run, without Slurm."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "hpc_modes.py"

pytestmark = pytest.mark.timeout(120)


def saved_run(path):
    """A saved output: progress text, then the JSON line (numbers of no particular run)."""
    cell = {"wall_s": 10.0, "node_s": 30.0}
    modes = {
        m: {"single": cell, "double": {"wall_s": 20.0, "node_s": 60.0}}
        for m in ("baseline", "malleable", "workflow")
    }
    chains = {c: {"qpu_idle_fraction": 0.5, "makespan_s": 40.0} for c in ("monolithic", "chained")}
    spread = json.loads(
        json.dumps({"modes": modes, "chains": chains}).replace("10.0", "0.5").replace("20.0", "1.0")
    )
    settings = {"n_samples": 1234, "max_iter": 2}
    line = {"modes": modes, "chains": chains, "spread": spread, "settings": settings}
    path.write_text("Part 1: ...\n" + json.dumps(line) + "\n")
    return line


def test_from_json_prints_the_run_and_saves_both_figures(tmp_path):
    line = saved_run(tmp_path / "run.txt")
    arguments = ["--from-json", str(tmp_path / "run.txt"), "--figures", str(tmp_path / "fig")]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=100
    )
    assert done.returncode == 0, done.stderr
    assert "1234 points, 2 rounds" in done.stdout  # the saved run's settings, not the defaults
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert last["modes"] == line["modes"] and last["chains"] == line["chains"]
    for name in ("hpc_modes.png", "hpc_chains.png"):
        assert (tmp_path / "fig" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_from_json_refuses_a_file_that_is_no_saved_run(tmp_path):
    (tmp_path / "run.txt").write_text("no json here\n")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--from-json", str(tmp_path / "run.txt")],
        capture_output=True, text=True, timeout=100,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"hpc_modes: --from-json {tmp_path / 'run.txt'}: not an output of this script "
        "(Expecting value: line 1 column 1 (char 0))"
    ]
