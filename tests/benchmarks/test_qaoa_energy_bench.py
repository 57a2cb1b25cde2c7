"""Smoke test of ``benchmarks/qaoa_energy.py --quick``: every method agrees, and the table says so.

The benchmark compares against the peer ``iqm.qaoa`` (package iqm-qaoa, in the ``bench``
extra, which the ``test`` extra includes). Without it the test fails when the environment
variable ``CI`` is set (anything but empty, 0 or false: the install is at fault, as for the
suite's ``needs`` fixture in ``tests/conftest.py``) and skips with the same reason elsewhere.
"""

import importlib
import math

import pytest

#: The benchmark's peer and what to do when it is missing.
PEER = "iqm.qaoa"
HINT = "install the 'bench' extra (pip install -e '.[bench]', which brings iqm-qaoa)"


def peer_missing() -> str | None:
    """Why the peer cannot be imported, or ``None`` when it can."""
    try:
        importlib.import_module(PEER)
    except ImportError as error:
        return f"{PEER} is not importable ({error}): {HINT}"
    return None


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_quick_run_methods_agree(run_benchmark, needs):
    needs((reason := peer_missing()) is None, reason)
    lines, report = run_benchmark("qaoa_energy.py", "--quick", timeout=140)
    assert (report["benchmark"], report["quick"]) == ("qaoa_energy", True)
    targets = report["targets"]
    # correctness only; the speed targets depend on the machine and its load
    assert targets["all_methods_agree_abs<1e-9_n<=22"]["met"], targets
    assert targets["closed_form_and_iqm_agree_rel<1e-9_large_n"]["met"], targets
    assert report["max_abs_deviation_all_methods"] < report["tolerance"]
    (deviation,) = [line for line in lines if line.startswith("max abs deviation")]
    shown = float(deviation.split("n <= 22: ")[1].split()[0])
    assert math.isclose(shown, report["max_abs_deviation_all_methods"], rel_tol=0.01, abs_tol=1e-300)
    (optimize,) = [line for line in lines if line.startswith("qaoa.optimize")]
    for r in report["optimize"]:
        assert f"n={r['n']} {r['optimize_ms']:.1f} ms" in optimize
