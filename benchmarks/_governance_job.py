"""What one Slurm job of ``vqpu_governance.py`` does on the vQPU: ``python _governance_job.py MODE OUT``.

Run inside a Slurm job holding a vQPU licence; the server is ``VQPU_URL``, and the client
authenticates with MUNGE by itself (the job's ``SLURM_JOB_ID``). The circuit is read,
already encoded, from ``GOVERNANCE_CIRCUIT`` (a file), so the job imports no qiskit and
starts in a fraction of a second. Modes:

- ``workload ITERATIONS ALPHA``: the paper's job: ITERATIONS times one batch, then a
  sleep of ALPHA x that batch's device seconds (its classical work);
- ``saturate SECONDS``: batches back to back, two in flight, for SECONDS (the device
  never idles for want of this job's work);
- ``quota``: batches until the server refuses one for the account's quota, then five
  more attempts; each accepted after the first refusal is counted.

OUT gets one JSON object: ``start`` and ``end`` (epoch seconds), ``batches`` (id, queue
and device seconds of each), and for ``quota`` the refusal's detail and
``accepted_after_refusal``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from backends.vqpu.api import QuotaExceededError, VQPUSession  # noqa: E402

SHOTS = 8


def _record(batch: dict) -> dict:
    return {"id": batch["id"], "queue": batch["queue_seconds"], "quantum": batch["quantum_seconds"]}


def workload(session: VQPUSession, circuit: str, iterations: int, alpha: float) -> dict:
    batches = []
    for _ in range(iterations):
        batch = session.execute(circuit, SHOTS)
        batches.append(_record(batch))
        time.sleep(alpha * batch["quantum_seconds"])
    return {"batches": batches}


def saturate(session: VQPUSession, circuit: str, seconds: float) -> dict:
    until, batches = time.time() + seconds, []
    waiting = [session.submit(circuit, SHOTS)["id"] for _ in range(2)]
    while waiting:
        batches.append(_record(session.result(waiting.pop(0))))
        if time.time() < until:
            waiting.append(session.submit(circuit, SHOTS)["id"])
    return {"batches": batches}


def quota(session: VQPUSession, circuit: str) -> dict:
    batches, refusal, tried_after, accepted_after = [], None, 0, 0
    while tried_after <= 5 and len(batches) < 1000:
        try:
            batch = session.execute(circuit, SHOTS)
        except QuotaExceededError as exc:
            refusal = refusal or str(exc)
        else:
            batches.append(_record(batch))
            accepted_after += refusal is not None
        tried_after += refusal is not None
    return {"batches": batches, "refusal": refusal, "accepted_after_refusal": accepted_after}


def main(argv: list[str]) -> int:
    mode, out = argv[0], Path(argv[1])
    circuit = Path(os.environ["GOVERNANCE_CIRCUIT"]).read_text()
    start = time.time()
    with VQPUSession(os.environ["VQPU_URL"], deadline=600) as session:
        if mode == "workload":
            result = workload(session, circuit, int(argv[2]), float(argv[3]))
        elif mode == "saturate":
            result = saturate(session, circuit, float(argv[2]))
        else:
            result = quota(session, circuit)
    out.write_text(json.dumps({"start": start, "end": time.time(), **result}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
