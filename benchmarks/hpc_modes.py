"""HPC modes on the emulated Slurm cluster, measured from Slurm's own job records.

Starts the emulated cluster of ``examples/slurm/cluster`` (compute nodes c1-c3 in
partition ``cpu``, the quantum node q1 in ``qpu``) in a temporary state directory, runs
the experiments below, and stops it. Wall times are taken on this machine's clock from
submission to the end of the last job; node-seconds are the sum of nodes x (end - start)
over the ``cpu``-partition records of Slurm's accounting (``sacct`` through the cluster's
slurmdbd; classical nodes only; one-second resolution), where a resized job has one
record per size it had (the malleable mode grows and shrinks its own job, see
:class:`clustagg.slurm.SlurmAllocation`).

Part 1, clustering aggregation in three resource modes, one workload and two concurrent
ones, ``--repeats`` times (mean and spread):

* baseline: one job of 3 cpu nodes for the whole loop (``srun`` 3 MPI ranks);
* malleable: ``examples/slurm/cluster/clustagg_malleable.sh`` (1 node, growing to 3 for
  each clustering, giving up after ``--grow-timeout`` s);
* workflow: ``python -m clustagg workflow`` with every step a Slurm job (clustering on 3 cpu
  nodes, the quantum step on the quantum node, scoring on 1 cpu node).

In every mode the quantum step is a job of its own on the quantum node
(``--quantum-step qpu-partition``, ``CLUSTAGG_SRUN_PARTITIONS=cpu:qpushared``), which sleeps
``--quantum-delay`` seconds there (the seed's QCLUSTER ran 2-minute quantum jobs; scaled
down here); no classical rank sleeps for it.

Part 2, two users' hybrid jobs sharing one QPU: each job alternates ``--blocks`` classical
phases of ``--classical`` seconds (on its cpu node) and quantum blocks (one GHZ batch
through the MPI quantum service with ``--latency`` seconds of emulated QPU time).
Monolithic: one heterogeneous job per user holding the quantum node throughout (DPM
service, one client per block). Chained: per user, a chain of sub-jobs
(``--dependency=afterok``): a cpu-only job per classical phase and a heterogeneous job per
quantum block, so the QPU is held only during quantum blocks and the two users' blocks
interleave. QPU idle fraction = 1 - (service busy seconds) / (seconds the quantum node
was allocated, from the ``qpu`` records); makespan from the first submission to the last
end.

Part 3 (``benchmarks/_hpc_contention.py``), one workload of five modes (part 1's, the
malleable mode with ``--grow async``, the workflow with ``--malleable-cluster``), 2 rounds at
least: under other tenants' jobs arriving by a seeded Poisson trace (``--contention-*``;
wall, node and queue seconds, ``--repeats`` times), and with ``--short-delay`` s quantum steps
(QCLUSTER Table II). Where the workers of the malleable runs ran is counted from their own
``SLURMD_NODENAME`` lines, and the grows' times from the library's log lines.

Usage: ``python benchmarks/hpc_modes.py [--quick] [--repeats 3] [--json-only] [--figures
DIR]``. Needs Slurm (``examples/slurm/install.sh``) and root. Prints the tables beside the
seed's numbers, saves two figures (``DIR/hpc_modes.png``: wall time and node-seconds per
mode beside the seed's, both relative to the baseline single workload;
``DIR/hpc_chains.png``: QPU idle fraction and makespan) and, last, one JSON line
``{"modes": {MODE: {"single"|"double": {"wall_s", "node_s"}}}, "chains": {"monolithic"|"chained":
{"qpu_idle_fraction", "makespan_s"}}, "placement": {"grown_workers", "on_added_nodes",
"on_released_nodes_after_shrink"}, "reconfigure_s": {"blocking", "async"} (seconds the program
was held up by a grow; ``"reconfigure_to_merged_s"``: from the request to the workers merged),
"quantum_step_on": {MODE: where}, "contention": {MODE: {"wall_s", "node_s", "queue_s"}},
"short_quantum": {MODE: {"wall_s", "node_s"}}}`` (means over the repeats; the spreads are in
``"spread"``, the options in ``"settings"``). ``--from-json FILE`` prints the tables and
saves the figures of a saved output without running anything. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLUSTER = ROOT / "examples" / "slurm" / "cluster"
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.append(str(Path(__file__).resolve().parent))  # the private _hpc_* modules, after the packages

import _hpc_contention as contention  # noqa: E402

from clustagg import slurm  # noqa: E402

#: The seed's QCLUSTER measurements (3 compute nodes + a quantum node, 2-minute quantum jobs).
SEED = {
    "baseline": {"single": (1019.6, 3058.7), "double": (2038.4, 6115.3)},
    "workflow": {"single": (1057.8, 1161.2), "double": (1226.0, 2324.0)},
    "malleable": {"single": (1029.1, 1647.8), "double": (1127.7, 2817.7)},
}
MODES = ("baseline", "malleable", "workflow")
#: Options recorded in the JSON line (``"settings"``), so that ``--from-json`` prints the run's.
SETTINGS = (
    "repeats", "n_samples", "max_iter", "quantum_delay", "grow_timeout", "blocks", "classical", "latency",
    "contention_seed", "contention_horizon", "contention_warmup", "contention_delay", "short_delay",
)  # fmt: skip
#: Every mode's quantum step leaves the classical nodes: a job on the shared quantum partition.
OFFLOAD = {"CLUSTAGG_SRUN_PARTITIONS": "cpu:qpushared"}
WORKFLOW = [sys.executable, "-m", "clustagg", "workflow"]
#: The JSON line's keys of part 3.
PART3 = (
    "placement",
    "reconfigure_s",
    "reconfigure_to_merged_s",
    "quantum_step_on",
    "contention",
    "short_quantum",
)


def log(message: str) -> None:
    print(f"hpc_modes: {message}", file=sys.stderr, flush=True)


class Cluster:
    """The emulated cluster in a temporary state directory, with its environment."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.work = state / "work"
        self.work.mkdir()
        self.env = {
            **os.environ,
            "SLURM_CONF": str(state / "slurm.conf"),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
            "BBQMIS_MPI_PORTS": str(self.work / "ports"),
        }
        os.environ["SLURM_CONF"] = self.env["SLURM_CONF"]
        self.root = ROOT
        #: what the malleable runs printed, by grow ("blocking", "async", "workflow"), for the placement
        self.outputs: dict[str, list[str]] = {"blocking": [], "async": [], "workflow": []}
        #: where each mode's quantum step ran, from its result (quantum_step_on)
        self.quantum_on: dict[str, str] = {}

    def sbatch(self, *arguments: str, env: dict[str, str] | None = None) -> int:
        return slurm.submit(
            [f"--chdir={self.work}", f"--output={self.work}/slurm-%j.out", *arguments],
            env={**self.env, **(env or {})},
        )

    def wait_all(self, jobs: list[int], timeout: float) -> None:
        for job in jobs:
            state = slurm.wait_for_state(job, slurm.FINISHED, timeout)
            if state != "COMPLETED":
                output = self.work / f"slurm-{job}.out"
                detail = output.read_text()[-2000:] if output.exists() else ""
                raise RuntimeError(f"job {job} ended {state}:\n{detail}")


