"""What the vQPU benchmark scripts share: the default graph and a vQPU server they can kill and restart.

``vqpu_multiplexing.py``, ``vqpu_paper.py`` and ``robustness.py`` import this module
(``from _vqpu_common import Server``); it imports none of them, so the benchmark scripts
import each other in one direction only (``tests/benchmarks/test_benchmark_imports.py``
checks that there is no cycle). It needs the standard library and ``httpx``, nothing of
``src``: the server runs in a subprocess.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import httpx

ROOT = Path(__file__).resolve().parent.parent

#: Default graph of the colouring jobs: the Mycielski graph M4 (23 vertices, chromatic number 5,
#: triangle-free), whose clique and degree bounds do not meet at the root (run with
#: ``--no-mycielski``, which leaves out the bound that settles it), so every job branches and
#: samples with QAOA.
GRAPH = ROOT / "data" / "graphs" / "myciel4.col"

#: ``command(db, port, *args)`` -> the argv of a server listening on ``port`` with database ``db``.
ServerCommand = Callable[..., list[str]]


def default_server_command(backend: str = "aer") -> ServerCommand:
    """``python -m backends.vqpu serve --backend BACKEND --port P --db DB [args]``."""

    def command(db, port, *args) -> list[str]:
        return [
            sys.executable,
            "-m",
            "backends.vqpu",
            "serve",
            "--backend",
            backend,
            "--port",
            str(port),
            "--db",
            str(db),
            *args,
        ]

    return command


def subprocess_env() -> dict[str, str]:
    """This process's environment with ``src`` first on ``PYTHONPATH``."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }


class TLSFiles(NamedTuple):
    """A throw-away CA and a server certificate signed by it (PEM files)."""

    ca: Path
    cert: Path
    key: Path


def make_tls(directory: Path) -> TLSFiles:
    """A throw-away CA and a certificate for localhost, 127.0.0.1 and ::1 in ``directory``.

    Runs ``bash examples/slurm/make_tls.sh DIRECTORY`` (needs ``openssl``).

    Raises
    ------
    RuntimeError
        If the script fails; the message holds the end of its error output.
    """
    result = subprocess.run(
        ["bash", str(ROOT / "examples" / "slurm" / "make_tls.sh"), str(directory)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RuntimeError(f"make_tls.sh exited with {result.returncode}: {result.stderr.strip()[-500:]}")
    return TLSFiles(directory / "ca.pem", directory / "server.pem", directory / "server.key")


def free_port() -> int:
    """A loopback TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A vQPU server subprocess on a fixed loopback port that can be killed and restarted.

    With ``tls`` the server gets ``--tls-cert`` and ``--tls-key`` after ``args`` and is
    reached at ``https://localhost:PORT`` (the name its certificate holds), trusting
    ``tls.ca``; without, at ``http://127.0.0.1:PORT``.
    """

    def __init__(
        self,
        command: ServerCommand,
        db: Path,
        *args: str,
        port: int | None = None,
        tls: TLSFiles | None = None,
    ):
        self.command, self.db, self.tls = command, db, tls
        self.args = args if tls is None else (*args, "--tls-cert", str(tls.cert), "--tls-key", str(tls.key))
        self.port = port or free_port()
        host = "http://127.0.0.1" if tls is None else "https://localhost"
        self.url = f"{host}:{self.port}"
        self.process: subprocess.Popen | None = None

    def verify(self) -> ssl.SSLContext | bool:
        """What ``httpx`` should verify the server's certificate with: its CA, or True (no TLS)."""
        return True if self.tls is None else ssl.create_default_context(cafile=self.tls.ca)

    def start(self, timeout: float = 120.0) -> None:
        log = open(f"{self.db}.server.log", "ab")
        self.process = subprocess.Popen(
            self.command(self.db, self.port, *self.args),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=subprocess_env(),
        )
        log.close()
        verify = self.verify()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}; see {self.db}.server.log")
            with contextlib.suppress(httpx.TransportError):
                httpx.get(f"{self.url}/health", timeout=2, verify=verify)
                return
            time.sleep(0.1)
        raise RuntimeError(f"server not up within {timeout} s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    @contextlib.contextmanager
    def running(self) -> Iterator[Server]:
        self.start()
        try:
            yield self
        finally:
            self.kill()
