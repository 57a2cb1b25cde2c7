"""One clustering-aggregation round at reference scale, and the exact silhouette against scikit-learn.

Each measurement runs in its own process, so its peak memory (ru_maxrss) is its own:

    round           one round of ``clustagg.run`` (baseline, one process): the three base
                    clusterings, the MWIS (annealing) and the silhouette of a 20,000-point
                    sample; drawn parameters of round seed --seed
    round-exact     the same round scored by the exact silhouette over all points
    ours            clustagg.silhouette.silhouette_score on that round's labels (numba, every core)
    sklearn         sklearn.metrics.silhouette_score on the same labels (exact, then sampled)

Times (wall) exclude process start-up and imports; CPU s is the process's user + system
time over all its threads, the work whatever the load (at most 2 x wall on 2 free cores).
The numba kernel is loaded (compiled on a machine's first run, then cached) before timing.
The machine is shared: the load average at the start and the end is printed with the results.

Prints a table, then ONE final JSON line. --n-samples reduces the size for a quick look;
--skip-sklearn leaves out scikit-learn's exact silhouette (about a minute at 80,000 points).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from clustagg.data import REFERENCE_SAMPLES, make_reference_points


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads (s): the work, whatever the load."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child_round(args) -> dict:
    from clustagg import run
    from clustagg.silhouette import silhouette_score

    silhouette_score(np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]]), [0, 0, 1])  # load the kernel
    X = make_reference_points(args.n_samples)
    start, cpu = time.perf_counter(), cpu_seconds()
    result = run(X, seed=args.seed, max_iter=1, threshold=1.0, sample_size=None if args.exact else 20000)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    np.save(args.labels, result.labels)
    phases = {r["phase"]: r["end"] - r["start"] for r in result.timeline}
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        **phases,
        "silhouette": result.silhouette,
        "peak_mb": peak_mb(),
    }


def child_silhouette(args) -> dict:
    X = make_reference_points(args.n_samples)
    labels = np.load(args.labels)
    if args.library == "ours":
        from clustagg.silhouette import silhouette_score

        silhouette_score(X[:3], [0, 0, 1])  # load the kernel
        score = lambda **kw: silhouette_score(X, labels, seed=args.seed, **kw)  # noqa: E731
    else:
        from sklearn.metrics import silhouette_score as sk_score

        score = lambda sample_size=None: sk_score(  # noqa: E731
            X, labels, sample_size=sample_size, random_state=args.seed
        )
    before = peak_mb()
    out = {}
    for name, size in (("sampled", 20000), ("exact", None)):
        if name == "exact" and args.skip_exact:
            continue
        start, cpu = time.perf_counter(), cpu_seconds()
        value = float(score(sample_size=size))
        out[name] = {
            "seconds": time.perf_counter() - start,
            "cpu_seconds": cpu_seconds() - cpu,
            "value": value,
        }
    out["peak_mb"] = peak_mb()
    out["data_mb"] = before
    return out


def child(argv: list[str]) -> dict:
    command = [sys.executable, __file__, *argv]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n-samples", type=int, default=REFERENCE_SAMPLES, help="points (default: 80000)")
    parser.add_argument("--seed", type=int, default=0, help="round seed (default: 0)")
    parser.add_argument("--skip-sklearn", action="store_true", help="no exact silhouette by scikit-learn")
    parser.add_argument("--child", choices=["round", "silhouette"], help=argparse.SUPPRESS)
    parser.add_argument("--exact", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--library", choices=["ours", "sklearn"], help=argparse.SUPPRESS)
    parser.add_argument("--skip-exact", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--labels", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "round":
        print(json.dumps(child_round(args)))
        return
    if args.child == "silhouette":
        print(json.dumps(child_silhouette(args)))
        return

    load_start = os.getloadavg()[0]
    common = ["--n-samples", str(args.n_samples), "--seed", str(args.seed)]
    with tempfile.TemporaryDirectory() as scratch:
        labels = str(Path(scratch) / "labels.npy")
        rounds = {
            "round": child(["--child", "round", *common, "--labels", labels]),
            "round-exact": child(["--child", "round", "--exact", *common, "--labels", labels]),
        }
        ours = child(["--child", "silhouette", "--library", "ours", *common, "--labels", labels])
        skip = ["--skip-exact"] if args.skip_sklearn else []
        theirs = child(["--child", "silhouette", "--library", "sklearn", *common, "--labels", labels, *skip])
    load_end = os.getloadavg()[0]

    print(f"clustagg at {args.n_samples} points, round seed {args.seed}, {os.cpu_count()} cores")
    print(
        f"{'round':<14}{'cluster s':>10}{'MWIS s':>9}{'score s':>9}{'total s':>9}{'CPU s':>8}"
        f"{'peak MB':>9}{'silhouette':>12}"
    )
    for name, r in rounds.items():
        print(
            f"{name:<14}{r['cluster']:>10.2f}{r['quantum']:>9.2f}{r['score']:>9.2f}{r['seconds']:>9.2f}"
            f"{r['cpu_seconds']:>8.2f}{r['peak_mb']:>9.0f}{r['silhouette']:>12.6f}"
        )
    print(
        f"\n{'silhouette':<22}{'ours s':>8}{'CPU s':>8}{'sklearn s':>11}{'CPU s':>8}{'ours':>12}"
        f"{'sklearn':>12}{'|diff|':>10}"
    )
    comparison = {}
    for kind in ("exact", "sampled"):
        if kind not in theirs:
            continue
        a, b = ours[kind], theirs[kind]
        diff = abs(a["value"] - b["value"])
        comparison[kind] = {
            "ours_seconds": a["seconds"],
            "ours_cpu_seconds": a["cpu_seconds"],
            "sklearn_seconds": b["seconds"],
            "sklearn_cpu_seconds": b["cpu_seconds"],
            "ours": a["value"],
            "sklearn": b["value"],
            "abs_diff": diff,
            "speedup": b["seconds"] / a["seconds"],
        }
        label = "exact (all points)" if kind == "exact" else "sample of 20,000"
        print(
            f"{label:<22}{a['seconds']:>8.2f}{a['cpu_seconds']:>8.2f}{b['seconds']:>11.2f}"
            f"{b['cpu_seconds']:>8.2f}{a['value']:>12.6f}{b['value']:>12.6f}{diff:>10.1e}"
        )
    print(
        f"\npeak MB of the silhouette processes: ours {ours['peak_mb']:.0f} "
        f"(data loaded: {ours['data_mb']:.0f}), "
        f"sklearn {theirs['peak_mb']:.0f} (data loaded: {theirs['data_mb']:.0f})"
    )
    print(f"load average (1 min) at start {load_start:.2f}, at end {load_end:.2f}")
    summary = {
        "benchmark": "clustagg_scale",
        "n_samples": args.n_samples,
        "seed": args.seed,
        "round_seconds": rounds["round"]["seconds"],
        "round_cpu_seconds": rounds["round"]["cpu_seconds"],
        "round_peak_mb": rounds["round"]["peak_mb"],
        "round_exact_seconds": rounds["round-exact"]["seconds"],
        "round_exact_cpu_seconds": rounds["round-exact"]["cpu_seconds"],
        "round_exact_peak_mb": rounds["round-exact"]["peak_mb"],
        "phases": {name: {k: r[k] for k in ("cluster", "quantum", "score")} for name, r in rounds.items()},
        "silhouette": comparison,
        "silhouette_peak_mb": {"ours": ours["peak_mb"], "sklearn": theirs["peak_mb"]},
        "load_average": [load_start, load_end],
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
