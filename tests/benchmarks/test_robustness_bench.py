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
    # --max-inputs fixes the sample (120 reads, 12 CLI runs, 12 resumed checkpoints) whatever the
    # machine's speed; the budget only bounds the time.
    command = [sys.executable, str(SCRIPT), "--budget", "120", "--max-inputs", "12", "--seed", "0"]
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
