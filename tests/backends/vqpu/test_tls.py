"""The vQPU over HTTPS: verified clients run, unverifiable ones send nothing, nothing crosses in clear."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time

import pytest
from vqpu_helpers import ghz, loopback_socket, make_tls, serve, server_command, subprocess_env

from backends import get_backend, get_sampler
from backends.errors import BackendConnectionError
from backends.vqpu.client import VQPUBackend
from backends.vqpu.wire import encode_circuits

TOKEN = "relay-secret-7f3a9c"


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    return make_tls(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def other_ca(tmp_path_factory):
    return make_tls(tmp_path_factory.mktemp("other"))


@pytest.fixture
def tokens(tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_text(f"job-a {TOKEN} ann\n")
    return path


@contextlib.contextmanager
def closing(*clients: VQPUBackend):
    """Close the clients' connections before the server stops: the in-thread server waits for
    its open HTTPS connections to close, and ``serve`` gives up on it only after 15 s."""
    try:
        yield
    finally:
        for client in clients:
            client.session.close()


def test_a_client_with_the_test_ca_runs_a_batch_over_https(physical, tmp_path, tls):
    with serve(physical, tmp_path / "db.sqlite", tls=tls) as (service, url):
        backend = VQPUBackend(url, ca=tls / "ca.pem", deadline=10)
        with closing(backend):
            counts = backend.run([ghz(2)], shots=200, seed=3)[0]
        assert sum(counts.values()) == 200 and set(counts) <= {"00", "11"}
        assert len(service.store.batches()) == 1


def test_every_entry_point_takes_the_ca_from_vqpu_ca(physical, tmp_path, tls, monkeypatch):
    monkeypatch.setenv("VQPU_CA", str(tls / "ca.pem"))
    with serve(physical, tmp_path / "db.sqlite", tls=tls) as (_, url):
        backend = get_backend(f"vqpu:{url}", deadline=10)
        sampler = get_sampler(f"vqpu:{url}", deadline=10)
        with closing(backend, sampler.backend.backend):  # the sampler's QiskitBackend wraps a VQPUBackend
            assert sum(backend.run([ghz(2)], shots=50, seed=1)[0].values()) == 50
            result = sampler.run([ghz(2)], shots=40).result()
            assert sum(result[0].join_data().get_counts().values()) == 40


@pytest.mark.parametrize("ca", [None, "other"])
def test_a_client_that_cannot_verify_the_server_fails_at_once_and_submits_nothing(
    physical, tmp_path, tls, other_ca, monkeypatch, ca
):
    monkeypatch.delenv("VQPU_CA", raising=False)
    with serve(physical, tmp_path / "db.sqlite", tls=tls) as (service, url):
        tic = time.monotonic()
        with pytest.raises(BackendConnectionError, match="TLS certificate cannot be verified.*VQPU_CA"):
            VQPUBackend(url, ca=None if ca is None else other_ca / "ca.pem", deadline=30)
        assert time.monotonic() - tic < 5  # refused at once, not retried until the deadline
        assert service.store.batches() == []


def test_an_unreadable_ca_bundle_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    with pytest.raises(ValueError, match=r"'ca' CA bundle .*ca\.pem.* cannot be read"):
        VQPUBackend("https://localhost:1", ca=bad)


def run_serve(tmp_path, *args):
    return subprocess.run(
        server_command(tmp_path / "db.sqlite", 1, *args),
        capture_output=True,
        text=True,
        timeout=120,
        env=subprocess_env(),
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_serve_refuses_open_mode_beyond_loopback(tmp_path, host):
    result = run_serve(tmp_path, "--host", host)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert f"--host {host} is not a loopback address" in result.stderr and "--insecure-open" in result.stderr
    assert not (tmp_path / "db.sqlite").exists()  # refused before the database was made


def test_serve_refuses_half_of_the_tls_options(tmp_path, tls):
    result = run_serve(tmp_path, "--tls-cert", str(tls / "server.pem"))
    assert result.returncode == 2 and "--tls-cert and --tls-key go together" in result.stderr


@pytest.mark.slow
def test_a_network_address_without_tls_warns_at_start_and_on_health(tmp_path, tokens):
    from vqpu_helpers import free_port, wait_until_up

    port = free_port()
    command = server_command(tmp_path / "db.sqlite", port, "--host", "0.0.0.0", "--token-file", str(tokens))
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=subprocess_env())
    try:
        wait_until_up(f"http://127.0.0.1:{port}", process, 60)
        import httpx

        health = httpx.get(
            f"http://127.0.0.1:{port}/health", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
        ).json()
        assert health["auth"] == "token"
        assert any("without TLS" in warning for warning in health["warnings"])
    finally:
        process.kill()
        process.wait(timeout=10)
    assert "without TLS: credentials and circuits cross the network in clear" in log.read_text()


class Relay:
    """A TCP relay on loopback that forwards both ways and keeps every byte it forwards."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.listener = loopback_socket()
        self.port = self.listener.getsockname()[1]
        self.seen = bytearray()
        self.lock = threading.Lock()
        self.listener.listen(16)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                server = socket.create_connection(("127.0.0.1", self.target))
                for source, sink in ((client, server), (server, client)):
                    threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                with self.lock:
                    self.seen += data
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self):
        self.listener.close()


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_relay_between_client_and_server_sees_no_credential_and_no_circuit_over_tls(
    physical, tmp_path, tls, tokens, scheme
):
    circuit = ghz(3, name="relay_canary_circuit")
    payload = encode_circuits([circuit])
    with serve(physical, tmp_path / "db.sqlite", tokens=tokens, tls=tls if scheme == "https" else None) as (
        _,
        url,
    ):
        relay = Relay(int(url.rsplit(":", 1)[1]))
        try:
            host = "localhost" if scheme == "https" else "127.0.0.1"
            backend = VQPUBackend(
                f"{scheme}://{host}:{relay.port}", token=TOKEN, ca=tls / "ca.pem", deadline=10
            )
            with closing(backend):
                counts = backend.run([circuit], shots=100, seed=2)[0]
        finally:
            relay.close()
    assert sum(counts.values()) == 100
    seen = bytes(relay.seen)
    # the token, the circuit as the client encodes it (base64 QPY), and the results
    canaries = [TOKEN.encode(), payload.encode()[:64], payload.encode()[-64:], b'"counts"']
    if scheme == "https":
        assert len(seen) > 1000  # the relay did carry the exchange
        assert [canary for canary in canaries if canary in seen] == []
    else:  # the same relay on plain HTTP sees them all: it does look where it should
        assert [canary for canary in canaries if canary not in seen] == []


@pytest.mark.slow
def test_the_admin_how_to_server_runs_over_https(tmp_path, tls):
    """``serve --tls-cert --tls-key`` as a process, reached by ``probe`` with ``VQPU_CA``."""
    from vqpu_helpers import free_port

    port = free_port()
    command = server_command(
        tmp_path / "db.sqlite",
        port,
        "--tls-cert",
        str(tls / "server.pem"),
        "--tls-key",
        str(tls / "server.key"),
    )
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=subprocess_env()
    )
    try:
        probe = subprocess.run(
            [
                sys.executable,
                "-m",
                "backends.vqpu",
                "probe",
                "--url",
                f"https://localhost:{port}",
                "--shots",
                "64",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**subprocess_env(), "VQPU_CA": str(tls / "ca.pem")},
        )
    finally:
        process.kill()
        process.wait(timeout=10)
    assert probe.returncode == 0, probe.stderr
    assert '"counts"' in probe.stdout
