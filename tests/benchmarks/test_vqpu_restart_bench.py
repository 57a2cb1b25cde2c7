"""Smoke test of ``vqpu_restart.py``: the ledger summed by SQLite against every batch read back."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "vqpu_restart.py"


@pytest.mark.timeout(120)
def test_both_ledgers_agree_and_the_table_matches_the_json():
    command = [sys.executable, str(SCRIPT), "--batches", "300", "2000", "--jobs", "150"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=100)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["jobs"] == 150
    assert [point["batches"] for point in summary["points"]] == [300, 2000]
    for point in summary["points"]:
        assert point["same"] is True
        assert point["sum_seconds"] > 0 and point["peer_seconds"] > 0
        assert point["ratio"] == pytest.approx(point["sum_seconds"] / point["peer_seconds"])
        assert point["sum_added_mb"] >= 0 and point["peer_added_mb"] >= 0
        row = [str(point["batches"]), "150", f"{point['sum_seconds']:.2f}", f"{point['peer_seconds']:.2f}"]
        assert any(line.split()[:4] == row for line in lines[1:-1])


@pytest.mark.timeout(60)
@pytest.mark.parametrize("option", [["--batches", "0"], ["--jobs", "1e3"]])
def test_a_bad_option_is_one_line_and_exit_2(assert_refused, option):
    assert_refused("vqpu_restart.py", option)
