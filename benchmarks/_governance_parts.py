"""The five parts of ``vqpu_governance.py``, each against its own Slurm-bound server on the cluster."""

from __future__ import annotations

import json
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

import _governance_cluster as gc
from _governance_cluster import SlurmBoundServer, credential, eventually, job_command, submit

from backends.vqpu import munge
from backends.vqpu.server.accounting import usage_by
from backends.vqpu.server.database import read_batches
from backends.vqpu.server.slurm_accounting import parse_admin_comment

PROBE = f"{sys.executable} -m backends.vqpu probe --url $VQPU_URL --shots 16 > probe-$SLURM_JOB_ID.json"


def _running(env, jobs, timeout=120.0):
    eventually(lambda: all(gc.state(env, j) == "RUNNING" for j in jobs), f"jobs {jobs} running", timeout, 0.3)


def sacct_matches_ledger(env: dict[str, str], db: Path, timeout: float = 60.0) -> bool:
    """Whether, within ``timeout`` s, ``sacct`` shows every job's usage equal to the server's ledger."""
    ledger = {
        job: usage for job, usage in usage_by(read_batches(db), lambda b: b.job).items() if usage.batches
    }

    def equal() -> bool:
        for job, usage in ledger.items():
            shown = gc.run(env, "sacct", "-j", job, "-X", "-n", "-P", "-o", "AdminComment", check=False)
            figures = parse_admin_comment(shown.strip())
            expected = (usage.circuits, usage.shots, usage.batches)
            if (
                not figures
                or (figures["vqpu_circuits"], figures["vqpu_shots"], figures["vqpu_batches"]) != expected
            ):
                return False
            if abs(figures["vqpu_seconds"] - usage.quantum_seconds) > 1e-6:
                return False
        return bool(ledger)

    try:
        return eventually(equal, "sacct equals the ledger", timeout, 1.0)
    except RuntimeError:
        return False


def _forgeries(env, job: int, instance: str, count: int) -> list[str]:
    """Credentials that must be refused: forged (one character changed) and for another server."""
    forged = []
    for _ in range(count):
        fresh = credential(env, job, instance)
        forged.append(fresh[:40] + ("A" if fresh[40] != "A" else "B") + fresh[41:])
        forged.append(munge.encode(munge.job_payload(str(job), "elsewhere"), socket=env["MUNGE_SOCKET"]))
    return forged


def _forged_tickets(ticket: str, count: int) -> list[str]:
    """Session tickets that must be refused: ``ticket`` with one character changed, and random ones."""
    changed = [ticket[:i] + ("A" if ticket[i] != "A" else "B") + ticket[i + 1 :] for i in range(count)]
    return changed + [secrets.token_urlsafe(32) for _ in range(count)]


def _revocation(env, url: str, instance: str, job: int, bound: float) -> tuple[float, int]:
    """Cancel ``job``; seconds until its credentials and its session ticket are both refused,
    and acceptances of either past ``bound``."""
    held = gc.ticket(url, credential(env, job, instance))
    gc.run(env, "scancel", str(job))
    cancelled, refused_after, late = time.monotonic(), None, 0
    while time.monotonic() < cancelled + bound + 2.0:
        by_credential = gc.answer(url, credential(env, job, instance)) == 200
        accepted = by_credential or gc.answer(url, held, "VQPU-Session") == 200
        elapsed = time.monotonic() - cancelled
        if not accepted and refused_after is None:
            refused_after = elapsed
        late += accepted and elapsed > bound
        time.sleep(0.05)
    return (refused_after if refused_after is not None else float("inf")), late


