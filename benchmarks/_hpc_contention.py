"""Part 3 of benchmarks/hpc_modes.py: the modes under other tenants' load, and with short quantum steps.

Contention (the seeds' Leonardo rows, on the emulated cluster): other tenants' jobs arrive by
a seeded trace (Poisson arrivals, ``TENANT_RATE`` per second; each holds 1-2 cpu nodes for
10-40 s, ``examples/slurm/cluster/hold_nodes.sh`` under the job name ``tenant``), the same
trace for every mode of a repeat; the workload is submitted ``--contention-warmup`` seconds
after the trace starts, so that it meets a cluster already in use. Wall time from the workload's first
submission to its end; node-seconds and queue seconds (first start minus submission, summed
over the workload's own jobs, expansions ``grow-*`` and tenants left out) from Slurm's
accounting. Short quantum steps (QCLUSTER Table II): the same modes, no tenants, a 0.5 s
quantum step. Placement and reconfiguration times are read from what the malleable runs print
(each worker's ``SLURMD_NODENAME``, the library's ``grew to ... in X s (blocked Y s)``).
"""

from __future__ import annotations

import random
import re
import statistics
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from clustagg import slurm

#: The modes of part 3: part 1's, the asynchronous grow, and the workflow with a malleable cluster step.
MODES3 = ("baseline", "malleable", "malleable-async", "workflow", "workflow-malleable")
#: Tenants' arrivals per second, and the nodes and seconds each holds.
TENANT_RATE, TENANT_NODES, TENANT_HOLD = 1 / 8, (1, 2), (10.0, 40.0)
WORKER = re.compile(r"clustagg worker: (joined|leaving) rank=\d+/\d+ SLURMD_NODENAME=(\S+) node=(\S+)")
RELEASED = re.compile(r"shrunk to \d+ node\(s\) \(released ([\w,-]+)\)")
GREW = re.compile(r"grew to \d+ node\(s\) in ([\d.]+) s \(blocked ([\d.]+) s\)")


def tenant_trace(seed: int, horizon: float) -> list[tuple[float, int, float]]:
    """``(arrival s, nodes, hold s)`` of the tenants arriving within ``horizon`` seconds (seeded).

    >>> tenant_trace(1, 30.0) == tenant_trace(1, 30.0)
    True
    """
    rng, trace, now = random.Random(seed), [], 0.0
    while True:
        now += rng.expovariate(TENANT_RATE)
        if now >= horizon:
            return trace
        trace.append((round(now, 2), rng.randint(*TENANT_NODES), round(rng.uniform(*TENANT_HOLD), 1)))


class Tenants(threading.Thread):
    """Submits a trace's jobs at their arrival times until stopped; :meth:`stop` cancels them all."""

    def __init__(self, submit: Callable[..., int], trace: list[tuple[float, int, float]], script: Path):
        super().__init__(daemon=True)
        self.submit, self.trace, self.script = submit, trace, script
        self.jobs: list[int] = []
        self.halt = threading.Event()

    def run(self) -> None:
        start = time.monotonic()
        for arrival, nodes, hold in self.trace:
            if self.halt.wait(max(0.0, start + arrival - time.monotonic())):
                return
            options = ["--job-name=tenant", f"--nodes={nodes}"]
            self.jobs.append(self.submit(*options, str(self.script), env={"HOLD": str(hold)}))

    def stop(self) -> None:
        self.halt.set()
        self.join()
        slurm.cancel(*self.jobs)
        for job in self.jobs:
            slurm.wait_for_state(job, slurm.FINISHED, 60)


def queue_seconds(since: datetime) -> float:
    """Sum over the jobs since ``since`` (no tenants, no expansions) of first start minus submission."""
    text = slurm.slurm(
        ["sacct", "--duplicates", "-X", "-P", "-n", "-o", "JobIDRaw,JobName,Submit,Start"]
        + ["-S", since.strftime("%Y-%m-%dT%H:%M:%S")]
    )
    waits: dict[str, float] = {}
    for line in text.splitlines():
        job, name, submit, start = line.split("|")
        if name == "tenant" or name.startswith("grow-") or "Unknown" in (submit, start) or not start:
            continue
        wait = datetime.fromisoformat(start).timestamp() - datetime.fromisoformat(submit).timestamp()
        waits[job] = min(waits.get(job, wait), wait)
    return sum(waits.values())


