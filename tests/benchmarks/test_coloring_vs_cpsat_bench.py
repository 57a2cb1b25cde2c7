"""Smoke test of ``benchmarks/coloring_vs_cpsat.py``: our three modes beside CP-SAT in one run."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "coloring_vs_cpsat.py"
MODES = ["exact", "price", "qaoa", "cpsat"]
GRAPHS = ["myciel3", "queen5_5"]

_SPEC = importlib.util.spec_from_file_location("_graphs", ROOT / "benchmarks" / "_graphs.py")
assert _SPEC is not None and _SPEC.loader is not None
_GRAPHS = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_GRAPHS)
literature_chi = _GRAPHS.literature_chi


def run(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_all_four_modes_via_coloring_py_prove_the_literature_chi():
    # Through coloring.py --vs-cpsat, which hands the other arguments to coloring_vs_cpsat.py.
    args = ["--vs-cpsat", "--graphs", *GRAPHS, "--time-limit", "10"]
    result = run(str(ROOT / "benchmarks" / "coloring.py"), *args, timeout=380)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0].split()[:4] == ["graph", "n", "m", "chi"]  # the table comes first
    assert all(f"{mode}:proven" in lines[0] for mode in MODES)
    report = json.loads(lines[-1])
    summary = report["summary"]
    chi = literature_chi()
    assert [row["graph"] for row in report["rows"]] == GRAPHS
    assert list(summary["modes"]) == MODES
    assert summary["graphs"] == len(GRAPHS)
    assert summary["wrong_optima"] == 0
    assert summary["disagreements"] == []
    for row in report["rows"]:
        assert row["chi"] == chi[row["graph"]]
        assert list(row["results"]) == MODES
        for mode, out in row["results"].items():
            assert "error" not in out and "skipped" not in out, (row["graph"], mode, out)
            assert out["proper"], (row["graph"], mode)
            assert out["bound"] <= out["colors"]
            assert out["peak_gb"] > 0
            assert 0 <= out["seconds"] <= 10 + 2, (row["graph"], mode)
            if out["proven"]:
                assert out["colors"] == chi[row["graph"]], (row["graph"], mode)
            assert row["problems"][mode] == []
    for mode, stats in summary["modes"].items():
        proven = [row["graph"] for row in report["rows"] if row["results"][mode]["proven"]]
        assert stats["proven"] == len(proven), mode
        assert stats["graphs_run"] == len(GRAPHS), mode
        assert stats["wrong_optima"] == 0, mode
        assert stats["max_overrun_s"] <= 2.0, mode
        assert 0 < stats["max_peak_gb"] < 4, mode
        if mode == "cpsat":
            assert "proven_with_cpsat" not in stats and "improving_columns" not in stats
            continue
        both = [g for g in proven if report["rows"][GRAPHS.index(g)]["results"]["cpsat"]["proven"]]
        assert stats["proven_with_cpsat"] == len(both), mode
        assert (stats["median_time_ratio_to_cpsat"] is None) == (not both), mode
        assert isinstance(stats["improving_columns"], dict) and isinstance(stats["nodes_from_sampler"], int)
        assert set(stats["node_lp"]) >= {"nodes", "raised"}


@pytest.mark.timeout(120)
def test_qaoa_is_skipped_above_the_vertex_limit_and_bad_input_is_one_line():
    args = ["--modes", "qaoa", "--graphs", "queen5_5", "--qaoa-max-vertices", "20"]
    skipped = run(str(SCRIPT), *args, timeout=100)
    assert skipped.returncode == 0, skipped.stderr[-3000:]
    report = json.loads(skipped.stdout.strip().splitlines()[-1])
    assert "skipped" in report["rows"][0]["results"]["qaoa"]
    assert report["summary"]["modes"]["qaoa"]["skipped"] == ["queen5_5"]
    assert report["summary"]["modes"]["qaoa"]["graphs_run"] == 0
    for bad, parameter in ((["--graphs", "nope"], "--graphs"), (["--time-limit", "0"], "--time-limit")):
        result = run(str(SCRIPT), *bad, timeout=60)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().splitlines()[-1].startswith(f"coloring_vs_cpsat.py: error: {parameter}")
