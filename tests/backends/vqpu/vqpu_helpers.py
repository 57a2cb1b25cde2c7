"""Helpers of the vQPU tests: servers in a thread or a subprocess, always torn down; loopback only."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from qiskit import QuantumCircuit
from qiskit_aer import AerSimulator

from backends.aer import AerBackend
from backends.vqpu.server.app import TokenBook, VQPUService, create_app, uvicorn_config

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[2] / "src"


def plain_aer(argument: str, /, *, name: str, **options) -> AerBackend:
    """Factory of the ``plain-aer`` spec of ``serve_plain_aer.py``: ideal Aer capped at 5 qubits."""
    return AerBackend(AerSimulator(), name=name, num_qubits=5, **options)


def ghz(num_qubits: int = 2, name: str = "ghz") -> QuantumCircuit:
    circuit = QuantumCircuit(num_qubits, num_qubits, name=name)
    circuit.h(0)
    for q in range(1, num_qubits):
        circuit.cx(0, q)
    circuit.measure(range(num_qubits), range(num_qubits))
    return circuit


def loopback_socket() -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def make_tls(folder: Path, *hosts: str) -> Path:
    """A throw-away CA and server certificate in ``folder`` (``examples/slurm/make_tls.sh``)."""
    script = HERE.parents[2] / "examples" / "slurm" / "make_tls.sh"
    subprocess.run(["bash", str(script), str(folder), *hosts], check=True, capture_output=True, timeout=60)
    return folder


def free_port() -> int:
    with contextlib.closing(loopback_socket()) as sock:
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve(backend, db, *, tokens=None, sock=None, delay=0.0, docs=False, tls=None, **options):
    """Run a vQPU server in a thread on loopback, configured as ``serve`` is; yield its service and URL.

    ``tls`` is a folder made by ``examples/slurm/make_tls.sh`` (HTTPS, URL ``https://localhost:P``).
    ``options`` go to :class:`VQPUService` (``latency``, ``limits``, ``policy``, ``quotas``).
    """
    sock = sock or loopback_socket()
    service = VQPUService(backend, db, tokens=None if tokens is None else TokenBook(tokens), **options)
    https = (
        {}
        if tls is None
        else {"ssl_certfile": str(tls / "server.pem"), "ssl_keyfile": str(tls / "server.key")}
    )
    config = uvicorn_config(create_app(service, docs=docs), service.limits, log_level="warning", **https)
    server = uvicorn.Server(config)

    def run():
        time.sleep(delay)
        server.run(sockets=[sock])

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    url = f"{'https://localhost' if tls else 'http://127.0.0.1'}:{sock.getsockname()[1]}"
    try:
        if not delay:
            deadline = time.monotonic() + 10
            while not server.started:
                assert time.monotonic() < deadline, "in-thread server did not start in 10 s"
                time.sleep(0.01)
        yield service, url
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()


def server_command(db, port, *args) -> list[str]:
    """Command line of a server subprocess: ``python -m backends.vqpu serve`` on a Plain-Aer device."""
    return [
        sys.executable,
        str(HERE / "serve_plain_aer.py"),
        "serve",
        "--backend",
        "plain-aer",
        "--port",
        str(port),
        "--db",
        str(db),
        *args,
    ]


def subprocess_env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), str(HERE), os.environ.get("PYTHONPATH", "")]),
    }


@contextlib.contextmanager
def spawn_server(db, *args, port=None, timeout=60.0):
    """Start a server subprocess (see :func:`server_command`); yield (process, url); kill it at the end."""
    port = port or free_port()
    log = open(f"{db}.{port}.log", "ab")
    process = subprocess.Popen(
        server_command(db, port, *args), stdout=log, stderr=subprocess.STDOUT, env=subprocess_env()
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, process, timeout)
        yield process, url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        log.close()


def wait_until_up(url, process, timeout, headers=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"server exited with {process.returncode}"
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/health", headers=headers, timeout=2).status_code in (200, 401):
                return
        time.sleep(0.1)
    raise AssertionError(f"server at {url} not up within {timeout} s")


def expiry_probes(socket: str, ttl: int, count: int = 100) -> list[str]:
    """``count`` MUNGE credentials of time-to-live ``ttl``, made now: after the credential they watch."""
    from backends.vqpu import munge

    return [munge.encode(b"expiry probe", socket=socket, ttl=ttl) for _ in range(count)]


def wait_until_expired(probes: list[str], socket: str, pace: float = 0.1) -> None:
    """Decode ``probes`` one by one, ``pace`` seconds apart, until munged calls one expired.

    A credential made before the probes is then expired too: munged has decided so,
    not a guess of how long its whole-second clock takes.
    """
    from backends.vqpu import munge

    for probe in probes:
        try:
            munge.decode(probe, socket=socket)
        except munge.MungeError as error:
            if error.fault != "expired":
                raise
            return
        time.sleep(pace)
    raise AssertionError(f"none of {len(probes)} credentials expired within {len(probes) * pace:.0f} s")


def blocked_in(thread: threading.Thread, function: str) -> bool:
    """True if ``thread`` waits on a lock or event that ``function`` itself waits for."""
    frame = sys._current_frames().get(thread.ident)
    waits = 0
    while frame is not None and frame.f_code.co_filename == threading.__file__:
        frame, waits = frame.f_back, waits + 1
    return waits > 0 and frame is not None and frame.f_code.co_name == function


@contextlib.contextmanager
def private_munged(folder: Path):
    """A munged with a key of its own on a socket in ``folder`` (made here, mode 700); yield the socket."""
    folder.mkdir(mode=0o700, exist_ok=True)
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    socket = str(folder / "munge.socket")
    subprocess.run(
        ["munged", "--force", f"--socket={socket}", f"--key-file={key}", f"--pid-file={folder / 'pid'}",
         f"--log-file={folder / 'log'}", f"--seed-file={folder / 'seed'}"],
        check=True, timeout=30,
    )  # fmt: skip
    try:
        yield socket
    finally:
        subprocess.run(["munged", f"--socket={socket}", "--stop"], timeout=30, capture_output=True)


def squeue_printing(folder: Path, lines: list[str]) -> list[str]:
    """A stand-in ``squeue`` command (written in ``folder``) that prints ``lines``, one per line."""
    script = folder / "squeue"
    script.write_text("#!/bin/sh\ncat <<'EOF'\n" + "".join(f"{line}\n" for line in lines) + "EOF\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return [str(script)]
