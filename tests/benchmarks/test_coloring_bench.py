"""Smoke test of ``benchmarks/coloring.py --pricing --quick``: pricers at equal budgets, QAOA on Aer.

With ``--seeds 1`` (one pricing seed instead of --quick's two): each round is priced by every
pricer once, and each heuristic's LP bound is one run per graph.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "coloring.py"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_quick_pricing_comparison_is_consistent_with_the_exact_pricer():
    command = [sys.executable, str(SCRIPT), "--pricing", "--quick", "--seeds", "1"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=580)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("Part 3: pricing at equal budgets")  # the table comes first
    report = json.loads(lines[-1])
    summary = report["summary"]
    assert set(summary) == {"qaoa", "anneal", "random", "greedy", "exact"}
    assert summary["exact"]["improving_existed"] > 0
    # A heuristic finding an improving column (or any heavier set) that the exact MWIS missed
    # would pull exact's hit rate below 1 or count in beat_exact.
    assert summary["exact"]["hit_rate"] == 1.0
    for name, stats in summary.items():
        assert stats["beat_exact"] == 0, name
        assert 0 <= stats["found"] <= stats["improving_existed"], name
        for rate in ("hit_rate", "at_exact_optimum", "rc_ratio", "weight_ratio"):
            assert 0.0 <= stats[rate] <= 1.0, (name, rate, stats[rate])
    for row in report["graphs"]:
        assert row["chi_f_certified"], row["graph"]
        for pricer, runs in row["lp_bound"].items():
            for run in runs:
                # Whoever priced, a certified LP value is the fractional chromatic number.
                if run["certified"]:
                    assert run["value"] == pytest.approx(row["chi_f"], abs=1e-6), (row["graph"], pricer)
                    assert run["bound"] == math.ceil(row["chi_f"] - 1e-6), (row["graph"], pricer)
    for pricer, stats in report["lp_summary"].items():
        assert stats["hit_rate"] is None or 0.0 <= stats["hit_rate"] <= 1.0, pricer
