"""Smoke test of ``benchmarks/startup.py``: every command ran and printed what it should, JSON = table.

The wall times are measured there, not asserted here.
"""

import importlib.metadata

import pytest

COMMANDS = ["python", "version", "help", "exact", "check", "cpsat"]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_startup_benchmark_runs_every_command_and_reports_it(run_benchmark):
    lines, report = run_benchmark("startup.py", "--graph", "myciel3", "--repeats", "2", timeout=280)
    assert report["graph"] == "myciel3" and report["chi"] == 4 and report["repeats"] == 2
    rows = {row["command"]: row for row in report["rows"]}
    assert list(rows) == COMMANDS
    assert rows["version"]["output"] == f"python -m bbqmis {importlib.metadata.version('bbqmis')}"
    assert rows["help"]["output"] == "usage with --certificate"
    assert rows["exact"]["output"] == "4 colours, optimal True"
    assert rows["check"]["output"] == "ok: chromatic number 4 proved"
    assert rows["cpsat"]["output"] == "4 colours, optimal True"
    assert [rows[name]["target"] for name in ("version", "help", "exact")] == [0.3, 0.3, 0.5]
    assert lines[0] == "start-up on myciel3 (chi 4), wall seconds"
    table = {line.split()[0]: line for line in lines[2 : 2 + len(COMMANDS)]}
    for name, row in rows.items():
        assert 0 < row["min"] <= row["median"]
        words = table[name].split()
        assert [float(words[1]), float(words[2])] == [round(row["min"], 3), round(row["median"], 3)]
        assert table[name].endswith(row["output"])
    assert report["imports"]["bbqmis"] > 0 and list(report["imports"].values()) == sorted(
        report["imports"].values(), reverse=True
    )
    assert lines[-2].startswith("import seconds of one exact run, by top-level package: ")