def access(env: dict[str, str], folder: Path, revocations: int, bound: float) -> dict:
    folder.mkdir(parents=True)
    instance = "gov-access"
    server = SlurmBoundServer(folder, instance, ("--slurm-poll", "0.5", "--latency", "0.01"))
    with server.running(env):
        extra = {"VQPU_URL": server.url}
        holders = [submit(env, folder, PROBE + "; sleep 300", "--licenses=vqpu:1", extra=extra)
                   for _ in range(revocations)]  # fmt: skip
        without = submit(env, folder, "sleep 300", extra=extra)
        ended = submit(env, folder, PROBE, "--licenses=vqpu:1", extra=extra)
        _running(env, [*holders, without])
        gc.wait_finished(env, [ended], 120)
        for job in holders:
            eventually(lambda j=job: (folder / f"probe-{j}.json").stat().st_size > 0, "a holder's probe", 120)
        if gc.answer(server.url, credential(env, holders[0], instance)) != 200:
            raise RuntimeError("a running job holding a vQPU licence was refused")
        used = credential(env, holders[0], instance)
        gc.answer(server.url, used)
        refused = {
            "without_resource": [credential(env, without, instance) for _ in range(20)],
            "after_end": [credential(env, ended, instance) for _ in range(20)],
            "forged_or_replayed": [used] * 10 + _forgeries(env, holders[0], instance, 10)
            + ([gc.as_nobody(env, holders[0], instance) for _ in range(5)] if os.geteuid() == 0 else []),
        }  # fmt: skip
        accepted = {
            name: sum(gc.answer(server.url, t) == 200 for t in tokens) for name, tokens in refused.items()
        }
        forged_tickets = _forged_tickets(gc.ticket(server.url, credential(env, holders[0], instance)), 10)
        refused["forged_or_replayed"] += forged_tickets
        accepted["forged_or_replayed"] += sum(
            gc.answer(server.url, t, "VQPU-Session") == 200 for t in forged_tickets
        )
        revoked = [_revocation(env, server.url, instance, job, bound) for job in holders]
        gc.run(env, "scancel", str(without))
        matches = sacct_matches_ledger(env, server.db)
    return {
        "jobs": revocations + 2,
        "attempts": {name: len(tokens) for name, tokens in refused.items()},
        "without_resource_accepted": accepted["without_resource"],
        "after_end_accepted": accepted["after_end"] + sum(late for _, late in revoked),
        "forged_or_replayed_accepted": accepted["forged_or_replayed"],
        "revocation_s": [round(seconds, 3) for seconds, _ in revoked],
        "revocation_s_max": round(max(seconds for seconds, _ in revoked), 3),
        "sacct_matches_ledger": matches,
    }


def _measured_shares(batches, jobs: dict[str, list[int]]) -> dict[str, float]:
    """Each account's share of device seconds while every job of ``jobs`` saturates the device."""
    by_job: dict[str, list] = {}
    for batch in batches:
        if batch.started is not None:
            by_job.setdefault(batch.job, []).append(batch)
    saturating = [str(j) for js in jobs.values() for j in js]
    start = max(min(b.started for b in by_job[j]) for j in saturating)
    end = min(max(b.started for b in by_job[j]) for j in saturating)
    seconds = {account: 0.0 for account in jobs}
    for account, ids in jobs.items():
        for job in ids:
            seconds[account] += sum(
                b.quantum_seconds or 0.0 for b in by_job[str(job)] if start <= b.started < end
            )
    total = sum(seconds.values())
    return {account: value / total for account, value in seconds.items()}


