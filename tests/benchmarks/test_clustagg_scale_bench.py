"""Smoke test of ``benchmarks/clustagg_scale.py`` at 2,000 points: JSON and table agree."""

import math

import pytest


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_small_scale_run_reports_one_silhouette(run_benchmark):
    lines, report = run_benchmark("clustagg_scale.py", "--n-samples", "2000", "--skip-sklearn", timeout=140)
    assert (report["benchmark"], report["n_samples"], report["seed"]) == ("clustagg_scale", 2000, 0)
    sampled = report["silhouette"]["sampled"]  # 2,000 points: the "sample" is every point
    assert sampled["abs_diff"] < 1e-9 and -1 <= sampled["ours"] <= 1
    rows = {cells[0]: cells for cells in map(str.split, lines) if cells[:1] in (["round"], ["round-exact"])}
    assert math.isclose(float(rows["round"][4]), report["round_seconds"], abs_tol=0.006)
    assert math.isclose(float(rows["round-exact"][4]), report["round_exact_seconds"], abs_tol=0.006)
    assert math.isclose(float(rows["round"][7]), sampled["ours"], abs_tol=1e-6)  # the round scores it
    for name in ("round", "round-exact"):
        phases = report["phases"][name]
        assert [float(c) for c in rows[name][1:4]] == pytest.approx(
            [phases["cluster"], phases["quantum"], phases["score"]], abs=0.006
        )
