"""Smoke test of ``benchmarks/robustness.py``: a small, fixed sample of every part, soak included."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "robustness.py"


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_small_robustness_run_finds_nothing(tmp_path):
    # --max-inputs fixes the sample (60 reads, 6 CLI runs, 6 resumed checkpoints) whatever the
    # machine's speed; the budget only bounds the time.
    command = [sys.executable, str(SCRIPT), "--budget", "120", "--max-inputs", "6", "--seed", "0"]
    command += ["--soak-clients", "2", "--soak-batches", "20", "--soak-kills", "1", "--out", str(tmp_path)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=380)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    report = json.loads(lines[-1])
    assert report["inputs"] > 0
    assert report["tracebacks"] == report["hangs"] == report["wrong_answers"] == 0, result.stdout[-3000:]
    soak = report["soak"]
    assert (soak["clients"], soak["batches"], soak["kills"]) == (2, 20, 1)
    assert soak["lost"] == soak["duplicated"] == 0, result.stdout[-3000:]
    assert lines[0].split()[:2] == ["category", "tried"]  # the table comes first
    tried = {}  # inputs per part, summed over the table's categories ("parser dimacs", "cli json", ...)
    for cells in (line.split() for line in lines[1:]):
        if cells and cells[0] in ("parser", "cli", "checkpoint"):
            tried[cells[0]] = tried.get(cells[0], 0) + int(cells[2])
    assert tried.keys() == {"parser", "cli", "checkpoint"} and min(tried.values()) > 0, tried
