"""The vQPU in production under Slurm, measured on the emulated cluster (issue #35).

One run starts ``examples/slurm/cluster`` (slurmdbd, MUNGE, four nodes; needs root) and
measures, each against a running Slurm-bound server (``serve --slurm-auth``):

- **access**: requests accepted for a job that ended, for a running job without a vQPU
  licence, with replayed, forged, foreign-user or other-server credentials; how long a
  cancelled job keeps access (``revocation_s_max``; the documented bound is 3 s at
  ``--slurm-poll 0.5``); whether ``sacct`` shows each job's usage equal to the server's
  ledger;
- **shares**: two accounts with shares 3:1 saturate the device under ``--policy
  fair-share``; ``fair_share_error`` is the largest gap, in percentage points, between an
  account's configured and measured share of device time while both saturate it; a third
  account with a 0.5 s quota is refused, with the reason, and nothing after;
- **maintenance**: the admin's ``maintenance on`` while a job has batches queued; a vQPU
  job submitted meanwhile must not start before ``maintenance off``; no accepted batch is
  lost;
- **auth overhead**: ``vqpu_multiplexing.scale`` with 64 client processes against an
  open server and against a Slurm-bound one (the clients inside a job holding a
  licence); the difference of the median server time per batch;
- **dynamic count**: the paper's workload (jobs alternating one batch with ALPHA x its
  device time of classical sleep, half quantum-heavy, half classical-heavy) under each
  fixed licence count and under ``--dynamic-count``: device occupancy, mean job slowdown
  ((end - submission) / the lone job's runtime, measured in the same run) and total time.

Usage::

    python benchmarks/vqpu_governance.py --quick     # under 15 minutes
    python benchmarks/vqpu_governance.py --smoke     # the CI test's minute-scale version

It prints a table per part and ends with one JSON line (the keys of issue #35).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _governance_cluster as gc  # noqa: E402

#: The parts, in the order they run (``--only`` picks some).
PARTS = ("access", "shares", "maintenance", "auth", "dynamic")
#: How long after ``scancel`` a job may still be admitted (3 polls of 0.5 s, and a margin).
REVOCATION_BOUND = 3.0
#: The accounts of the shares part: (share, quota in device seconds or None).
ACCOUNTS = {"phys": (3, None), "chem": (1, None), "tiny": (1, 0.5)}
SIZES = {
    "smoke": dict(revocations=1, saturate=8.0, hold=4.0, clients=2, batches=5, jobs=4, iterations=4,
                  latency=0.1, fixed=(4,), interval=1.0),
    "quick": dict(revocations=3, saturate=30.0, hold=8.0, clients=64, batches=10, jobs=8, iterations=8,
                  latency=0.15, fixed=(1, 2, 3, 4, 8), interval=2.0),
    "full": dict(revocations=5, saturate=60.0, hold=15.0, clients=64, batches=20, jobs=8, iterations=12,
                 latency=0.15, fixed=(1, 2, 3, 4, 6, 8), interval=2.0),
}  # fmt: skip


def circuit_file(folder: Path) -> Path:
    """One measured qubit, encoded for the wire once (the jobs import no qiskit)."""
    from qiskit import QuantumCircuit

    from backends.vqpu.wire import encode_circuits

    circuit = QuantumCircuit(1, 1)
    circuit.measure(0, 0)
    path = folder / "circuit.b64"
    path.write_text(encode_circuits([circuit]))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vqpu_governance.py", description=__doc__.split("\n\n")[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_const", dest="size", const="quick", help="under 15 minutes")
    size.add_argument("--smoke", action="store_const", dest="size", const="smoke", help="a few minutes")
    parser.add_argument("--out", help="keep the logs, databases and job outputs in this folder")
    parser.add_argument(
        "--only",
        choices=PARTS,
        action="append",
        help="run this part only (repeatable); the JSON line then holds the parts' own results",
    )
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        parser.error("the emulated cluster needs root (slurmd starts jobs as their users)")
    sizes = SIZES[args.size or "full"]
    with tempfile.TemporaryDirectory(prefix="vqpu-governance-") as scratch:
        folder = Path(args.out or scratch).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        summary = run_all(folder, sizes, args.only or PARTS)
    print(json.dumps(summary))
    return 0


def run_all(folder: Path, sizes: dict, only: Sequence[str] = PARTS) -> dict:
    """Run the parts named in ``only`` on one emulated cluster; the JSON line's content."""
    import _governance_parts as gp

    os.environ["GOVERNANCE_CIRCUIT"] = str(circuit_file(folder))
    runs = {
        "access": lambda env: gp.access(env, folder / "access", sizes["revocations"], REVOCATION_BOUND),
        "shares": lambda env: gp.shares(env, folder / "shares", ACCOUNTS, sizes["saturate"]),
        "maintenance": lambda env: gp.maintenance(env, folder / "maintenance", sizes["hold"]),
        "auth": lambda env: gp.auth_overhead(env, folder / "auth", sizes["clients"], sizes["batches"]),
        "dynamic": lambda env: gp.dynamic_count(env, folder / "dynamic", sizes),
    }
    with gc.emulated_cluster(folder) as env:
        os.environ.update({k: env[k] for k in ("SLURM_CONF", "MUNGE_SOCKET")})
        started = time.monotonic()
        parts = {name: runs[name](env) for name in PARTS if name in only}
    if len(parts) < len(PARTS):
        return {"parts": parts, "seconds": round(time.monotonic() - started, 1)}
    print_tables(parts)
    return summarize(parts, time.monotonic() - started)


