"""Smoke test of ``benchmarks/clustagg_modes.py``: one short round per mode, JSON and table agree."""

import math

import pytest


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_one_round_per_mode(run_benchmark):
    args = ("--quick", "--n-samples", "1000", "--max-iter", "1", "--short-delay", "0.1")
    lines, report = run_benchmark("clustagg_modes.py", *args, timeout=220)
    assert (report["n_samples"], report["max_iter"]) == (1000, 1)
    rows = report["rows"]
    assert sorted(r["mode"] for r in rows) == ["baseline", "malleable", "workflow"]
    assert {(r["quantum_delay"], r["workloads"]) for r in rows} == {(0.1, 1)}
    for r in rows:
        assert r["wall_seconds"] > 0 and r["node_seconds"] > 0
        if r["mode"] == "baseline":
            assert r["node_seconds_ratio"] == r["wall_ratio"] == 1.0
    table = [line.split() for line in lines[1:-1]]
    assert lines[0].split()[:2] == ["mode", "q-step"] and len(table) == len(rows)
    for cells, r in zip(table, rows, strict=True):
        assert cells[0] == r["mode"] and int(cells[2]) == r["workloads"]
        keys = ("wall_seconds", "node_seconds", "node_seconds_ratio", "wall_ratio")
        for cell, key in zip(cells[3:], keys, strict=True):
            assert math.isclose(float(cell), r[key], abs_tol=0.006), (cells, key)
