"""Cost of picking the next batch: the vQPU's ``RunQueue`` against a scan of the whole queue.

The peer, :class:`ScanningQueue`, is how the server picked batches before the run
queue: a list in id order, scanned in full by every pick of ``round-robin`` or of a
waiting-time bound. For each policy and queue length, both queues are filled with the
same batches of ``--jobs`` jobs, then run ``--rounds`` rounds of one pick and one
arrival, so the queue keeps its length. Both must pick the same batches in the same
order (``same_order``); the table gives microseconds per round, the ratio, and the share
of picks the waiting-time bound made. The bound is half the mean time a batch spends in
the queue, so every pick comes from it: that row times the bound's path.

    python benchmarks/vqpu_scheduling.py                      # 1,000 to 100,000 queued
    python benchmarks/vqpu_scheduling.py --lengths 100 1000 --rounds 200

Prints a table, then one JSON line: ``{"jobs": J, "rounds": R, "points": [...]}``.
"""

from __future__ import annotations

import argparse
import bisect
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from backends.utils.arguments import integer  # noqa: E402
from backends.vqpu.server.policies import Policy, RunQueue  # noqa: E402
from backends.vqpu.server.store import Queued  # noqa: E402

#: (label, policy name, waiting-time bound as a fraction of the queue's length, or None);
#: a batch waits the queue's length on average, so with half of it every pick is by the bound
POLICIES = [
    ("fifo", "fifo", None),
    ("round-robin", "round-robin", None),
    ("round-robin, max_wait", "round-robin", 0.5),
]


class ScanningQueue:
    """The peer: the queue in id order, every pick a scan of it (the server's code before ``RunQueue``)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.queue: list[Queued] = []
        self.served: dict[str, int] = {}
        self.turn = 0

    def __len__(self) -> int:
        return len(self.queue)

    def add(self, batch: Queued) -> bool:
        at = bisect.bisect_left(self.queue, batch.id, key=_id)
        if at < len(self.queue) and self.queue[at].id == batch.id:
            return False
        self.queue.insert(at, batch)
        return True

    def take(self, *, now: float) -> int | None:
        if not self.queue:
            return None
        bound = self.policy.max_wait
        overdue = [b for b in self.queue if now - b.submitted > bound] if bound is not None else []
        if overdue:
            chosen = min(overdue, key=lambda b: (b.submitted, b.id))
        elif self.policy.name == "round-robin":
            chosen = min(self.queue, key=lambda b: (self.served.get(b.job, -1), b.id))
        else:
            chosen = self.queue[0]
        del self.queue[bisect.bisect_left(self.queue, chosen.id, key=_id)]
        self.turn += 1
        self.served[chosen.job] = self.turn
        return chosen.id


def _id(batch: Queued) -> int:
    return batch.id


Queue = RunQueue | ScanningQueue


def run(
    kind: Callable[[Policy], Queue], policy: Policy, length: int, jobs: int, rounds: int, seed: int
) -> tuple[float, list[int | None]]:
    """Fill a ``kind(policy)`` queue with ``length`` batches, then time ``rounds`` picks and arrivals.

    Parameters
    ----------
    kind : callable
        ``RunQueue`` or ``ScanningQueue``.
    policy : Policy
        The scheduling policy.
    length : int
        Batches queued before the first round, and in every round.
    jobs : int
        Jobs the batches come from, drawn at random with ``seed``.
    rounds : int
        Rounds timed; round ``r`` picks at time ``length + r``, then batch
        ``length + r + 1`` arrives. Batch ``i`` arrives at time ``i - 1``.
    seed : int
        Seed of the job draws.

    Returns
    -------
    tuple of (float, list of int)
        Seconds per round, and the ids picked in order.
    """
    names = [f"job-{j}" for j in range(jobs)]
    rng = random.Random(seed)
    queue = kind(policy)
    for i in range(length):
        queue.add(Queued(i + 1, rng.choice(names), float(i)))
    arrivals = [Queued(length + r + 1, rng.choice(names), float(length + r)) for r in range(rounds)]
    picked: list[int | None] = []
    tick = time.perf_counter()
    for r, batch in enumerate(arrivals):
        picked.append(queue.take(now=float(length + r)))
        queue.add(batch)
    return (time.perf_counter() - tick) / rounds, picked


def bound_share(policy: Policy, length: int, picked: list[int | None]) -> float:
    """The share of the picks of :func:`run` that the waiting-time bound made (0 without one).

    A pick comes from the bound exactly when the picked batch waited beyond it: if any
    queued batch did, the longest waiting one is picked. Batch ``i`` arrived at time
    ``i - 1`` and round ``r`` picks at time ``length + r``.
    """
    if policy.max_wait is None:
        return 0.0
    waits = [length + r - (batch_id - 1) for r, batch_id in enumerate(picked) if batch_id is not None]
    return sum(wait > policy.max_wait for wait in waits) / len(picked)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=integer(1, 10**7), nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--jobs", type=integer(1, 10**6), default=64, help="jobs the batches come from")
    parser.add_argument("--rounds", type=integer(1, 10**7), default=1000, help="picks timed per point")
    parser.add_argument("--seed", type=integer(0, 2**63 - 1), default=1)
    args = parser.parse_args(argv)
    points = []
    print(f"{args.jobs} jobs, {args.rounds} rounds of one pick and one arrival")
    columns = ["policy", "queued", "RunQueue (µs/round)", "scan (µs/round)", "scan / RunQueue"]
    columns += ["picks by the bound", "same order"]
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")
    for label, name, bound in POLICIES:
        for length in args.lengths:
            policy = Policy(name, max_wait=None if bound is None else bound * length)
            fast, fast_order = run(RunQueue, policy, length, args.jobs, args.rounds, args.seed)
            scan, scan_order = run(ScanningQueue, policy, length, args.jobs, args.rounds, args.seed)
            point = {
                "policy": label,
                "queued": length,
                "run_queue_us": 1e6 * fast,
                "scan_us": 1e6 * scan,
                "ratio": scan / fast,
                "same_order": fast_order == scan_order,
                "bound_share": bound_share(policy, length, fast_order),
            }
            points.append(point)
            print(
                f"| {label} | {length:,} | {point['run_queue_us']:.1f} | {point['scan_us']:.1f} "
                f"| {point['ratio']:.1f} | {point['bound_share']:.2f} "
                f"| {'yes' if point['same_order'] else 'NO'} |"
            )
    print(json.dumps({"jobs": args.jobs, "rounds": args.rounds, "points": points}))
    return 0 if all(p["same_order"] for p in points) else 1


if __name__ == "__main__":
    sys.exit(main())
