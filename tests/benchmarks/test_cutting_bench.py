"""Smoke test of ``benchmarks/cutting.py``: the smallest run, its checks and its table."""

import math

import pytest


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_one_seed_cuts_match_the_library_and_the_table(run_benchmark):
    lines, report = run_benchmark("cutting.py", "--shots", "200", "--seeds", "1", "--quiet", timeout=140)
    assert (report["shots"], report["seeds"]) == (200, 1)
    cases = {case["case"]: case for case in report["cases"]}
    assert set(cases) == {"1cut-9", "1cut-11", "2cuts-11"}
    for case in cases.values():
        assert case["max_abs_diff_vs_library"] < 1e-9  # our reconstruction is the library's
        assert all(abs(e) < 5 for e in case["energy_error_se"])  # the cut energy within 5 standard errors
        assert 0 <= case["negative_fraction"] < 1 and 0 <= case["tvd"] <= 1
    assert lines[0].split()[:4] == ["case", "n", "cuts", "subexp"]
    rows = {line.split()[0]: line.split() for line in lines[1:] if line.split()[0] in cases}
    assert rows.keys() == cases.keys()
    for name, cells in rows.items():
        case = cases[name]
        assert [int(c) for c in cells[1:4]] == [case["n"], case["cuts"], case["subexperiments"]]
        assert math.isclose(float(cells[4]), case["tvd"], abs_tol=5e-4)
        assert math.isclose(float(cells[7]), case["standard_error"], abs_tol=5e-5)
