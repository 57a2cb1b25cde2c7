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
"""

from __future__ import annotations

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
        "BBQMIS_ARGS": BBQMIS_ARGS,
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


def measure(records: list[dict], db: Path) -> dict:
    """The metrics of one point from its jobs' time records and the server's database."""
    names = {r["vqpu_job"] for r in records}
    batches = [b for b in read_batches(db) if b.job in names]
    start, end = min(r["start"] for r in records), max(r["end"] for r in records)
    queue = {name: 0.0 for name in names}
    for b in batches:
        queue[b.job] += b.queue_seconds or 0.0
    quantum = sum(b.quantum_seconds or 0.0 for b in batches)
    return {
        "total_seconds": end - start,
        "quantum_seconds": quantum,
        "occupancy": quantum / (end - start),
        "mean_cumulative_queue_seconds": statistics.fmean(queue.values()),
        "batches": len(batches),
        "runtimes": [r["end"] - r["start"] for r in records],
    }


def experiment(args, out: Path, progress) -> list[dict]:
    """Run the grid (repeats x alphas x N) on one Slurm and one vQPU server; return one dict per point."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "jobs").mkdir(exist_ok=True)
    db, tokens = out / "vqpu.sqlite", out / "tokens.txt"
    db.unlink(missing_ok=True)
    tokens.write_text("# one 'name token user' line per Slurm job, appended by submit.sh\n")
    serve_args = ("--latency", str(args.latency), "--token-file", str(tokens), "--max-queue", "10000")
    server = Server(default_server_command(args.backend), db, *serve_args)
    points = []
    with slurm_cluster(max(args.n)) as env, server.running():
        for repeat in range(args.repeats):
            for alpha in args.alpha:
                for n in sorted(args.n):
                    progress({"phase": "run", "repeat": repeat + 1, "alpha": alpha, "N": n})
                    records = run_point(env, server.url, n, alpha, args, out, tokens)
                    points.append({"n": n, "alpha": alpha, "repeat": repeat, **measure(records, db)})
    for p in points:
        lone = [q for q in points if q["n"] == 1 and q["alpha"] == p["alpha"] and q["repeat"] == p["repeat"]]
        p["baseline_seconds"] = p["n"] * statistics.fmean(lone[0]["runtimes"]) if lone else float("nan")
        p["ratio"] = p["total_seconds"] / p["baseline_seconds"]
    return points


def _mean_std(points: list[dict], metric: str, n: int, alpha: float) -> tuple[float, float]:
    values = [p[metric] for p in points if p["n"] == n and p["alpha"] == alpha]
    return statistics.fmean(values), statistics.pstdev(values)


def figures(points: list[dict], directory: Path) -> list[Path]:
    """Write Figure 7 (metrics against N) and Figure 8 (runtime violins); return their paths."""
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
    fig.suptitle("BBQ-MIS jobs sharing one vQPU under Slurm (mean and standard deviation over repeats)")
    fig.tight_layout()
    paths = [directory / "vqpu_paper_metrics.png", directory / "vqpu_paper_runtimes.png"]
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
    lines = [
        f"{'alpha':>5} {'N':>3} {'reps':>4} {'occupancy':>15} {'total s':>15} {'N x T1 s':>9} "
        f"{'ratio':>6} {'queue/job s':>15} {'job s (mean)':>12}"
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
                f"{statistics.fmean(r for p in same for r in p['runtimes']):>12.2f}"
            )
    return lines