def summarize(parts: dict, seconds: float) -> dict:
    """The JSON line of issue #35 from the parts' results."""
    a, s, m, d = parts["access"], parts["shares"], parts["maintenance"], parts["dynamic"]
    best = d["best_fixed"]
    return {
        "jobs": a["jobs"] + s["jobs"] + m["jobs"] + parts["auth"]["jobs"] + d["jobs"],
        "after_end_accepted": a["after_end_accepted"],
        "without_resource_accepted": a["without_resource_accepted"],
        "forged_or_replayed_accepted": a["forged_or_replayed_accepted"],
        "revocation_s_max": a["revocation_s_max"],
        "sacct_matches_ledger": a["sacct_matches_ledger"] and s["sacct_matches_ledger"],
        "over_quota_accepted": s["over_quota_accepted"],
        "fair_share_error": s["fair_share_error"],
        "starts_during_maintenance": m["starts_during_maintenance"],
        "lost_batches": m["lost_batches"],
        "auth_overhead_ms_median": parts["auth"]["auth_overhead_ms_median"],
        "dynamic": {
            "fixed": {
                "count": best["count"],
                "occupancy": best["occupancy"],
                "slowdown": best["slowdown"],
                "total_s": best["total_s"],
            },
            "dynamic": {k: d["dynamic"][k] for k in ("occupancy", "slowdown", "total_s", "counts")},
        },  # fmt: skip
        "seconds": round(seconds, 1),
    }


def print_tables(parts: dict) -> None:
    a, s, m, auth = parts["access"], parts["shares"], parts["maintenance"], parts["auth"]
    print("access                         attempts  accepted")
    for name in ("after_end", "without_resource", "forged_or_replayed"):
        print(f"{name:<30} {a['attempts'][name]:>8}  {a[name + '_accepted']:>8}")
    print(f"revocation s (max of {len(a['revocation_s'])}): {a['revocation_s_max']:.2f}; "
          f"sacct equals ledger: {a['sacct_matches_ledger']}")  # fmt: skip
    print("\naccount  configured  measured  (fair share, device seconds while both saturate)")
    for account, (configured, measured) in s["shares"].items():
        print(f"{account:<8} {configured:>10.3f}  {measured:>8.3f}")
    print(f"fair_share_error {s['fair_share_error']:.2f} pp; quota refusal: {s['quota_refusal']!r}; "
          f"accepted after it: {s['over_quota_accepted']}")  # fmt: skip
    print(f"\nmaintenance: {m['held_s']:.1f} s, starts during it {m['starts_during_maintenance']}, "
          f"batches accepted {m['accepted']}, lost {m['lost_batches']}")  # fmt: skip
    open_ms = auth["open"]["server_median_ms"]
    print(f"\nauth at {auth['clients']} clients: server median {open_ms:.3f} ms open, "
          f"{auth['slurm']['server_median_ms']:.3f} ms Slurm-bound; overhead "
          f"{auth['auth_overhead_ms_median']:.3f} ms")  # fmt: skip
    print("\nvQPU count   occupancy  slowdown  total s")
    for row in parts["dynamic"]["rows"]:
        print(
            f"{row['count']!s:<12} {row['occupancy']:>9.3f}  {row['slowdown']:>8.3f}  {row['total_s']:>7.1f}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
