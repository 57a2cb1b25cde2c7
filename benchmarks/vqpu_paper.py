"""The multiplexing experiment of "Three ways to share a QPU" (arXiv:2604.14955), with BBQ-MIS jobs.

Section 4.3.1 and Figures 7 and 8 of the paper, run under Slurm.

For N concurrent jobs and sleep factor alpha, N ``python -m bbqmis GRAPH`` jobs colour
the same small graph, each submitted with ``examples/slurm/submit.sh`` to the
single-node Slurm of ``examples/slurm`` and each holding one vQPU licence (``--gres``:
one GRES instead), while one vQPU server multiplexes their circuits on one device.
Each job sleeps alpha x quantum time after every circuit (its classical work). Every
point is repeated; the server's device is the ``null`` backend with ``--latency``
seconds per circuit by default, so the quantum time is the emulated device's.

Per point (measured, never computed from a model):

- total time: first job start to last job end (the jobs' own timestamps, written by
  ``job.sh``), against N x T1, co-scheduling one job after another, T1 the mean
  runtime of a lone job at the same alpha in the same repeat;
- quantum occupancy: device seconds of the point's batches / total time;
- mean cumulative queue time per job: each job's batches' queue times summed, averaged
  over the jobs;
- the jobs' runtimes (their distribution is the violin plot of Figure 8).

Figures (``--figures DIR``): ``vqpu_paper_metrics.png`` (occupancy, total time with
N x T1, queue time against N, one line per alpha: mean and standard-deviation band over
the repeats) and ``vqpu_paper_runtimes.png`` (violins of the job runtimes per N, one
panel per alpha).

Two workloads (:data:`VARIANTS`, ``--variants``):

- ``null``: the jobs above, the closed-form angles, the server on the ``null`` backend;
- ``trained``: the seed's hybrid loop: every job trains its QAOA angles on the shared vQPU
  (``--angles trained``: COBYLA over energies estimated from the device's samples, cut
  problems through the cut reconstruction), the server on Aer with the noise, gates and
  coupling map of IQM's fake Adonis (``aer:noisy-adonis``, 5 qubits) plus ``--latency``
  emulated device seconds per circuit. The graph is small (``myciel3``, or ``--graph``);
  MIS problems wider than 5 qubits are cut (at most two wire cuts) or fall back to
  annealing.

Per job it also reads the job's JSON output: the ratio of its classical to its quantum
time, ``(runtime - device seconds - queue seconds) / device seconds`` (device and queue
seconds of its batches from the server's database), its training evaluations, cut
problems and fallbacks. ``python benchmarks/vqpu_paper.py --quick`` runs both variants
(N in {1, 2}, alpha in {0, 2}, one repeat), prints a table per variant and one JSON line,
and writes ``vqpu_paper_<variant>.csv`` and the figures ``vqpu_paper_<variant>_*.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLURM = ROOT / "examples" / "slurm"
sys.path.insert(0, str(ROOT / "src"))
sys.path.append(str(ROOT / "benchmarks"))  # _vqpu_common, also when this file is imported by path

from _vqpu_common import Server, default_server_command  # noqa: E402

from backends.vqpu.server.store import read_batches  # noqa: E402

#: Options of every colouring job: the BBQ-MIS tree alone proves (no exact phase), one process.
BBQMIS_ARGS = "--exact-share 0 --no-mycielski --executor serial --quiet --seed 1"

#: The workloads: the server's backend and emulated seconds per circuit, the jobs' graph,
#: shots and extra options. ``null`` is the experiment as it was; ``trained`` the seed's
#: hybrid loop on a simulated noisy device (the options of the command line override these).
VARIANTS = {
    "null": {"backend": "null", "latency": 0.2, "graph": "myciel4", "shots": 256, "job_args": ""},
    "trained": {
        "backend": "aer:noisy-adonis",
        "latency": 0.05,
        "graph": "myciel3",
        "shots": 256,
        "job_args": "--angles trained --training-evaluations 6 --training-shots 128",
    },
}


def slurm_env(state: Path) -> dict[str, str]:
    """The environment of Slurm commands for the cluster in ``state``, with ``src`` importable."""
    path = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "SLURM_CONF": str(state / "slurm.conf"), "PYTHONPATH": path}


def _run(command: list[str], env: dict[str, str], timeout: float = 60) -> str:
    """Run ``command``; return its output, or raise RuntimeError with the end of its error output."""
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{shlex.join(command)} failed: {result.stderr.strip()[-500:]}")
    return result.stdout


@contextmanager
def slurm_cluster(licences: int) -> Iterator[dict[str, str]]:
    """Start the single-node Slurm of examples/slurm; yield its environment; stop it.

    The node has ``licences`` vqpu licences and as many vqpu GRES; each job asks for one.

    Its state lives in a fresh directory under the system's temporary directory: MUNGE's
    socket path must stay within the 107 bytes of a Unix socket address.
    """
    state = Path(tempfile.mkdtemp(prefix="vqpu-slurm-"))
    env = slurm_env(state)
    try:
        _run(["bash", str(SLURM / "start.sh"), str(state), str(licences)], env, timeout=90)
        yield env
    finally:
        subprocess.run(["bash", str(SLURM / "stop.sh"), str(state)], env=env, timeout=90)
        shutil.rmtree(state, ignore_errors=True)


def run_point(
    env: dict[str, str], url: str, n: int, alpha: float, args, out: Path, tokens: Path
) -> list[dict]:
    """Submit N colouring jobs at once through submit.sh; wait for them; return their time records."""
    times = out / f"times-n{n}-a{alpha:g}-{time.time_ns()}.jsonl"
    job_env = {
        **env,
        "GRAPH": str(args.graph),
        "SHOTS": str(args.shots),
        "SLEEP_FACTOR": str(alpha),
        "BBQMIS_ARGS": f"{BBQMIS_ARGS} {getattr(args, 'job_args', '')}".strip(),
        "OUTPUT_DIR": str(out / "jobs"),
        "VQPU_TIMES": str(times),
        "VQPU_RESOURCE": "gres" if args.gres else "licenses",
    }
    ids = _run(["bash", str(SLURM / "submit.sh"), str(n), url, str(tokens)], job_env).split()
    deadline = time.monotonic() + args.job_timeout
    while _run(["squeue", "-h", "-j", ",".join(ids)], env).strip():
        if time.monotonic() > deadline:
            subprocess.run(["scancel", *ids], env=env)
            raise RuntimeError(f"Slurm jobs {ids} not finished within {args.job_timeout} s")
        time.sleep(0.25)
    records = [json.loads(line) for line in times.read_text().splitlines()]
    failed = [r for r in records if r["exit"] != 0]
    if len(records) != n or failed:
        logs = " ".join(str(out / "jobs" / f"vqpu-{r['slurm_job']}.out") for r in failed)
        raise RuntimeError(f"{len(records)} of {n} jobs reported, failed: {failed}; see {logs}")
    return records


def measure(records: list[dict], db: Path, jobs: Path | None = None) -> dict:
    """One point's metrics: the jobs' time records, the server's database, the JSON outputs in ``jobs``."""
    names = {r["vqpu_job"] for r in records}
    batches = [b for b in read_batches(db) if b.job in names]
    start, end = min(r["start"] for r in records), max(r["end"] for r in records)
    queue = {name: 0.0 for name in names}
    device = {name: 0.0 for name in names}
    for b in batches:
        queue[b.job] += b.queue_seconds or 0.0
        device[b.job] += b.quantum_seconds or 0.0
    quantum = sum(device.values())
    runtimes = {r["vqpu_job"]: r["end"] - r["start"] for r in records}
    return {
        "total_seconds": end - start,
        "quantum_seconds": quantum,
        "occupancy": quantum / (end - start),
        "mean_cumulative_queue_seconds": statistics.fmean(queue.values()),
        "batches": len(batches),
        "runtimes": [r["end"] - r["start"] for r in records],
        "classical_quantum": [
            (runtimes[j] - device[j] - queue[j]) / device[j] if device[j] > 0 else float("nan")
            for j in runtimes
        ],
        **(job_counters(records, jobs) if jobs is not None else {}),
    }


