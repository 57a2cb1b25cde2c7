"""benchmarks/hpc_modes.py's node-seconds and QPU seconds, from recorded sacct outputs, without Slurm.

The script's own functions (``run_modes``, ``run_chains``, ``summarize``) run with the workloads'
launchers replaced by no-ops and clustagg.slurm's command runner answering the sacct command
with the outputs recorded on the emulated cluster (tests/clustagg/data/sacct, README.md there).
Every expected number is a sum of nodes x (end - start) of the fixtures' lines, worked out in
the comments (all times 2026-11-27, HH:MM:SS).
"""

import importlib.util
import json
import math
import time
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from clustagg import slurm

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "clustagg" / "data" / "sacct"

#: cpu node-seconds of each recording (the hpc_modes sum: cpu partition only)
CPU_NODE_SECONDS = {
    # job 36: 1 node x (09:20 - 09:16 = 4 s); the qpu component 37 is not counted
    "hetjob": 4.0,
    # chain-a 2 x (09:29 - 09:26) + chain-b 1 x (09:31 - 09:29) + chain-c 3 x (09:34 - 09:32)
    # + fails 1 x (09:27 - 09:26) = 6 + 2 + 6 + 1
    "chain": 15.0,
    # job 45: 1 x (10:11 - 10:01) + 3 x (10:16 - 10:11) + 1 x (10:19 - 10:16) + 3 x (10:24 - 10:19)
    # + 1 x (10:27 - 10:24) = 10 + 15 + 3 + 15 + 3; its expansions 46, 47: 0 nodes
    "resize": 46.0,
    # the same job with Slurm 22.05's start of the 3-node record (10:01): corrected to 10:11,
    # so 46 again (read as recorded: 3 x (10:16 - 10:01) = 45 instead of 15, 76 in all)
    "resize-2205": 46.0,
    # job 48: 1 x (10:37 - 10:32) + 3 x (10:41 - 10:37) + 1 x (10:44 - 10:41) + 3 x (10:49 - 10:44)
    # + 1 x (10:53 - 10:49) = 5 + 12 + 3 + 15 + 4 = 39; expansion 49: 2 x (10:37 - 10:36) = 2;
    # expansion 50: 2 x 0
    "resize-early": 41.0,
    # hold-nodes 2 x (11:18 - 10:58) + resize-refused 1 x (11:25 - 10:59) = 40 + 26; the refused
    # expansions 53, 54: 1 x 0
    "resize-refused": 66.0,
    # done: 1 x (09:41 - 09:39); running (End Unknown) not yet
    "running": 2.0,
}


