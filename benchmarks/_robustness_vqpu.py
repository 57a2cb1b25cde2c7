"""Part 4 of ``robustness.py``, target the vQPU server: a soak with server kills.

C client processes submit B batches in total, each with its own idempotency key and
seed, while the server is killed with SIGKILL and restarted K times on the same
database; every acknowledged batch must be delivered exactly once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _vqpu_common import Server, default_server_command, subprocess_env

#: The script whose ``--soak-client`` option runs one client process.
SCRIPT = Path(__file__).resolve().parent / "robustness.py"

SOAK_SHOTS = 16


def soak_client(args: argparse.Namespace) -> None:
    """One client process: submit its batches one after another; one JSON line per event."""
    from backends.errors import BackendError
    from backends.vqpu.api import VQPUSession

    payload = Path(args.payload).read_text()

    def emit(**record: Any) -> None:
        print(json.dumps(record), flush=True)

    with VQPUSession(args.url, job=args.job, deadline=args.deadline) as session:
        for k in range(args.batches):
            key, seed = f"{args.job}-{k}", args.first_seed + k
            try:
                accepted = session.submit(payload, SOAK_SHOTS, seed=seed, key=key)
                emit(event="ack", key=key, id=accepted["id"])
                batch = session.result(accepted["id"])
            except BackendError as exc:
                emit(event="error", key=key, detail=str(exc)[:300])
                continue
            shots = sum(batch["counts"][0].values()) if batch.get("counts") else 0
            emit(
                event="done",
                key=key,
                id=batch["id"],
                echoed=batch["key"],
                status=batch["status"],
                shots=shots,
            )


def soak(
    clients: int, batches: int, kills: int, folder: Path, seed: int, progress: Callable[[str], None]
) -> dict[str, Any]:
    """C clients submit B batches in total; the server is SIGKILLed and restarted K times."""
    from qiskit import QuantumCircuit

    from backends.vqpu.server.store import read_batches
    from backends.vqpu.wire import encode_circuits

    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "soak.sqlite"
    for stale in folder.glob("soak.sqlite*"):
        stale.unlink()
    circuit = QuantumCircuit(3, 3)
    circuit.h(0)
    circuit.cx(0, 1)
    circuit.cx(1, 2)
    circuit.measure(range(3), range(3))
    payload = folder / "payload.txt"
    payload.write_text(encode_circuits([circuit]))
    server = Server(default_server_command("aer"), db, "--latency", "0.002", "--max-queue", str(10 * clients))
    shares = [batches // clients + (i < batches % clients) for i in range(clients)]
    tic = time.monotonic()
    kill_times = []
    server.start()
    try:
        logs = [open(folder / f"client-{i}.jsonl", "w") for i in range(clients)]
        client = [sys.executable, str(SCRIPT), "--soak-client", "--url", server.url]
        client += ["--payload", str(payload)]
        processes = [
            subprocess.Popen(
                [*client, "--job", f"soak-{i}", "--batches", str(shares[i])]
                + ["--first-seed", str(seed * 10**6 + i * 10**4)],  # a seed of its own for every batch
                stdout=logs[i],
                env=subprocess_env(),
            )
            for i in range(clients)
        ]

        def finished() -> int:
            with contextlib.suppress(Exception):  # the database may be mid-write; try again
                return sum(b.status in ("done", "failed") for b in read_batches(db))
            return 0

        for j in range(kills):
            while finished() < batches * (j + 1) / (kills + 1) and any(p.poll() is None for p in processes):
                time.sleep(0.05)
            server.kill()
            kill_times.append(time.monotonic() - tic)
            progress(f"soak: server killed after {finished()} of {batches} batches; restarting")
            server.start()
        for process in processes:
            try:
                process.wait(timeout=max(1.0, 300 - (time.monotonic() - tic)))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for file in logs:
            file.close()
    finally:
        server.kill()
    rows = read_batches(db)
    events = [
        json.loads(line)
        for i in range(clients)
        for line in (folder / f"client-{i}.jsonl").read_text().splitlines()
        if line.startswith("{")
    ]
    acked = {e["key"]: e["id"] for e in events if e["event"] == "ack"}
    delivered: dict[str, list[dict]] = {}
    for e in events:
        if e["event"] == "done":
            delivered.setdefault(e["key"], []).append(e)
    keys_by_id: dict[int, set[str]] = {}
    for key, batch_id in acked.items():
        keys_by_id.setdefault(batch_id, set()).add(key)
    lost = sum(1 for key in acked if not any(d["status"] == "done" for d in delivered.get(key, [])))
    duplicated = sum(len(d) - 1 for d in delivered.values()) + sum(len(k) - 1 for k in keys_by_id.values())
    duplicated += len(rows) - len({(b.job, b.key) for b in rows})
    mismatched = sum(
        1
        for key, ds in delivered.items()
        for d in ds
        if d["echoed"] != key or d["id"] != acked.get(key) or d["shots"] != SOAK_SHOTS
    )
    return {
        "clients": clients,
        "batches": batches,
        "kills": len(kill_times),
        "lost": lost,
        "duplicated": duplicated,
        "acknowledged": len(acked),
        "delivered": sum(len(d) for d in delivered.values()),
        "client_errors": sum(e["event"] == "error" for e in events),
        "mismatched": mismatched,
        "rerun": sum(b.runs > 1 for b in rows),
        "unacknowledged_rows": sum(b.key not in acked for b in rows),
        "unfinished_rows": sum(b.status not in ("done", "failed") for b in rows),
        "client_exit_codes": sorted({p.returncode for p in processes}),
        "kill_seconds": [round(t, 1) for t in kill_times],
        "seconds": round(time.monotonic() - tic, 1),
    }
