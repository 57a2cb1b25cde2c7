"""Smoke test of ``benchmarks/certificates.py``: each proved optimum certified, the verdict in the table."""

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "certificates.py"


@pytest.mark.timeout(200)
def test_certificates_of_a_sample_are_checked_and_counted(run_benchmark):
    lines, report = run_benchmark(
        "certificates.py", "--graphs", "mug88_1", "myciel3", "--time-limit", "30", timeout=180
    )
    rows = {row["graph"]: row for row in report["rows"]}
    assert rows["mug88_1"]["witness"] == "refutation" and rows["myciel3"]["witness"] == "mycielski"
    assert (report["graphs"], report["optimal"], report["certified"], report["flagged"]) == (2, 2, 2, 0)
    assert report["by_witness"] == {"clique": 0, "mycielski": 1, "refutation": 1}
    for row in rows.values():
        assert row["verdict"] == f"ok: chromatic number {row['colors']} proved"
        assert row["check_seconds"] > 0 and row["kb"] > 0
        (line,) = [line for line in lines if line.startswith(row["graph"] + " ")]
        assert line.endswith(row["verdict"]) and row["witness"] in line.split()
    assert lines[-2] == "2 of 2 optima certified and checked " + (
        "({'clique': 0, 'mycielski': 1, 'refutation': 1}); 0 flagged; "
        f"slowest check {report['max_check_seconds']} s"
    )


@pytest.mark.timeout(60)
def test_a_bad_time_limit_or_graph_is_one_line_and_status_2():
    for args, message in (
        (["--time-limit", "0"], "--time-limit must be positive"),
        (["--graphs", "nope"], "unknown graph"),
    ):
        done = subprocess.run(
            [sys.executable, str(SCRIPT), *args],
            capture_output=True,
            text=True,
            timeout=50,
        )
        assert done.returncode == 2 and done.stdout == "" and message in done.stderr.strip().splitlines()[-1]
