"""Restart of a vQPU server with a long history: its ledger summed by SQLite against reading every batch.

A restarted server takes up its accounting (quantum seconds per job and user, for the
quotas and ``/metrics``) from its database. :meth:`~backends.vqpu.server.accounting.Ledger.of_store`
sums the finished batches per job and user in one SQLite query. The peer is the
server's code before it: every batch read back as a ``Batch`` and charged with
``usage_of`` one by one. For each database size, a database of finished batches of
``--jobs`` jobs (a hundred per user) is made once, then each way runs in a fresh
process: its seconds, the memory it added (peak resident memory minus the memory
after the imports) and whether both ledgers agree (``same``).

    python benchmarks/vqpu_restart.py                          # 100,000 and 500,000 batches
    python benchmarks/vqpu_restart.py --batches 1000 --jobs 10

Prints a table, then one JSON line: ``{"jobs": J, "points": [...]}``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from backends.utils.arguments import integer  # noqa: E402
from backends.vqpu.server.accounting import Ledger, usage_of  # noqa: E402
from backends.vqpu.server.store import Store  # noqa: E402
from backends.vqpu.server.tokens import Caller  # noqa: E402

WAYS = ("sum", "peer")


def make_database(path: Path, batches: int, jobs: int) -> None:
    """``batches`` finished batches (one in ten failed) of ``jobs`` jobs, a hundred jobs per user."""
    rows = [
        (
            f"job-{i % jobs}",
            f"user-{i % jobs // 100}",
            f"k{i}",
            b"qpy",
            1 + i % 4,
            3,
            100,
            1000.0 + i,
            "failed" if i % 10 == 0 else "done",
            1001.0 + i,
            1001.5 + i,
            0.01,
            0.001,
        )
        for i in range(batches)
    ]
    store = Store(path)
    try:
        store.write(
            lambda conn: conn.executemany(
                "INSERT INTO batches (job, user, key, payload, circuits, qubits, shots, submitted, "
                "status, started, ended, quantum_seconds, transpile_seconds) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        )
    finally:
        store.close()


def peer_ledger(store: Store) -> Ledger:
    """The peer: every batch read back and charged with ``usage_of`` (the server's start before)."""
    finished = [b for b in store.batches() if b.status in ("done", "failed")]
    return Ledger((Caller(b.job, b.user), usage_of(b)) for b in finished)


def measure(way: str, path: Path) -> dict:
    """Build the ledger of ``path`` one ``way``, in this process: seconds, memory added, a digest."""
    store = Store(path)
    try:
        before = _resident_mb()
        tic = time.perf_counter()
        ledger = Ledger.of_store(store) if way == "sum" else peer_ledger(store)
        seconds = time.perf_counter() - tic
        peak = _peak_mb()
    finally:
        store.close()
    jobs, users = ledger.snapshot()
    digest = [
        [name, u.batches, u.circuits, u.shots, round(u.quantum_seconds, 6), round(u.queue_seconds, 3)]
        for table in (jobs, users)
        for name, u in sorted(table.items())
    ]
    return {"seconds": seconds, "added_mb": max(0.0, peak - before), "digest": digest}


def _resident_mb() -> float:
    """This process's resident memory now, in MB (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def _peak_mb() -> float:
    """This process's peak resident memory, in MB (Linux ``VmHWM``).

    Not ``ru_maxrss``, which a process started by ``fork`` and ``exec`` inherits from
    its parent's size at the fork.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def run_way(way: str, path: Path) -> dict:
    """:func:`measure` in a fresh process, so that peak memory is this way's alone."""
    command = [sys.executable, __file__, "--measure", way, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=3600)
    return json.loads(done.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=integer(1, 10**8), nargs="+", default=[100_000, 500_000])
    parser.add_argument("--jobs", type=integer(1, 10**7), default=5000, help="jobs (a hundred per user)")
    parser.add_argument("--measure", nargs=2, metavar=("WAY", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        way, db = args.measure
        print(json.dumps(measure(way, Path(db))))
        return 0
    points = []
    header = ("batches", "jobs", "sum s", "peer s", "ratio", "sum MB", "peer MB", "same")
    print(" ".join(f"{name:>9}" for name in header))
    for batches in args.batches:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "vqpu.db"
            make_database(path, batches, args.jobs)
            results = {way: run_way(way, path) for way in WAYS}
        summed, peer = results["sum"], results["peer"]
        point = {
            "batches": batches,
            "sum_seconds": summed["seconds"],
            "peer_seconds": peer["seconds"],
            "ratio": summed["seconds"] / peer["seconds"],
            "sum_added_mb": summed["added_mb"],
            "peer_added_mb": peer["added_mb"],
            "same": summed["digest"] == peer["digest"],
        }
        points.append(point)
        cells = (
            f"{batches}",
            f"{args.jobs}",
            f"{point['sum_seconds']:.2f}",
            f"{point['peer_seconds']:.2f}",
            f"{point['ratio']:.3f}",
            f"{point['sum_added_mb']:.1f}",
            f"{point['peer_added_mb']:.1f}",
            f"{point['same']}",
        )
        print(" ".join(f"{cell:>9}" for cell in cells))
    print(json.dumps({"jobs": args.jobs, "points": points}))
    return 0 if all(point["same"] for point in points) else 1


if __name__ == "__main__":
    sys.exit(main())
