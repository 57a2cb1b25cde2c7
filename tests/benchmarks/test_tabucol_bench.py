"""Smoke test of ``benchmarks/tabucol.py`` on two small graphs: sound colour counts, table equals JSON."""

import math

import pytest

GRAPHS = {"myciel3": 4, "myciel4": 5}  # name: chromatic number


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_tabucol_never_beats_chi_nor_loses_to_dsatur(run_benchmark):
    args = ("--graphs", *GRAPHS, "--seeds", "0", "1", "--time-limit", "1")
    lines, report = run_benchmark("tabucol.py", *args, timeout=140)
    assert report["benchmark"] == "tabucol" and report["settings"] == {"seeds": [0, 1], "time_limit_s": 1.0}
    rows = {row["graph"]: row for row in report["graphs"]}
    assert rows.keys() == GRAPHS.keys()
    for name, chi in GRAPHS.items():
        row = rows[name]
        assert row["lower_bound"] <= chi <= row["dsatur_colors"]
        assert [run["seed"] for run in row["tabucol"]] == [0, 1]
        for run in row["tabucol"]:
            assert chi <= run["colors"] <= row["dsatur_colors"]
            assert 0 <= run["seconds_to_best"] <= run["seconds_total"]
    table = [cells for cells in map(str.split, lines) if cells[:1] and cells[0] in rows]
    runs = [(row, run) for row in report["graphs"] for run in row["tabucol"]]
    assert len(table) == len(runs)
    for cells, (row, run) in zip(table, runs, strict=True):
        # graph n m chi* LB "k (strategy)" nx-s DSATUR seed TabuCol to-best total iterations it/s
        assert [int(c) for c in (cells[1], cells[2], cells[4])] == [row["n"], row["m"], row["lower_bound"]]
        assert [int(c) for c in cells[-7:-4]] == [row["dsatur_colors"], run["seed"], run["colors"]]
        assert math.isclose(float(cells[-4]), run["seconds_to_best"], abs_tol=0.006)
        assert math.isclose(float(cells[-3]), run["seconds_total"], abs_tol=0.006)
        assert int(cells[-2]) == run["iterations"]