def shares(env: dict[str, str], folder: Path, accounts: dict, saturate: float) -> dict:
    """Two accounts saturating the device under ``--policy fair-share``, and one over its quota."""
    gc.add_accounts(env, list(accounts))
    folder.mkdir(parents=True)
    book = folder / "accounts.txt"
    book.write_text("".join(f"{a} {'-' if q is None else q} {s}\n" for a, (s, q) in accounts.items()))
    options = ("--policy", "fair-share", "--account-quotas", str(book), "--fair-share-half-life", "60",
               "--latency", "0.05", "--slurm-poll", "0.5")  # fmt: skip
    server = SlurmBoundServer(folder, "gov-shares", options)
    saturating = [a for a, (_, quota) in accounts.items() if quota is None]
    with server.running(env):
        extra = {"VQPU_URL": server.url}
        saturator = job_command("saturate", saturate)
        jobs = {a: [submit(env, folder, saturator, "--licenses=vqpu:1", f"--account={a}", extra=extra)
                    for _ in range(2)] for a in saturating}  # fmt: skip
        quota_account = next(a for a, (_, quota) in accounts.items() if quota is not None)
        over = submit(
            env, folder, job_command("quota"), "--licenses=vqpu:1", f"--account={quota_account}", extra=extra
        )
        everyone = [j for js in jobs.values() for j in js] + [over]
        gc.wait_finished(env, everyone, saturate + 240)
        matches = sacct_matches_ledger(env, server.db)
        batches = read_batches(server.db)
    measured = _measured_shares(batches, jobs)
    total_share = sum(accounts[a][0] for a in saturating)
    table = {a: (accounts[a][0] / total_share, measured[a]) for a in saturating}
    quota = json.loads((folder / f"quota-{over}.json").read_text())
    return {
        "jobs": len(everyone),
        "shares": table,
        "fair_share_error": round(100 * max(abs(c - m) for c, m in table.values()), 2),
        "over_quota_accepted": quota["accepted_after_refusal"],
        "quota_refusal": quota["refusal"],
        "sacct_matches_ledger": matches,
    }


def maintenance(env: dict[str, str], folder: Path, hold: float) -> dict:
    folder.mkdir(parents=True)
    server = SlurmBoundServer(folder, "gov-maintenance", ("--latency", "1", "--probe-interval", "1",
                                                         "--slurm-poll", "0.5"))  # fmt: skip
    switch = [sys.executable, "-m", "backends.vqpu", "maintenance"]

    def reserved() -> bool:
        shown = gc.run(env, "scontrol", "show", "reservation", "vqpu-maintenance", check=False)
        return "ReservationName=vqpu-maintenance" in shown

    with server.running(env):
        extra = {"VQPU_URL": server.url}
        first = submit(env, folder, job_command("saturate", hold + 4), "--licenses=vqpu:1", extra=extra)
        eventually(lambda: any(b.started for b in read_batches(server.db)), "a batch running", 120)
        gc.run(env, *switch, "on", "--db", str(server.db))
        eventually(reserved, "Slurm's reservation made", 30)
        held_from = time.time()
        second = submit(env, folder, PROBE, "--licenses=vqpu:1", extra=extra)
        time.sleep(hold)  # the measurement interval: Slurm's scheduler passes every second
        held_until = time.time()
        gc.run(env, *switch, "off", "--db", str(server.db))
        eventually(lambda: not reserved(), "Slurm's reservation deleted", 30)
        gc.wait_finished(env, [first, second], 240)
        batches = read_batches(server.db)
    start = gc.times(env, second)["start"]
    done = json.loads((folder / f"saturate-{first}.json").read_text())["batches"]
    return {
        "jobs": 2,
        "held_s": held_until - held_from,
        "starts_during_maintenance": int(held_from <= start <= held_until),
        "accepted": len(batches),
        "lost_batches": len(batches)
        - sum(b.status == "done" for b in batches)
        + sum(b.job == str(first) for b in batches)
        - len(done),
    }


def auth_overhead(env: dict[str, str], folder: Path, clients: int, batches: int) -> dict:
    """``scale`` at ``clients`` processes against an open server, then a Slurm-bound one."""
    from _vqpu_common import Server, default_server_command
    from vqpu_multiplexing import scale

    folder.mkdir(parents=True)
    holder = submit(env, folder, "sleep 900", "--licenses=vqpu:1")
    _running(env, [holder])
    command, results = default_server_command("null"), {}
    try:
        for name, options in (("open", ()), ("slurm", ("--slurm-auth", "--slurm-poll", "1"))):
            if name == "slurm":
                os.environ["SLURM_JOB_ID"] = str(holder)  # the clients run inside the job, as its steps
            with Server(
                command, folder / f"{name}.sqlite", "--max-queue", "100000", *options
            ).running() as server:
                results[name] = scale(server, clients, batches)
    finally:
        os.environ.pop("SLURM_JOB_ID", None)
        gc.run(env, "scancel", str(holder))
    overhead = results["slurm"]["server_median_ms"] - results["open"]["server_median_ms"]
    return {"jobs": 1, "clients": clients, **results, "auth_overhead_ms_median": round(overhead, 4)}


