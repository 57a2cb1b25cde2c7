"""What Slurm-bound access costs a vQPU request, beside a bearer token and open mode.

Every request to a server with ``--slurm-auth`` carries a fresh MUNGE credential: the client
encodes one (libmunge), the server decodes it (one round trip to ``munged``), checks the
payload and looks the job up in its table of running jobs (filled from ``squeue`` once a
second, never per request). This script measures those steps in one process against a
private ``munged`` (its own key and socket), beside the token check of ``--token-file``
and the header read of open mode, over the same number of requests:

    python benchmarks/vqpu_auth.py [--requests 5000] [--quick]

It prints a table (median, p90 and p99 in microseconds per request) and ends with one JSON
line. It needs ``munged`` (examples/slurm/install.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from backends.utils.arguments import integer
from backends.vqpu import munge
from backends.vqpu.server.callers import caller_of
from backends.vqpu.server.slurm_auth import SlurmAuth
from backends.vqpu.server.slurm_jobs import JobTable
from backends.vqpu.server.tokens import TokenBook

INSTANCE = "bench:8765"
JOBS = 64


def start_munged(folder: Path) -> str:
    """A munged with its own key on a socket in ``folder``; its socket path."""
    folder.mkdir(mode=0o700)
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    socket = str(folder / "munge.socket")
    subprocess.run(
        ["munged", "--force", f"--socket={socket}", f"--key-file={key}", f"--pid-file={folder / 'pid'}",
         f"--log-file={folder / 'log'}", f"--seed-file={folder / 'seed'}"],
        check=True, timeout=30,
    )  # fmt: skip
    return socket


def micros(samples: list[float]) -> dict[str, float]:
    """Median, p90 and p99 of ``samples`` (seconds), in microseconds."""
    ordered = sorted(samples)
    at = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"median": statistics.median(ordered) * 1e6, "p90": at(0.9) * 1e6, "p99": at(0.99) * 1e6}


def timed(calls: list) -> list[float]:
    """Seconds each call took."""
    out = []
    for call in calls:
        tic = time.perf_counter()
        call()
        out.append(time.perf_counter() - tic)
    return out


def measure(requests: int, folder: Path) -> dict[str, dict[str, float]]:
    """Per-request seconds of each step, as medians and tails in microseconds."""
    socket = start_munged(folder / "munge")
    try:
        listing = "".join(f"{j}|{j}|{os.getuid()}|me|acct|vqpu:1|N/A\\n" for j in range(1, JOBS + 1))
        jobs = JobTable(squeue=["printf", listing])
        jobs.refresh()
        auth = SlurmAuth(jobs, INSTANCE, socket=socket)
        (folder / "tokens").write_text("".join(f"job-{j} token-{j} me\n" for j in range(1, JOBS + 1)))
        tokens = TokenBook(folder / "tokens")
        payloads = [munge.job_payload(str(1 + i % JOBS), INSTANCE) for i in range(requests)]
        encode = [lambda p=p: munge.encode(p, socket=socket) for p in payloads]
        encoded: list[str] = []
        encode_s = timed([lambda f=f: encoded.append(f()) for f in encode])
        slurm = [lambda c=c: caller_of({"authorization": f"MUNGE {c}"}, None, auth) for c in encoded]
        token = [
            lambda i=i: caller_of({"authorization": f"Bearer token-{1 + i % JOBS}"}, tokens)
            for i in range(requests)
        ]
        open_mode = [
            lambda i=i: caller_of({"x-vqpu-job": f"job-{1 + i % JOBS}"}, None) for i in range(requests)
        ]
        return {
            "open": micros(timed(open_mode)),
            "token": micros(timed(token)),
            "slurm": micros(timed(slurm)),
            "client_encode": micros(encode_s),
        }
    finally:
        subprocess.run(["munged", f"--socket={socket}", "--stop"], timeout=30, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--requests", type=integer(10, 10_000_000), default=5000, help="requests per mode (default 5000)"
    )
    parser.add_argument("--quick", action="store_true", help="500 requests per mode")
    args = parser.parse_args(argv)
    if shutil.which("munged") is None:
        print("vqpu_auth.py: error: munged is not installed: run examples/slurm/install.sh", file=sys.stderr)
        return 2
    requests = 500 if args.quick else args.requests
    with tempfile.TemporaryDirectory() as folder:
        figures = measure(requests, Path(folder))
    print(f"{'step':<16} {'median us':>10} {'p90 us':>10} {'p99 us':>10}")
    for step, row in figures.items():
        print(f"{step:<16} {row['median']:>10.1f} {row['p90']:>10.1f} {row['p99']:>10.1f}")
    added_ms = (figures["slurm"]["median"] - figures["token"]["median"]) / 1e3
    print(f"Slurm-bound access adds {added_ms:.3f} ms per request at the server over a token (medians)")
    print(json.dumps({"requests": requests, "us": figures, "slurm_minus_token_ms": added_ms}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