def placement(texts: list[str]) -> dict[str, int]:
    """Workers started by grows, those that ran on an added node, those still there after its release.

    Counted from each worker's own line (``SLURMD_NODENAME`` and the node it was started for) and
    the shrinks that return nodes (``released c2,c3``), in the order they were printed.

    >>> placement(["clustagg worker: joined rank=1/2 SLURMD_NODENAME=c2 node=c2",
    ...            "clustagg worker: leaving rank=1/2 SLURMD_NODENAME=c2 node=c2",
    ...            "clustagg: job 5 shrunk to 1 node(s) (released c2)"])
    {'grown_workers': 1, 'on_added_nodes': 1, 'on_released_nodes_after_shrink': 0}
    """
    counts = {"grown_workers": 0, "on_added_nodes": 0, "on_released_nodes_after_shrink": 0}
    for text in texts:
        joined: list[tuple[str, str]] = []
        active: list[str] = []
        for line in text.splitlines():
            if worker := WORKER.search(line):
                event, slurmd, node = worker.groups()
                if event == "joined":
                    counts["grown_workers"] += 1
                    joined.append((slurmd, node))
                    active.append(slurmd)
                elif slurmd in active:
                    active.remove(slurmd)
            elif release := RELEASED.search(line):
                released = set(release[1].split(","))
                counts["on_added_nodes"] += sum(s == n and s in released for s, n in joined)
                counts["on_released_nodes_after_shrink"] += sum(s in released for s in active)
                joined, active = [], [s for s in active if s not in released]
    return counts


def reconfigure_seconds(texts: dict[str, list[str]]) -> tuple[dict[str, float], dict[str, float]]:
    """Mean seconds the program was held up by a grow, and from request to workers merged, per grow kind."""
    blocked, total = {}, {}
    for kind, outputs in texts.items():
        grows = [(float(m[1]), float(m[2])) for text in outputs for m in GREW.finditer(text)]
        if grows:
            total[kind] = round(statistics.fmean(t for t, _ in grows), 3)
            blocked[kind] = round(statistics.fmean(b for _, b in grows), 3)
    return blocked, total


def mean_cells(cells: dict[str, list[dict[str, float]]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Means and half ranges of each mode's measurements (dicts of the same keys)."""
    means: dict[str, Any] = {}
    spread: dict[str, Any] = {}
    for mode, runs in cells.items():
        means[mode] = {k: round(statistics.fmean(r[k] for r in runs), 2) for k in runs[0]}
        spread[mode] = {k: round((max(r[k] for r in runs) - min(r[k] for r in runs)) / 2, 2) for k in runs[0]}
    return means, spread


def idle_cpu_nodes(timeout: float = 120.0) -> None:
    """Wait until the three cpu nodes are idle (the previous run's jobs and tenants have ended)."""
    deadline = time.monotonic() + timeout
    while slurm.slurm(["sinfo", "-h", "-p", "cpu", "-t", "idle", "-o", "%D"]).strip() != "3":
        if time.monotonic() > deadline:
            return
        time.sleep(0.5)


def rounds_for_async(args: Any) -> Any:
    """``args`` with 2 rounds or more (an asynchronous grow is asked for during a quantum step)."""
    return type(args)(**{**vars(args), "max_iter": max(2, args.max_iter)})


def run_contention(cluster: Any, measure: Callable[..., Any], args: Any, log: Callable[[str], None]) -> dict:
    """Each mode of :data:`MODES3` under the tenants' trace, ``args.repeats`` times: wall, node, queue s."""
    cells: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES3}
    args = rounds_for_async(args)
    script = cluster.root / "examples" / "slurm" / "cluster" / "hold_nodes.sh"
    for repeat in range(args.repeats):
        trace = tenant_trace(args.contention_seed + repeat, args.contention_horizon)
        for mode in MODES3:
            idle_cpu_nodes()
            log(f"part 3, repeat {repeat + 1}/{args.repeats}: {mode} under {len(trace)} tenants' jobs")
            tenants = Tenants(cluster.sbatch, trace, script)
            tenants.start()
            time.sleep(args.contention_warmup)  # the workload arrives on a cluster already in use
            since = datetime.now().replace(microsecond=0)
            try:
                wall, records = measure(
                    cluster, mode, args, quantum_delay=args.contention_delay, before_settle=tenants.stop
                )
            finally:
                tenants.stop()
            own = [r for r in records if r.partition == "cpu" and r.name != "tenant"]
            cell = {
                "wall_s": wall,
                "node_s": sum(r.node_seconds for r in own),
                "queue_s": queue_seconds(since),
            }
            cells[mode].append(cell)
            log(f"  {mode}: wall {wall:.1f} s, {cell['node_s']:.0f} node-s, queued {cell['queue_s']:.0f} s")
    return cells


def run_short(cluster: Any, measure: Callable[..., Any], args: Any, log: Callable[[str], None]) -> dict:
    """Every mode of :data:`MODES3` with ``args.short_delay`` s quantum steps, no tenants: wall and node s."""
    cells: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES3}
    args = rounds_for_async(args)
    for mode in MODES3:
        idle_cpu_nodes()
        log(f"part 3, short quantum steps ({args.short_delay} s): {mode}")
        wall, records = measure(cluster, mode, args, quantum_delay=args.short_delay)
        node_s = sum(r.node_seconds for r in records if r.partition == "cpu")
        cells[mode].append({"wall_s": wall, "node_s": node_s})
        log(f"  {mode}: wall {wall:.1f} s, {node_s:.0f} node-s")
    return cells


