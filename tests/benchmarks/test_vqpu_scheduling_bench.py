"""Smoke test of ``vqpu_scheduling.py``: the run queue against the scan, same picks, one JSON line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "vqpu_scheduling.py"


@pytest.mark.timeout(120)
def test_both_queues_pick_the_same_batches_and_the_table_matches_the_json():
    command = [sys.executable, str(SCRIPT), "--lengths", "50", "500", "--jobs", "8", "--rounds", "300"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=100)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["jobs"] == 8 and summary["rounds"] == 300
    points = summary["points"]
    policies = ("fifo", "round-robin", "round-robin, max_wait")
    assert [(p["policy"], p["queued"]) for p in points] == [(q, n) for q in policies for n in (50, 500)]
    for point in points:
        assert point["same_order"] is True
        # the bound is half a batch's mean wait: every pick comes from it, none without one
        assert point["bound_share"] == (1.0 if point["policy"].endswith("max_wait") else 0.0)
        assert point["run_queue_us"] > 0 and point["scan_us"] > 0
        assert point["ratio"] == pytest.approx(point["scan_us"] / point["run_queue_us"])
        key = f"| {point['policy']} | {point['queued']:,} |"
        row = f"{key} {point['run_queue_us']:.1f} | {point['scan_us']:.1f} |"
        assert row in "\n".join(lines)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("option", [["--rounds", "0"], ["--lengths", "1e3"], ["--jobs", "-1"]])
def test_a_bad_option_is_one_line_and_exit_2(assert_refused, option):
    assert_refused("vqpu_scheduling.py", option)
