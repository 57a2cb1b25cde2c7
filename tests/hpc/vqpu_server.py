"""A Slurm-bound vQPU server on the emulated cluster, for the tests of tests/hpc."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def eventually(condition, what, timeout=120.0, pace=0.1):
    """Wait until ``condition()`` returns something true, failing after ``timeout`` seconds; return it."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(pace)
    return value


@contextlib.contextmanager
def slurm_bound_server(slurm, folder: Path, instance: str, *options: str) -> Iterator[tuple]:
    """``serve --backend null --slurm-auth`` with ``options``, answering; ``(url, env of jobs, db, process)``.

    The environment has the cluster's MUNGE socket and ``VQPU_URL``; the server is killed at the end.
    """
    port, db = free_port(), folder / "vqpu.sqlite"
    env = {**slurm.env, "MUNGE_SOCKET": str(slurm.state / "munge" / "munge.socket")}
    command = [
        sys.executable, "-m", "backends.vqpu", "serve", "--backend", "null", "--port", str(port),
        "--db", str(db), "--slurm-auth", "--instance", instance, *options,
    ]  # fmt: skip
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"

    def up():
        assert process.poll() is None, (folder / "server.log").read_text()
        try:
            return httpx.get(f"{url}/health", timeout=2).status_code == 401
        except httpx.TransportError:
            return False

    try:
        eventually(up, "the server answers", timeout=60)
        yield url, {**env, "VQPU_URL": url}, db, process
    finally:
        process.kill()
        process.wait(timeout=10)
        log.close()