def job_counters(records: list[dict], jobs: Path) -> dict:
    """Training evaluations, cut problems and fallbacks summed over the jobs' JSON outputs."""
    totals = {"training_evaluations": 0, "cut_problems": 0, "fallbacks": 0, "colours": []}
    for r in records:
        data = json.loads((jobs / f"bbqmis-{r['slurm_job']}.json").read_text())
        stats = data["stats"]
        totals["training_evaluations"] += int((stats.get("training") or {}).get("evaluations", 0))
        totals["cut_problems"] += int(stats["sampler"].get("cut_problems", 0))
        totals["fallbacks"] += int(stats["sampler"].get("fallbacks", 0))
        totals["colours"].append(data["num_colors"])
    return totals


def experiment(args, out: Path, progress) -> list[dict]:
    """Run the grid (repeats x alphas x N) on one Slurm and one vQPU server; return one dict per point."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "jobs").mkdir(exist_ok=True)
    db, tokens = out / "vqpu.sqlite", out / "tokens.txt"
    db.unlink(missing_ok=True)
    tokens.write_text("# one 'name token user' line per Slurm job, appended by submit.sh\n")
    serve_args = ("--latency", str(args.latency), "--token-file", str(tokens), "--max-queue", "10000")
    serve_args += tuple(getattr(args, "serve_args", ()))
    server = Server(default_server_command(args.backend), db, *serve_args)
    points = []
    with slurm_cluster(max(args.n)) as env, server.running():
        for repeat in range(args.repeats):
            for alpha in args.alpha:
                for n in sorted(args.n):
                    progress({"phase": "run", "repeat": repeat + 1, "alpha": alpha, "N": n})
                    records = run_point(env, server.url, n, alpha, args, out, tokens)
                    metrics = measure(records, db, out / "jobs")
                    points.append({"n": n, "alpha": alpha, "repeat": repeat, **metrics})
    for p in points:
        lone = [q for q in points if q["n"] == 1 and q["alpha"] == p["alpha"] and q["repeat"] == p["repeat"]]
        p["baseline_seconds"] = p["n"] * statistics.fmean(lone[0]["runtimes"]) if lone else float("nan")
        p["ratio"] = p["total_seconds"] / p["baseline_seconds"]
    return points


def _mean_std(points: list[dict], metric: str, n: int, alpha: float) -> tuple[float, float]:
    values = [p[metric] for p in points if p["n"] == n and p["alpha"] == alpha]
    return statistics.fmean(values), statistics.pstdev(values)


def figures(points: list[dict], directory: Path, prefix: str = "vqpu_paper", title: str = "") -> list[Path]:
    """Write Figures 7 (metrics against N) and 8 (runtime violins), ``PREFIX_*.png``; return the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    alphas, ns = sorted({p["alpha"] for p in points}), sorted({p["n"] for p in points})
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    panels = (
        ("occupancy", "quantum occupancy"),
        ("total_seconds", "total time (s); dashed: N x T1"),
        ("mean_cumulative_queue_seconds", "mean cumulative queue time per job (s)"),
    )
    for alpha in alphas:
        for ax, (metric, _) in zip(axes, panels, strict=True):
            mean, std = zip(*(_mean_std(points, metric, n, alpha) for n in ns), strict=True)
            (line,) = ax.plot(ns, mean, "o-", label=f"alpha = {alpha:g}")
            ax.fill_between(
                ns,
                [m - s for m, s in zip(mean, std, strict=True)],
                [m + s for m, s in zip(mean, std, strict=True)],
                color=line.get_color(),
                alpha=0.2,
            )
            if metric == "total_seconds":
                base = [_mean_std(points, "baseline_seconds", n, alpha)[0] for n in ns]
                ax.plot(ns, base, "--", color=line.get_color())
    for ax, (_, label) in zip(axes, panels, strict=True):
        ax.set(xlabel="concurrent jobs N", ylabel=label, xticks=ns)
    axes[0].set_ylim(0, 1.05)
    axes[0].legend()
    fig.suptitle(
        title or "BBQ-MIS jobs sharing one vQPU under Slurm (mean and standard deviation over repeats)"
    )
    fig.tight_layout()
    paths = [directory / f"{prefix}_metrics.png", directory / f"{prefix}_runtimes.png"]
    fig.savefig(paths[0], dpi=120)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(alphas), figsize=(4 * len(alphas), 3.8), sharey=True, squeeze=False)
    for ax, alpha in zip(axes[0], alphas, strict=True):
        data = [[r for p in points if p["n"] == n and p["alpha"] == alpha for r in p["runtimes"]] for n in ns]
        ax.violinplot(data, positions=range(len(ns)), showmeans=True)
        ax.set(xticks=range(len(ns)), xticklabels=ns, xlabel="concurrent jobs N", title=f"alpha = {alpha:g}")
    axes[0][0].set_ylabel("job runtime (s)")
    fig.tight_layout()
    fig.savefig(paths[1], dpi=120)
    plt.close(fig)
    return paths