def print_tables(means: dict, spread: dict, args: Any) -> None:
    """Part 3's tables: contention and short quantum steps, with placement and reconfiguration times."""
    print(
        f"\nPart 3: one workload under other tenants' jobs (trace seed {args.contention_seed}); "
        "mean +- half range"
    )
    print(
        "{:<19} {:>8} {:>5} {:>8} {:>5} {:>8} {:>5}".format(
            "mode", "wall s", "+-", "node-s", "+-", "queue s", "+-"
        )
    )
    for mode, cell in means["contention"].items():
        sd = spread.get("contention", {}).get(mode, {})
        row = [
            cell["wall_s"],
            sd.get("wall_s", 0),
            cell["node_s"],
            sd.get("node_s", 0),
            cell["queue_s"],
            sd.get("queue_s", 0),
        ]
        print("{:<19} {:>8.1f} {:>5.1f} {:>8.0f} {:>5.0f} {:>8.1f} {:>5.1f}".format(mode, *row))
    print(f"\nShort quantum steps ({args.short_delay} s, QCLUSTER Table II), no tenants")
    print("{:<19} {:>8} {:>8}".format("mode", "wall s", "node-s"))
    for mode, cell in means["short_quantum"].items():
        print("{:<19} {:>8.1f} {:>8.0f}".format(mode, cell["wall_s"], cell["node_s"]))
    print(
        f"\nplacement {means['placement']}; reconfigure_s (program held up) {means['reconfigure_s']}, "
        f"request to merged {means.get('reconfigure_to_merged_s')}; "
        f"quantum_step_on {means['quantum_step_on']}"
    )


def json_keys(cluster: Any, crowded: dict, short: dict, spread: dict, modes: tuple[str, ...]) -> dict:
    """The JSON line's keys of part 3 (means; their half ranges are added to ``spread``)."""
    blocked, total = reconfigure_seconds(
        {"blocking": cluster.outputs["blocking"], "async": cluster.outputs["async"]}
    )
    crowded_means, spread["contention"] = mean_cells(crowded)
    short_means, spread["short_quantum"] = mean_cells(short)
    texts = [text for outputs in cluster.outputs.values() for text in outputs]
    return {
        "placement": placement(texts),
        "reconfigure_s": blocked,
        "reconfigure_to_merged_s": total,
        "quantum_step_on": {mode: cluster.quantum_on.get(mode, "?") for mode in modes},
        "contention": crowded_means,
        "short_quantum": short_means,
    }
