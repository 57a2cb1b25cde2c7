"""Smoke test of ``benchmarks/dsatur_exact.py`` on three small graphs: right answers, table equals JSON."""

import math

import pytest

GRAPHS = {"myciel3": 4, "myciel4": 5, "queen5_5": 5}  # name: chromatic number


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_small_graphs_are_coloured_optimally(run_benchmark):
    lines, report = run_benchmark("dsatur_exact.py", "--graphs", *GRAPHS, "--time-limit", "10", timeout=140)
    assert report["benchmark"] == "dsatur_exact" and report["time_limit_s"] == 10
    rows = {row["graph"]: row for row in report["rows"]}
    assert rows.keys() == GRAPHS.keys()
    for name, chi in GRAPHS.items():
        row = rows[name]
        assert row["proper"] and row["lower_bound"] <= chi <= row["colors"] <= row["nx_dsatur_colors"]
        assert row["optimal"] == (row["colors"] == row["lower_bound"])
        assert row["optimal"] and row["colors"] == chi, row  # small enough to prove within the limit
    table = {cells[0]: cells for cells in map(str.split, lines) if cells[:1] and cells[0] in rows}
    for name, cells in table.items():
        row = rows[name]
        assert [int(c) for c in (cells[1], cells[2], cells[5], cells[8], cells[9], cells[11])] == [
            row["n"],
            row["m"],
            row["nx_dsatur_colors"],
            row["colors"],
            row["lower_bound"],
            row["nodes"],
        ]
        assert cells[10] == str(row["optimal"])
        assert math.isclose(float(cells[12]), row["seconds"], abs_tol=5e-4)
    assert table.keys() == rows.keys()