def measured(
    cluster: Cluster,
    launch: Callable[..., Callable[[], None]],
    *arguments: object,
    before_settle: Callable[[], None] = lambda: None,
) -> tuple[float, list[slurm.JobRecord]]:
    """Run ``launch(*arguments)`` (which returns a waiter); return wall seconds and the new records.

    ``before_settle`` runs once the workload has ended, before the records are read.
    """
    since = datetime.now().replace(microsecond=0)
    tic = time.time()
    launch(*arguments)()
    wall = time.time() - tic
    before_settle()
    return wall, settled_accounting(since)


def measure_mode(
    cluster: Cluster, mode: str, args: argparse.Namespace, *, quantum_delay: float | None = None, **hooks: Any
) -> tuple[float, list[slurm.JobRecord]]:
    """:func:`measured` of one workload of ``mode`` (with ``quantum_delay`` s quantum steps if given)."""
    if quantum_delay is not None:
        args = argparse.Namespace(**{**vars(args), "quantum_delay": quantum_delay})
    return measured(cluster, launch_mode, cluster, mode, 1, args, **hooks)


def settled_accounting(since: datetime, timeout: float = 30.0) -> list[slurm.JobRecord]:
    """Accounting records of the jobs started since ``since``, once slurmdbd has every job's last one.

    slurmdbd receives the records shortly after the jobs end; complete means that every
    job's last record is final (not ``RESIZING``; expansion jobs, named ``grow-*``, end
    that way) and a read 1 s later agrees. After ``timeout`` seconds the records are
    returned with a warning on stderr.
    """

    def complete(records: list[slurm.JobRecord]) -> bool:
        last = {r.job_id: r for r in records}  # ordered by end within each job
        return all(r.state != "RESIZING" or r.name.startswith("grow-") for r in last.values())

    deadline = time.monotonic() + timeout
    records = slurm.read_accounting(since)
    while True:
        time.sleep(1.0)
        records, previous = slurm.read_accounting(since), records
        if records == previous and complete(records):
            break
        if time.monotonic() >= deadline:
            log(f"warning: accounting records still incomplete after {timeout:g} s")
            break
    return [r for r in records if r.start >= since.timestamp()]


