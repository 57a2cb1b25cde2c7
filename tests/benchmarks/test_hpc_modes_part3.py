"""benchmarks/hpc_modes.py part 3 without Slurm: the tenants' trace, the placement and reconfiguration
times read from what malleable runs printed (lines as the emulated cluster printed them), and the
new keys of the JSON line through --from-json."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .test_hpc_modes_accounting import load_hpc_modes

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "hpc_modes.py"
pytestmark = pytest.mark.timeout(120)

#: A malleable job's output on the emulated cluster (its grow got 1 of 2 nodes under tenants' load).
GREW_ONE = """\
clustagg: job 15 grown to 2 node(s) of 3
clustagg worker: joined rank=1/2 SLURMD_NODENAME=c3 node=c3
clustagg: grew to 2 node(s) in 6.934 s (blocked 6.934 s)
clustagg worker: leaving rank=1/2 SLURMD_NODENAME=c3 node=c3
clustagg: job 15 shrunk to 1 node(s) (released c3)
"""
#: A workflow cluster step's log (two workers, both gone before the shrink), then an asynchronous grow.
GREW_TWO = """\
clustagg: job 5 grown to 3 node(s)
clustagg: grew to 3 node(s) in 5.763 s (blocked 5.763 s)
clustagg worker: joined rank=1/3 SLURMD_NODENAME=c2 node=c2
clustagg worker: joined rank=2/3 SLURMD_NODENAME=c3 node=c3
clustagg worker: leaving rank=2/3 SLURMD_NODENAME=c3 node=c3
clustagg worker: leaving rank=1/3 SLURMD_NODENAME=c2 node=c2
clustagg: job 5 shrunk to 1 node(s) (released c2,c3)
"""
ASYNC = "clustagg: grew to 3 node(s) in 21.5 s (blocked 0.012 s)\n"


@pytest.fixture(scope="module")
def contention():
    load_hpc_modes()  # puts benchmarks/ on the path for its private modules
    import _hpc_contention

    return _hpc_contention


def test_every_grown_worker_ran_on_an_added_node_and_left_before_its_release(contention):
    assert contention.placement([GREW_ONE, GREW_TWO]) == {
        "grown_workers": 3,
        "on_added_nodes": 3,
        "on_released_nodes_after_shrink": 0,
    }


def test_a_worker_on_the_wrong_node_or_still_there_after_the_release_is_counted(contention):
    wrong = GREW_TWO.replace("SLURMD_NODENAME=c2 node=c2", "SLURMD_NODENAME=c1 node=c2", 1)
    late = GREW_ONE.replace("leaving", "still running")
    assert contention.placement([wrong, late]) == {
        "grown_workers": 3,
        "on_added_nodes": 2,
        "on_released_nodes_after_shrink": 1,
    }


def test_reconfiguration_seconds_per_grow_kind(contention):
    blocked, total = contention.reconfigure_seconds({"blocking": [GREW_ONE, GREW_TWO], "async": [ASYNC]})
    assert blocked == {"blocking": round((6.934 + 5.763) / 2, 3), "async": 0.012}
    assert total == {"blocking": round((6.934 + 5.763) / 2, 3), "async": 21.5}


def test_the_tenants_trace_is_seeded_and_within_its_bounds(contention):
    trace = contention.tenant_trace(3, 300.0)
    assert trace == contention.tenant_trace(3, 300.0) != contention.tenant_trace(4, 300.0)
    assert len(trace) > 10 and all(0 < t < 300 for t, _, _ in trace)
    assert [t for t, _, _ in trace] == sorted(t for t, _, _ in trace)
    assert {n for _, n, _ in trace} <= {1, 2} and all(10 <= h <= 40 for _, _, h in trace)


def test_from_json_prints_part_3_and_keeps_its_keys(tmp_path):
    cell = {"wall_s": 10.0, "node_s": 30.0}
    modes = {m: {"single": cell, "double": cell} for m in ("baseline", "malleable", "workflow")}
    chains = {c: {"qpu_idle_fraction": 0.5, "makespan_s": 40.0} for c in ("monolithic", "chained")}
    part3 = {
        "placement": {"grown_workers": 4, "on_added_nodes": 4, "on_released_nodes_after_shrink": 0},
        "reconfigure_s": {"blocking": 6.0, "async": 0.01},
        "quantum_step_on": dict.fromkeys(("baseline", "malleable", "workflow"), "qpu-partition"),
        "contention": {"workflow-malleable": {**cell, "queue_s": 3.0}},
        "short_quantum": {"workflow-malleable": cell},
    }
    line = {"modes": modes, "chains": chains, **part3, "spread": {"modes": modes, "chains": chains}}
    (tmp_path / "run.txt").write_text(json.dumps(line) + "\n")
    arguments = ["--from-json", str(tmp_path / "run.txt"), "--figures", str(tmp_path / "fig")]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=100
    )
    assert done.returncode == 0, done.stderr
    assert "Part 3" in done.stdout and "workflow-malleable" in done.stdout
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert {key: last[key] for key in part3} == part3
    assert last["placement"]["on_released_nodes_after_shrink"] == 0
    assert last["placement"]["on_added_nodes"] == last["placement"]["grown_workers"]
    assert set(last["quantum_step_on"].values()) <= {"qpu-partition", "hyperqueue", "vqpu"}