def _workload(env, folder: Path, server: SlurmBoundServer, alphas, iterations: int, watch=None) -> dict:
    """Every job at once, each ``--licenses=vqpu@dyn:1``; per job its submission, own start and end."""
    extra = {"VQPU_URL": server.url}
    jobs = {submit(env, folder, job_command("workload", iterations, alpha), "--licenses=vqpu@dyn:1",
                   extra=extra): alpha for alpha in alphas}  # fmt: skip
    counts = []
    deadline = time.monotonic() + 900
    while not all(gc.state(env, j).startswith(gc.FINISHED) for j in jobs):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the workload's jobs {list(jobs)} did not end within 900 s")
        counts.append(gc.licence_total(env, "vqpu@dyn"))
        time.sleep(0.5)
    runs = {j: {**gc.times(env, j), **json.loads((folder / f"workload-{j}.json").read_text())} for j in jobs}
    return {"jobs": jobs, "runs": runs, "batches": read_batches(server.db), "counts": counts}


def _metrics(run: dict, lone: dict[float, float]) -> dict:
    first = min(r["submit"] for r in run["runs"].values())
    total = max(r["end"] for r in run["runs"].values()) - first
    busy = sum(b.quantum_seconds or 0.0 for b in run["batches"])
    slowdowns = [(r["end"] - r["submit"]) / lone[run["jobs"][j]] for j, r in run["runs"].items()]
    return {"occupancy": round(busy / total, 4), "slowdown": round(statistics.mean(slowdowns), 3),
            "total_s": round(total, 2)}  # fmt: skip


def dynamic_count(env: dict[str, str], folder: Path, sizes: dict) -> dict:
    """The paper's workload under each fixed licence count, then under ``--dynamic-count``."""
    folder.mkdir(parents=True)
    latency, iterations = str(sizes["latency"]), sizes["iterations"]
    alphas = [1.0] * (sizes["jobs"] // 2) + [6.0] * (sizes["jobs"] - sizes["jobs"] // 2)
    lone, rows, jobs = {}, [], 0
    for alpha in sorted(set(alphas)):  # each job class alone: its runtime without sharing
        gc.set_remote_licence(env, "dyn", 1)
        server = SlurmBoundServer(folder, f"lone-{alpha:g}", ("--latency", latency, "--slurm-poll", "0.5"))
        with server.running(env):
            run = _workload(env, folder, server, [alpha], iterations)
        (only,) = run["runs"].values()
        lone[alpha], jobs = only["end"] - only["start"], jobs + 1
    maximum = max(sizes["fixed"])
    for count in [*sizes["fixed"], "dynamic"]:
        gc.set_remote_licence(env, "dyn", 1 if count == "dynamic" else count)
        options = ("--latency", latency, "--slurm-poll", "0.5")
        if count == "dynamic":
            options += ("--dynamic-count", f"1:{maximum}", "--licence-server", "dyn",
                        "--count-interval", str(sizes["interval"]))  # fmt: skip
        server = SlurmBoundServer(folder, f"count-{count}", options)
        with server.running(env):
            run = _workload(env, folder, server, alphas, iterations)
        rows.append(
            {"count": count, **_metrics(run, lone), "counts": sorted(set(c for c in run["counts"] if c))}
        )
        jobs += len(alphas)
    fixed = [row for row in rows if row["count"] != "dynamic"]
    best = min(fixed, key=lambda row: (row["total_s"], row["slowdown"]))
    return {"jobs": jobs, "lone_s": lone, "rows": rows, "best_fixed": best, "dynamic": rows[-1]}