def load_hpc_modes():
    spec = importlib.util.spec_from_file_location(
        "hpc_modes_under_test", ROOT / "benchmarks" / "hpc_modes.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded(name):
    """The ``-S`` time of the recording and sacct's output."""
    first, rest = (DATA / f"{name}.txt").read_text().split("\n", 1)
    return first.removeprefix("# since "), rest


class Recordings:
    """Replaces ``datetime`` in hpc_modes and clustagg.slurm's command runner: each measurement's
    ``datetime.now()`` is the ``-S`` time of the next recording in ``order``; sacct answers with
    the recording of the ``-S`` time it is asked for."""

    def __init__(self, order):
        self.order = list(order)
        self.outputs = dict(recorded(name) for name in set(self.order))
        self.asked = []

    def now(self):
        since, _ = recorded(self.order.pop(0))
        return datetime.fromisoformat(since)

    def __call__(self, arguments, **options):
        fields = "JobIDRaw,JobName,State,Partition,Start,End,NNodes"
        assert arguments[:-1] == ["sacct", "--duplicates", "-X", "-P", "-n", "-o", fields, "-S"], arguments
        self.asked.append(arguments[-1])
        return self.outputs[arguments[-1]]


@pytest.fixture
def hpc_modes(monkeypatch):
    module = load_hpc_modes()
    monkeypatch.setattr(
        module, "time", SimpleNamespace(time=time.time, monotonic=time.monotonic, sleep=lambda s: None)
    )
    return module


def use_recordings(monkeypatch, module, order):
    recordings = Recordings(order)
    monkeypatch.setattr(module, "datetime", recordings)
    monkeypatch.setattr(slurm, "slurm", recordings)
    return recordings


def test_every_recording_gives_the_hand_computed_cpu_node_seconds(hpc_modes, monkeypatch):
    use_recordings(monkeypatch, hpc_modes, list(CPU_NODE_SECONDS))
    for name, node_seconds in CPU_NODE_SECONDS.items():
        _, records = hpc_modes.measured(None, lambda: lambda: None)
        assert sum(r.node_seconds for r in records if r.partition == "cpu") == node_seconds, name


def test_modes_sum_cpu_node_seconds_per_workload_and_average_the_repeats(hpc_modes, monkeypatch):
    # run_modes measures, per repeat, each mode's single then double workload
    order = [
        "hetjob", "chain", "resize", "resize-2205", "resize-refused", "running",  # repeat 1
        "chain", "hetjob", "resize-early", "resize", "running", "resize-refused",  # repeat 2
    ]  # fmt: skip
    recordings = use_recordings(monkeypatch, hpc_modes, order)
    launched = []

    def launch_mode(cluster, mode, copies, args):
        launched.append((mode, copies))
        return lambda: None

    monkeypatch.setattr(hpc_modes, "launch_mode", launch_mode)
    modes = hpc_modes.run_modes(None, SimpleNamespace(repeats=2))
    assert recordings.order == [] and len(recordings.asked) >= 24  # each read twice at least, until stable
    assert launched == [(m, c) for m in ("baseline", "malleable", "workflow") for c in (1, 2)] * 2
    node_seconds = {
        mode: {label: [n for _, n in cells] for label, cells in by.items()} for mode, by in modes.items()
    }
    assert node_seconds == {
        "baseline": {"single": [4.0, 15.0], "double": [15.0, 4.0]},
        "malleable": {"single": [46.0, 41.0], "double": [46.0, 46.0]},
        "workflow": {"single": [66.0, 2.0], "double": [2.0, 66.0]},
    }
    chains = {"monolithic": [(0.5, 10.0)], "chained": [(0.25, 8.0)]}
    means, spread = hpc_modes.summarize(modes, chains)
    # means (4 + 15) / 2 = 9.5, (46 + 41) / 2 = 43.5, (66 + 2) / 2 = 34; half ranges (15 - 4) / 2 = 5.5,
    # (46 - 41) / 2 = 2.5, 0, (66 - 2) / 2 = 32
    assert {m: {w: c["node_s"] for w, c in by.items()} for m, by in means["modes"].items()} == {
        "baseline": {"single": 9.5, "double": 9.5},
        "malleable": {"single": 43.5, "double": 46.0},
        "workflow": {"single": 34.0, "double": 34.0},
    }
    assert {m: {w: c["node_s"] for w, c in by.items()} for m, by in spread["modes"].items()} == {
        "baseline": {"single": 5.5, "double": 5.5},
        "malleable": {"single": 2.5, "double": 0.0},
        "workflow": {"single": 32.0, "double": 32.0},
    }


def test_chains_divide_the_service_busy_seconds_by_the_seconds_the_qpu_node_was_held(
    hpc_modes, monkeypatch, tmp_path
):
    use_recordings(monkeypatch, hpc_modes, ["hetjob", "chain"])
    busy = iter([1.0, 3.0])

    def launch_chains(cluster, args, chained):
        stats = cluster.work / f"stats-{'chained' if chained else 'monolithic'}.json"
        stats.write_text(json.dumps({"busy_seconds": next(busy)}))
        return lambda: None

    monkeypatch.setattr(hpc_modes, "launch_chains", launch_chains)
    (tmp_path / "stats-old.json").write_text(json.dumps({"busy_seconds": 100.0}))  # an earlier run's
    results = hpc_modes.run_chains(SimpleNamespace(work=tmp_path), SimpleNamespace(repeats=1))
    # hetjob: the qpu component 37 held q1 09:16 -> 09:20 = 4 s; busy 1 s: idle 1 - 1/4
    ((idle, span),) = results["monolithic"]
    assert idle == 0.75 and 0 <= span < 5
    # chain: no qpu record, so no held seconds and no idle fraction
    ((idle, _),) = results["chained"]
    assert math.isnan(idle)