def table(points: list[dict]) -> list[str]:
    """One line per (alpha, N): means over the repeats, with standard deviations."""
    nan = float("nan")
    lines = [
        f"{'alpha':>5} {'N':>3} {'reps':>4} {'occupancy':>15} {'total s':>15} {'N x T1 s':>9} "
        f"{'ratio':>6} {'queue/job s':>15} {'job s (mean)':>12} {'C/Q per job':>11}"
    ]
    for alpha in sorted({p["alpha"] for p in points}):
        for n in sorted({p["n"] for p in points}):
            same = [p for p in points if p["n"] == n and p["alpha"] == alpha]
            occ, total, queue = (
                _mean_std(points, m, n, alpha)
                for m in ("occupancy", "total_seconds", "mean_cumulative_queue_seconds")
            )
            lines.append(
                f"{alpha:>5g} {n:>3} {len(same):>4} {occ[0]:>8.3f} ± {occ[1]:<4.2f} "
                f"{total[0]:>8.2f} ± {total[1]:<4.1f} "
                f"{statistics.fmean(p['baseline_seconds'] for p in same):>9.2f} "
                f"{statistics.fmean(p['ratio'] for p in same):>6.2f} {queue[0]:>8.2f} ± {queue[1]:<4.1f} "
                f"{statistics.fmean(r for p in same for r in p['runtimes']):>12.2f} "
                f"{statistics.fmean(c for p in same for c in p.get('classical_quantum', [nan])):>11.2f}"
            )
    return lines


