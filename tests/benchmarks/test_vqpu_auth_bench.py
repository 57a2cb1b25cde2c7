"""Smoke test of ``benchmarks/vqpu_auth.py --quick``: every step timed, the table equals the JSON."""

import math

import pytest


@pytest.mark.timeout(150)
def test_quick_run_times_every_mode_and_the_table_matches(run_benchmark):
    lines, report = run_benchmark("vqpu_auth.py", "--quick", timeout=140)
    assert report["requests"] == 500
    assert set(report["us"]) == {"open", "token", "slurm", "client_encode"}
    for figures in report["us"].values():
        assert 0 < figures["median"] <= figures["p90"] <= figures["p99"]
    # a MUNGE decode is a round trip to munged: dearer than a dictionary look-up, as it should be
    assert report["us"]["slurm"]["median"] > report["us"]["token"]["median"]
    added = (report["us"]["slurm"]["median"] - report["us"]["token"]["median"]) / 1e3
    assert math.isclose(report["slurm_minus_token_ms"], added)
    rows = {cells[0]: cells[1:] for cells in map(str.split, lines) if cells and cells[0] in report["us"]}
    for step, cells in rows.items():
        shown = [float(cell) for cell in cells]
        expected = [report["us"][step][key] for key in ("median", "p90", "p99")]
        assert shown == pytest.approx(expected, abs=0.051)
    assert f"adds {added:.3f} ms per request" in "\n".join(lines)


def test_too_few_requests_are_refused(assert_refused):
    assert_refused("vqpu_auth.py", ["--requests", "3"])