# ---------------------------------------------------------------- part 1: clustagg modes


def clustagg_options(args: argparse.Namespace) -> list[str]:
    return [
        "--n-samples", str(args.n_samples), "--max-iter", str(args.max_iter), "--threshold", "0.99",
        "--quantum-delay", str(args.quantum_delay), "--solver", "exact", "--seed", "1",
    ]  # fmt: skip


def launch_mode(cluster: Cluster, mode: str, copies: int, args: argparse.Namespace) -> Callable[[], None]:
    """Start ``copies`` workloads of ``mode`` at once; return a function that waits for them.

    ``mode`` is one of :data:`MODES`, ``malleable-async`` (``--grow async``) or
    ``workflow-malleable`` (``--malleable-cluster``); every quantum step is offloaded (:data:`OFFLOAD`).
    """
    options = [*clustagg_options(args), "--quantum-step", "qpu-partition"]
    if mode == "baseline":
        json_out = "--json baseline-$SLURM_JOB_ID.json"
        command = " ".join(["srun", sys.executable, "-m", "clustagg", "run", *options, json_out])
        jobs = [
            cluster.sbatch("--partition=cpu", "--nodes=3", "--ntasks=3", f"--wrap={command}", env=OFFLOAD)
            for _ in range(copies)
        ]
        return lambda: finished(cluster, mode, jobs, args, [f"baseline-{job}.json" for job in jobs])
    if mode.startswith("malleable"):
        grow = " --grow async" if mode == "malleable-async" else ""
        env = {
            **OFFLOAD,
            "N_SAMPLES": str(args.n_samples),
            "MAX_ITER": str(args.max_iter),
            "QUANTUM_DELAY": str(args.quantum_delay),
            "CLUSTAGG_ARGS": f"--threshold 0.99 --seed 1 --quantum-step qpu-partition{grow}",
            "CLUSTAGG_GROW_TIMEOUT": str(args.grow_timeout),
        }
        jobs = [cluster.sbatch(str(CLUSTER / "clustagg_malleable.sh"), env=env) for _ in range(copies)]
        return lambda: finished(cluster, mode, jobs, args, [f"malleable-{job}.json" for job in jobs])
    env = {**cluster.env, **OFFLOAD, "CLUSTAGG_GROW_TIMEOUT": str(args.grow_timeout)}
    malleable = ["--malleable-cluster"] if mode == "workflow-malleable" else []
    runs = [f"wf-{time.time_ns()}-{k}" for k in range(copies)]
    drivers = [
        subprocess.Popen(
            [*WORKFLOW, *clustagg_options(args), *malleable, "--workdir", str(cluster.work / run),
             "--json", str(cluster.work / f"{run}.json")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for run in runs
    ]  # fmt: skip

    def wait() -> None:
        for driver in drivers:
            _, err = driver.communicate(timeout=args.timeout)
            if driver.returncode != 0:
                raise RuntimeError(f"workflow driver failed:\n{err[-2000:]}")
        finished(cluster, mode, [], args, [f"{run}.json" for run in runs])

    return wait


def finished(
    cluster: Cluster, mode: str, jobs: list[int], args: argparse.Namespace, results: list[str]
) -> None:
    """Wait for ``jobs``; note where the quantum step ran and what the malleable runs printed."""
    cluster.wait_all(jobs, args.timeout)
    for name in results:
        cluster.quantum_on[mode] = json.loads((cluster.work / name).read_text())["quantum_step_on"]
    if mode.startswith("malleable"):
        kind = "async" if mode == "malleable-async" else "blocking"
        cluster.outputs[kind] += [(cluster.work / f"slurm-{job}.out").read_text() for job in jobs]
    if mode == "workflow-malleable":
        for name in results:
            logs = sorted((cluster.work / name.removesuffix(".json")).glob("round-*/cluster.log"))
            cluster.outputs["workflow"] += [path.read_text() for path in logs]


def run_modes(cluster: Cluster, args: argparse.Namespace) -> dict[str, dict[str, list[tuple[float, float]]]]:
    results: dict[str, dict[str, list[tuple[float, float]]]] = {
        m: {"single": [], "double": []} for m in MODES
    }
    for repeat in range(args.repeats):
        for mode in MODES:
            for label, copies in (("single", 1), ("double", 2)):
                log(f"part 1, repeat {repeat + 1}/{args.repeats}: {mode} {label}")
                wall, records = measured(cluster, launch_mode, cluster, mode, copies, args)
                node_s = sum(r.node_seconds for r in records if r.partition == "cpu")
                results[mode][label].append((wall, node_s))
                log(f"  {mode} {label}: wall {wall:.1f} s, {node_s:.0f} node-s ({len(records)} job records)")
    return results


# ---------------------------------------------------------------- part 2: chains


def probe(target: str) -> str:
    return f"{sys.executable} -m backends.mpi_service probe --backend {target} --shots 100"


def serve(args: argparse.Namespace, stats: str, *extra: str) -> str:
    service = f"{sys.executable} -m backends.mpi_service serve --backend aer --latency {args.latency}"
    return " ".join([service, "--stats", stats, *extra])


#: Header of a heterogeneous job: one cpu node, and the quantum node.
HET = (
    "#SBATCH --partition=cpu --nodes=1 --ntasks=1\n"
    "#SBATCH hetjob\n"
    "#SBATCH --partition=qpu --nodes=1 --ntasks=1\n"
)


def monolithic_script(args: argparse.Namespace, user: int) -> str:
    name, blocks = f"user{user}-$SLURM_JOB_ID", str(args.blocks)
    return (
        f"#!/bin/bash\n{HET}set -e\n"
        f"srun --het-group=1 {serve(args, f'stats-{name}.json', '--name', name, '--clients', blocks)} &\n"
        f"for k in $(seq {args.blocks}); do\n  sleep {args.classical}\n"
        f"  srun --het-group=0 {probe('mpi:' + name)}\ndone\nwait\n"
    )


def launch_chains(cluster: Cluster, args: argparse.Namespace, chained: bool) -> Callable[[], None]:
    jobs: list[int] = []
    for user in (1, 2):
        if not chained:
            script = cluster.work / f"monolithic-{user}.sh"
            script.write_text(monolithic_script(args, user))
            jobs.append(cluster.sbatch(str(script)))
            continue
        previous = None
        for block in range(args.blocks):
            after = [f"--dependency=afterok:{previous}"] if previous else []
            classical = cluster.sbatch(
                *after, "--partition=cpu", "--nodes=1", f"--wrap=sleep {args.classical}"
            )
            script = cluster.work / f"block-{user}-{block}.sh"
            stats = f"stats-user{user}-block{block}.json"
            step = f"srun --het-group=0 {probe('mpi:world')} : --het-group=1 {serve(args, stats)}"
            script.write_text(f"#!/bin/bash\n{HET}{step}\n")
            previous = cluster.sbatch(f"--dependency=afterok:{classical}", str(script))
            jobs += [classical, previous]
    return lambda: cluster.wait_all(jobs, args.timeout)


def run_chains(cluster: Cluster, args: argparse.Namespace) -> dict[str, list[tuple[float, float]]]:
    results: dict[str, list[tuple[float, float]]] = {"monolithic": [], "chained": []}
    for repeat in range(args.repeats):
        for label in results:
            log(f"part 2, repeat {repeat + 1}/{args.repeats}: {label}")
            for old in cluster.work.glob("stats-*.json"):
                old.unlink()
            makespan, records = measured(cluster, launch_chains, cluster, args, label == "chained")
            held = sum(r.seconds for r in records if r.partition == "qpu")
            busy = sum(json.loads(p.read_text())["busy_seconds"] for p in cluster.work.glob("stats-*.json"))
            idle = 1.0 - busy / held if held > 0 else float("nan")
            results[label].append((idle, makespan))
            log(
                f"  {label}: QPU {held:.0f} s held, {busy:.1f} s busy, idle {idle:.2f}, span {makespan:.1f} s"
            )
    return results


# ---------------------------------------------------------------- report


def mean_spread(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), (max(values) - min(values)) / 2 if len(values) > 1 else 0.0


def summarize(modes: dict, chains: dict) -> tuple[dict, dict]:
    """Means (the JSON line's numbers) and half ranges of every measurement."""
    means: dict = {"modes": {}, "chains": {}}
    spread: dict = {"modes": {}, "chains": {}}
    for mode in MODES:
        for label in ("single", "double"):
            walls, nodes = zip(*modes[mode][label], strict=True)
            (wall, wall_spread), (node, node_spread) = mean_spread(list(walls)), mean_spread(list(nodes))
            means["modes"].setdefault(mode, {})[label] = {"wall_s": round(wall, 2), "node_s": round(node, 1)}
            spread["modes"].setdefault(mode, {})[label] = {
                "wall_s": round(wall_spread, 2),
                "node_s": round(node_spread, 1),
            }
    for label, values in chains.items():
        idles, spans = zip(*values, strict=True)
        (idle, idle_spread), (span, span_spread) = mean_spread(list(idles)), mean_spread(list(spans))
        means["chains"][label] = {"qpu_idle_fraction": round(idle, 3), "makespan_s": round(span, 2)}
        spread["chains"][label] = {
            "qpu_idle_fraction": round(idle_spread, 3),
            "makespan_s": round(span_spread, 2),
        }
    return means, spread


def print_tables(means: dict, spread: dict, args: argparse.Namespace) -> None:
    print(
        f"\nPart 1: clustagg, {args.n_samples} points, {args.max_iter} rounds, quantum step "
        f"{args.quantum_delay} s, {args.repeats} repeat(s) (mean +- half range); "
        "seed: QCLUSTER, 2-min quantum jobs"
    )
    header = ("mode", "workloads", "wall s", "+-", "node-s", "+-", "seed wall s", "seed node-s")
    print("{:<10} {:<9} {:>8} {:>5} {:>8} {:>5} | {:>11} {:>11}".format(*header))
    for mode in MODES:
        for label in ("single", "double"):
            ours, sd = means["modes"][mode][label], spread["modes"][mode][label]
            row = (
                mode,
                label,
                ours["wall_s"],
                sd["wall_s"],
                ours["node_s"],
                sd["node_s"],
                *SEED[mode][label],
            )
            print("{:<10} {:<9} {:>8.1f} {:>5.1f} {:>8.0f} {:>5.0f} | {:>11.1f} {:>11.1f}".format(*row))
    print(
        f"\nPart 2: two users' hybrid jobs on one QPU, {args.blocks} blocks each of "
        f"{args.classical} s classical + {args.latency} s quantum"
    )
    print("{:<11} {:>18} {:>11}".format("jobs", "QPU idle fraction", "makespan s"))
    for label, numbers in means["chains"].items():
        print("{:<11} {:>18.3f} {:>11.1f}".format(label, numbers["qpu_idle_fraction"], numbers["makespan_s"]))
    if "contention" in means:
        contention.print_tables(means, spread, args)


def save_figures(means: dict, spread: dict, directory: Path) -> list[Path]:
    """Bar charts of the JSON line's numbers, with the half ranges as error bars; the PNG paths.

    ``hpc_modes.png``: wall time and node-seconds per mode, single and double workload,
    each beside the seed's QCLUSTER bars normalised to the baseline single workload (the
    seed's times are in minutes-long quantum jobs, ours in seconds: the shapes compare);
    ``hpc_chains.png``: QPU idle fraction and makespan, monolithic against chained.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    labels = [f"{mode}\n{label}" for mode in MODES for label in ("single", "double")]
    x = range(len(labels))
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for ax, key, index, title in (
        (axes[0], "wall_s", 0, "wall time"),
        (axes[1], "node_s", 1, "node-seconds"),
    ):
        ours = [means["modes"][m][w][key] for m in MODES for w in ("single", "double")]
        errors = [spread["modes"][m][w][key] for m in MODES for w in ("single", "double")]
        seed = [SEED[m][w][index] for m in MODES for w in ("single", "double")]
        ax.bar([i - 0.2 for i in x], [v / ours[0] for v in ours], 0.4, yerr=[e / ours[0] for e in errors],
               capsize=3, label="emulated cluster (this run)")  # fmt: skip
        ax.bar([i + 0.2 for i in x], [v / seed[0] for v in seed], 0.4, label="seed, QCLUSTER")
        ax.set_xticks(list(x), labels, fontsize=8)
        ax.set_ylabel(f"{title} / baseline single")
        ax.set_title(title)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    modes_png = directory / "hpc_modes.png"
    fig.savefig(modes_png, dpi=120)
    plt.close(fig)

    chains = list(means["chains"])
    fig, axes = plt.subplots(1, 2, figsize=(7, 3.2))
    for ax, key, title in (
        (axes[0], "qpu_idle_fraction", "QPU idle fraction"),
        (axes[1], "makespan_s", "makespan (s)"),
    ):
        ax.bar(chains, [means["chains"][c][key] for c in chains], 0.5,
               yerr=[spread["chains"][c][key] for c in chains], capsize=3)  # fmt: skip
        ax.set_title(title)
    fig.suptitle("two users' hybrid jobs on one QPU", fontsize=10)
    fig.tight_layout()
    chains_png = directory / "hpc_chains.png"
    fig.savefig(chains_png, dpi=120)
    plt.close(fig)
    return [modes_png, chains_png]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced run (under 15 minutes)")
    parser.add_argument("--repeats", type=int, help="repeats of every measurement (default 3, quick 1)")
    parser.add_argument("--n-samples", type=int, help="points (default 3000, quick 1000)")
    parser.add_argument("--max-iter", type=int, help="rounds (default 3, quick 1)")
    parser.add_argument("--quantum-delay", type=float, help="seconds per quantum step (default 60, quick 10)")
    parser.add_argument("--grow-timeout", type=float, default=10.0, help="malleable: seconds a grow may wait")
    parser.add_argument("--blocks", type=int, help="part 2: quantum blocks per job (default 4, quick 2)")
    parser.add_argument(
        "--classical", type=float, help="part 2: seconds of each classical phase (default 8, quick 5)"
    )
    parser.add_argument(
        "--latency", type=float, help="part 2: seconds of each quantum block (default 6, quick 4)"
    )
    parser.add_argument("--contention-seed", type=int, default=1, help="part 3: seed of the tenants' trace")
    parser.add_argument(
        "--contention-horizon",
        type=float,
        help="part 3: seconds of tenants' arrivals (default 300, quick 45)",
    )
    parser.add_argument(
        "--contention-delay", type=float, help="part 3: quantum step under contention (default 60, quick 5)"
    )
    parser.add_argument(
        "--contention-warmup",
        type=float,
        help="part 3: tenants' seconds before the workload (default 30, quick 15)",
    )
    parser.add_argument("--short-delay", type=float, default=0.5, help="part 3: the short quantum step (s)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds any workload may take")
    parser.add_argument("--json-only", action="store_true", help="print only the JSON line")
    parser.add_argument(
        "--figures", type=Path, default=Path("results/hpc_modes"), help="directory of the PNG figures"
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        help="no run: print the tables and save the figures of a saved output (its last line is the JSON)",
    )
    args = parser.parse_args()
    defaults = {
        "repeats": (3, 1),
        "n_samples": (3000, 1000),
        "max_iter": (3, 1),
        "quantum_delay": (60.0, 10.0),
        "blocks": (4, 2),
        "classical": (8.0, 5.0),
        "latency": (6.0, 4.0),
        "contention_horizon": (300.0, 45.0),
        "contention_warmup": (30.0, 15.0),
        "contention_delay": (60.0, 5.0),
    }
    for name, (full, quick) in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    for name in ("repeats", "n_samples", "max_iter", "blocks"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    return args


def main() -> int:
    args = parse_args()
    if args.from_json is not None:
        means, spread, settings = saved_numbers(args.from_json)
        vars(args).update(settings)
    else:
        means, spread = run_experiments(args)
        if means is None:
            return 1
    settings = {k: getattr(args, k, None) for k in SETTINGS}
    line = json.dumps({**means, "spread": spread, "settings": settings})
    if not args.json_only:
        print_tables(means, spread, args)
        try:
            for path in save_figures(means, spread, args.figures):
                print(f"figure: {path}")
        except (OSError, ValueError) as exc:  # the measurements are still printed below
            log(f"the figures were not saved: {exc}")
    print(line)
    return 0


def saved_numbers(path: Path) -> tuple[dict, dict, dict]:
    """Means, spreads and settings (if recorded) from the last line of a saved output of this script."""
    try:
        data = json.loads(path.read_text().strip().splitlines()[-1])
        means = {key: data[key] for key in ("modes", "chains")}
        means.update({key: data[key] for key in PART3 if key in data})
        return means, data["spread"], data.get("settings", {})
    except (OSError, IndexError, ValueError, KeyError) as exc:
        print(f"hpc_modes: --from-json {path}: not an output of this script ({exc})", file=sys.stderr)
        raise SystemExit(2) from exc


def run_experiments(args: argparse.Namespace) -> tuple[dict | None, dict]:
    """Start the emulated cluster, run both parts, stop it; the means and spreads (None: no cluster)."""
    # a kill stops the emulated cluster too (the finally block below)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    with tempfile.TemporaryDirectory(prefix="hpc-modes-") as state:
        started = subprocess.run(["bash", str(CLUSTER / "start.sh"), state], capture_output=True, text=True)
        if started.returncode != 0:
            print(f"hpc_modes: the emulated cluster did not start: {started.stderr.strip()}", file=sys.stderr)
            return None, {}
        try:
            cluster = Cluster(Path(state))
            modes = run_modes(cluster, args)
            chains = run_chains(cluster, args)
            crowded = contention.run_contention(cluster, measure_mode, args, log)
            short = contention.run_short(cluster, measure_mode, args, log)
        finally:
            subprocess.run(["bash", str(CLUSTER / "stop.sh"), state], capture_output=True)
    means, spread = summarize(modes, chains)
    return {**means, **contention.json_keys(cluster, crowded, short, spread, MODES)}, spread


if __name__ == "__main__":
    sys.exit(main())