#: Columns of ``vqpu_paper_<variant>.csv``.
FIELDS = [
    "n", "alpha", "repeat", "total_seconds", "baseline_seconds", "ratio", "occupancy", "quantum_seconds",
    "mean_cumulative_queue_seconds", "batches", "runtimes", "classical_quantum", "training_evaluations",
    "cut_problems", "fallbacks",
]  # fmt: skip


def run_variant(name: str, args: argparse.Namespace, out: Path, progress) -> list[dict]:
    """Run the grid for workload ``name`` of :data:`VARIANTS` (with the command line's overrides)."""
    settings = VARIANTS[name]
    extra = args.trained_args if name == "trained" else ""
    variant = argparse.Namespace(
        **{
            **vars(args),
            "backend": settings["backend"],
            "latency": settings["latency"] if args.latency is None else args.latency,
            "graph": args.graph or ROOT / "data" / "graphs" / f"{settings['graph']}.col",
            "shots": settings["shots"],
            "job_args": f"{settings['job_args']} {extra}".strip(),
        }
    )
    return experiment(variant, out / name, lambda state: progress({"variant": name, **state}))


def write_csv(points: list[dict], path: Path) -> None:
    """One row per point; lists (runtimes, ratios) as space-separated numbers."""
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, FIELDS, extrasaction="ignore")
        writer.writeheader()
        for p in points:
            row = {**p}
            for key in ("runtimes", "classical_quantum"):
                row[key] = " ".join(f"{r:.3f}" for r in p.get(key, []))
            writer.writerow(row)


