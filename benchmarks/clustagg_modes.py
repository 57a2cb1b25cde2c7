"""Wall time and node-seconds of the three clustagg resource modes (the study's table).

For each quantum-step length (short, long) and each mode (baseline, malleable,
workflow), runs one workload and two concurrent workloads, each as its own command:

    baseline   mpiexec -n 3 python -m clustagg run --mode baseline ...
    malleable  python -m clustagg run --mode malleable ...   (spawns 2 workers per cluster phase)
    workflow   python -m clustagg workflow ...               (cluster step under mpiexec -n 3)

Every run does the same fixed number of rounds (threshold 1.0 never stops early).
Wall time is the makespan of the concurrent runs, from launch to the last exit (process
start-up included). Node-seconds are the sum of the runs' own accounting (see
clustagg.runner) plus, for process start-up and teardown, the nodes the mode holds
between phases (baseline 3, malleable 1, workflow 0); "run_node_seconds" leaves start-up
out. There is no shared node pool: concurrent workloads share this machine's cores.
The study used a quantum step of about 120 s (--quantum-delay 120) and the full 80,000
points (--full); the defaults are reduced to fit CI.

Prints a table, then ONE final JSON line. --figure saves the nodes-in-use timelines.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from clustagg.data import REFERENCE_SAMPLES
from clustagg.plotting import plot_timelines

MODES = ("baseline", "malleable", "workflow")
FLOOR = {"baseline": 3, "malleable": 1, "workflow": 0}


def command(mode: str, args, delay: float, out: Path, workdir: Path) -> list[str]:
    python = [sys.executable, "-m", "clustagg"]
    common = [
        "--n-samples",
        str(args.n_samples),
        "--seed",
        str(args.seed),
        "--max-iter",
        str(args.max_iter),
        "--threshold",
        "1.0",
        "--quantum-delay",
        str(delay),
        "--json",
        str(out),
    ]
    if mode == "baseline":
        return ["mpiexec", "-n", "3", *python, "run", "--mode", "baseline", *common]
    if mode == "malleable":
        return [*python, "run", "--mode", "malleable", "--workdir", str(workdir), *common]
    return [*python, "workflow", "--cluster-processes", "3", "--workdir", str(workdir), *common]


def measure(mode: str, args, delay: float, workloads: int, scratch: Path) -> dict:
    outs = [scratch / f"{mode}-{delay}-{workloads}-{k}.json" for k in range(workloads)]
    start = time.perf_counter()
    procs = [
        subprocess.Popen(command(mode, args, delay, out, scratch / out.stem), stdout=subprocess.DEVNULL)
        for out in outs
    ]
    ends = [None] * workloads
    while None in ends:
        for k, proc in enumerate(procs):
            if ends[k] is None and proc.poll() is not None:
                ends[k] = time.perf_counter() - start
        time.sleep(0.05)
    if any(proc.returncode for proc in procs):
        raise SystemExit(f"{mode} run failed with exit codes {[proc.returncode for proc in procs]}")
    results = [json.loads(out.read_text()) for out in outs]
    # Process start-up and teardown lie outside a run's own timeline; the nodes the mode
    # holds between phases (its floor) are held then too.
    startup = [end - r["wall_seconds"] for end, r in zip(ends, results, strict=True)]
    return {
        "mode": mode,
        "quantum_delay": delay,
        "workloads": workloads,
        "wall_seconds": max(ends),
        "run_wall_seconds": max(r["wall_seconds"] for r in results),
        "run_node_seconds": sum(r["node_seconds"] for r in results),
        "node_seconds": sum(
            r["node_seconds"] + FLOOR[mode] * s for r, s in zip(results, startup, strict=True)
        ),
        "iterations": results[0]["iterations"],
        "quantum_step_on": results[0]["quantum_step_on"],  # rank0 here: outside Slurm it stays local
        "timelines": [r["timeline"] for r in results],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n-samples", type=int, default=5000, help="points (default: 5000)")
    parser.add_argument("--full", action="store_true", help=f"use the full {REFERENCE_SAMPLES} points")
    parser.add_argument("--short-delay", type=float, default=0.5, help="short quantum step, s (default: 0.5)")
    parser.add_argument(
        "--quantum-delay",
        type=float,
        default=5.0,
        help="long quantum step, s (default: 5; the study used about 120)",
    )
    parser.add_argument("--max-iter", type=int, default=2, help="rounds per run (default: 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--figure", type=Path, help="save the nodes-in-use timelines (long step) here")
    parser.add_argument(
        "--quick", action="store_true", help="the short quantum step and one workload only: 3 runs"
    )
    args = parser.parse_args(argv)
    if args.full:
        args.n_samples = REFERENCE_SAMPLES
    rows = []
    with tempfile.TemporaryDirectory(prefix="clustagg-bench-") as scratch:
        for delay in (args.short_delay,) if args.quick else (args.short_delay, args.quantum_delay):
            for workloads in (1,) if args.quick else (1, 2):
                for mode in MODES:
                    rows.append(measure(mode, args, delay, workloads, Path(scratch)))
    for row in rows:
        base = next(
            r
            for r in rows
            if r["mode"] == "baseline"
            and r["quantum_delay"] == row["quantum_delay"]
            and r["workloads"] == row["workloads"]
        )
        row["node_seconds_ratio"] = row["node_seconds"] / base["node_seconds"]
        row["wall_ratio"] = row["wall_seconds"] / base["wall_seconds"]
    print(
        f"{'mode':<10} {'q-step s':>8} {'loads':>5} {'wall s':>8} {'node-s':>9} {'node/base':>9} "
        f"{'wall/base':>9}"
    )
    for r in rows:
        print(
            f"{r['mode']:<10} {r['quantum_delay']:>8.1f} {r['workloads']:>5} {r['wall_seconds']:>8.2f} "
            f"{r['node_seconds']:>9.2f} {r['node_seconds_ratio']:>9.2f} {r['wall_ratio']:>9.2f}"
        )
    if args.figure:
        panels = {
            f"{r['mode']}, {r['workloads']} workload(s), quantum step {r['quantum_delay']:g} s": (
                FLOOR[r["mode"]],
                r["timelines"],
            )
            for r in rows
            if r["quantum_delay"] == args.quantum_delay
        }
        plot_timelines(panels, args.figure, title=f"classical nodes in use ({args.n_samples} points)")
    summary = {
        "n_samples": args.n_samples,
        "max_iter": args.max_iter,
        "rows": [{k: v for k, v in r.items() if k != "timelines"} for r in rows],
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