def summary(points: list[dict], ns: list[int], alphas: list[float]) -> dict:
    """The JSON summary of one variant: per alpha, one value per N (means over the repeats)."""

    def mean(metric: str, n: int, alpha: float) -> float:
        values = [v for p in points if p["n"] == n and p["alpha"] == alpha for v in _listed(p[metric])]
        return statistics.fmean(values)

    def per_n(metric: str) -> dict:
        return {f"{a:g}": [mean(metric, n, a) for n in ns] for a in alphas}

    return {
        "points": len(points),
        "occupancy": per_n("occupancy"),
        "ratio_at_max_n": {f"{a:g}": mean("ratio", ns[-1], a) for a in alphas},
        "queue_per_job": per_n("mean_cumulative_queue_seconds"),
        "job_seconds": per_n("runtimes"),
        "classical_quantum_per_job": per_n("classical_quantum"),
        "jobs": sum(len(p["runtimes"]) for p in points),
        "training_evaluations": sum(p.get("training_evaluations", 0) for p in points),
        "cut_problems": sum(p.get("cut_problems", 0) for p in points),
        "fallbacks": sum(p.get("fallbacks", 0) for p in points),
        "colours": sorted({c for p in points for c in p.get("colours", [])}),
    }


def _listed(value) -> list[float]:
    return list(value) if isinstance(value, list) else [value]


def main(argv: list[str] | None = None) -> int:
    """Run the experiment for each variant; print a table per variant and one JSON line; 1 on failure."""
    from backends.utils.arguments import integer, real
    from backends.utils.progress import ProgressLine

    parser = argparse.ArgumentParser(
        prog="vqpu_paper.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="N 1 2, alpha 0 2, one repeat (under 15 minutes)"
    )
    parser.add_argument("--variants", nargs="+", choices=tuple(VARIANTS), default=list(VARIANTS))
    parser.add_argument("--n", type=integer(1, 64), nargs="+", help="concurrent jobs (default 1 2 4 8)")
    parser.add_argument("--alpha", type=real(0, 100), nargs="+", help="sleep factors (default 0 1 2 4)")
    parser.add_argument("--repeats", type=integer(1, 100), help="repeats (default 3)")
    parser.add_argument(
        "--latency", type=real(0, 60), help="emulated device seconds per circuit (default per variant)"
    )
    parser.add_argument("--trained-args", default="", help="more options of the trained variant's jobs")
    parser.add_argument("--graph", type=Path, help="the jobs' graph file (default: per variant)")
    parser.add_argument("--gres", action="store_true", help="each job holds one GRES instead of a licence")
    parser.add_argument("--job-timeout", type=real(1, 1e6), default=900, help="seconds one point may take")
    parser.add_argument("--out", type=Path, default=Path("results/vqpu_paper"))
    parser.add_argument("--figures", type=Path, help="directory of the figures (default: --out)")
    args = parser.parse_args(argv)
    if args.graph is not None and not args.graph.is_file():
        parser.error(f"--graph: {args.graph} is not a file")
    args.graph = args.graph and args.graph.resolve()  # the jobs run in their own folders
    args.n = args.n or ([1, 2] if args.quick else [1, 2, 4, 8])
    args.alpha = args.alpha or ([0.0, 2.0] if args.quick else [0.0, 1.0, 2.0, 4.0])
    args.repeats = args.repeats or (1 if args.quick else 3)
    report: dict = {
        "benchmark": "vqpu_paper",
        "quick": args.quick,
        "n": sorted(args.n),
        "repeats": args.repeats,
    }
    began = time.monotonic()
    try:
        with ProgressLine(sys.stderr, label="vqpu paper") as progress:
            results = {name: run_variant(name, args, args.out, progress) for name in args.variants}
    except RuntimeError as exc:  # Slurm, the server or a job failed: one line, not a traceback
        print(f"vqpu_paper.py: error: {exc}", file=sys.stderr)
        return 1
    report["variants"] = {}
    for name, points in results.items():
        settings = VARIANTS[name]
        write_csv(points, args.out / f"vqpu_paper_{name}.csv")
        latency = settings["latency"] if args.latency is None else args.latency
        graph = args.graph.stem if args.graph else settings["graph"]
        title = f"{name}: {graph} on {settings['backend']}, {latency:g} s/circuit"
        paths = figures(points, args.figures or args.out, prefix=f"vqpu_paper_{name}", title=title)
        print(f"# {title}")
        print("\n".join(table(points)))
        report["variants"][name] = {
            **summary(points, sorted(args.n), args.alpha),
            "backend": settings["backend"],
            "graph": graph,
            "figures": [str(p) for p in paths],
        }
    report["seconds"] = time.monotonic() - began
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
