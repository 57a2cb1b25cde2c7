"""Hostile clients against a live vQPU server: every refusal is a 4xx, and the server stays healthy.

Each test sends one kind of hostile request over loopback, checks the status code and
the error, then that ``/health`` still answers quickly and a normal batch still runs.
Tests that measure the server's memory run it as a subprocess (``spawn_server``).
Tests through httpx run over plain HTTP and over HTTPS (the ``transport`` fixture);
those that write raw bytes on a socket run over plain HTTP.
"""

from __future__ import annotations

import base64
import contextlib
import select
import socket
import ssl
import threading
import time
from typing import NamedTuple

import httpx
import pytest
from qpy_hostile import (
    hostile_header,
    nested_definition,
    patch_first_header,
    qpy_bytes,
    raw_request,
    rss_bytes,
)
from vqpu_helpers import ghz, loopback_socket, make_tls, serve, spawn_server

from backends.vqpu.server.app import Limits
from backends.vqpu.server.limits import SQLITE_INT_MAX
from backends.vqpu.server.store import read_batches
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])
TOKEN = {"Authorization": "Bearer secret-a"}


class Transport(NamedTuple):
    """How a test reaches its server: keywords of ``serve`` and of the ``httpx.Client``."""

    serve: dict
    client: dict


@pytest.fixture(scope="module", params=["http", "https"])
def transport(request, tmp_path_factory):
    """Plain HTTP, or HTTPS with a throw-away CA the client trusts."""
    if request.param == "http":
        return Transport(serve={}, client={})
    tls = make_tls(tmp_path_factory.mktemp("tls"))
    return Transport(serve={"tls": tls}, client={"verify": ssl.create_default_context(cafile=tls / "ca.pem")})


@pytest.fixture
def http(transport):
    """An httpx client for ``transport``, a new connection for every request as ``httpx.get`` makes."""
    with httpx.Client(**transport.client, limits=httpx.Limits(max_keepalive_connections=0)) as client:
        yield client


@pytest.fixture
def tokens(tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_text("job-a secret-a\n")
    return path


def assert_healthy(url, headers=TOKEN, within=5.0, http=httpx):
    """``/health`` answers 200 within ``within`` seconds (``http``: httpx or a client of it)."""
    tic = time.monotonic()
    response = http.get(f"{url}/health", headers=headers, timeout=within)
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert time.monotonic() - tic < within


def assert_still_serving(url, headers=TOKEN, http=httpx):
    """Health answers, and a normal batch is accepted and runs."""
    assert_healthy(url, headers, http=http)
    key = f"after-{time.monotonic_ns()}"
    body = {"key": key, "circuits": PAYLOAD, "shots": 10}
    accepted = http.post(f"{url}/batches", json=body, headers=headers, timeout=30)
    assert accepted.status_code == 202, accepted.text
    done = http.get(
        f"{url}/batches/{accepted.json()['id']}", params={"wait": 20}, headers=headers, timeout=30
    )
    assert done.json()["status"] == "done"


def post(url, circuits, *, shots=10, key="k", headers=TOKEN, timeout=30, http=httpx):
    body = {"key": key, "circuits": base64.b64encode(circuits).decode(), "shots": shots}
    return http.post(f"{url}/batches", json=body, headers=headers, timeout=timeout)


# -- 1. QPY headers declaring huge circuits ---------------------------------------------------------
@pytest.mark.slow
def test_a_2_to_the_25_qubit_header_is_refused_before_deserialising(tmp_path, tokens):
    payload = hostile_header(qubits=2**25)
    assert len(base64.b64encode(payload)) < 500  # the whole attack is a few hundred bytes
    with spawn_server(tmp_path / "db.sqlite", "--token-file", str(tokens)) as (process, url):
        before = rss_bytes(process.pid)
        tic = time.monotonic()
        refused = post(url, payload)
        assert time.monotonic() - tic < 2
        assert (refused.status_code, refused.json()) == (
            422,
            {"error": "too_many_qubits", "detail": "a circuit needs 33554432 qubits, the limit is 5"},
        )
        assert_still_serving(url)
        assert rss_bytes(process.pid) < 2**30 and rss_bytes(process.pid) < before + 2**27
    assert "k" not in [b.key for b in read_batches(tmp_path / "db.sqlite")]


@pytest.mark.parametrize(
    ("fields", "code", "detail"),
    [
        ({"circuits": 2**62}, "too_many_circuits", f"batch has {2**62} circuits, the limit is 1000"),
        ({"clbits": 2**32 - 1}, "too_many_clbits", f"a circuit has {2**32 - 1} clbits, the limit is 1024"),
        ({"instructions": 2**64 - 1}, "too_many_instructions", f"a circuit has {2**64 - 1} instructions"),
        ({"qubits": 6}, "too_many_qubits", "a circuit needs 6 qubits, the limit is 5"),
    ],
    ids=["circuits", "clbits", "instructions", "qubits"],
)
def test_every_declared_size_is_checked_from_the_header(
    physical, tmp_path, transport, http, fields, code, detail
):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve) as (_, url):
        tic = time.monotonic()
        refused = post(url, patch_first_header(qpy_bytes([ghz(1)]), **fields), headers={}, http=http)
        assert time.monotonic() - tic < 2
        assert (refused.status_code, refused.json()["error"]) == (422, code)
        assert detail in refused.json()["detail"]
        assert_still_serving(url, headers={}, http=http)


@pytest.mark.slow
def test_a_huge_nested_definition_cannot_take_the_servers_memory(tmp_path):
    """The header is harmless; the custom gate's definition declares 2**25 qubits."""
    limit = ("--max-decode-bytes", str(256 * 2**20))
    with spawn_server(tmp_path / "db.sqlite", *limit) as (process, url):
        answers = {}
        thread = threading.Thread(target=lambda: answers.update(r=post(url, nested_definition(2**25))))
        thread.start()
        while thread.is_alive():  # health answers while the decoder works
            assert_healthy(url, headers={}, within=1.0)
            assert rss_bytes(process.pid) < 2**30
            time.sleep(0.1)
        thread.join()
        assert (answers["r"].status_code, answers["r"].json()["error"]) == (422, "circuits_too_large")
        assert "needs more than 256 MiB" in answers["r"].json()["detail"]
        assert_still_serving(url, headers={})  # a new decoder process took over
        assert rss_bytes(process.pid) < 2**30


def test_a_nested_definition_wider_than_the_device_is_refused(physical, tmp_path, transport, http):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve) as (_, url):
        refused = post(url, nested_definition(40), headers={}, http=http)
        assert (refused.status_code, refused.json()) == (
            422,
            {"error": "too_many_qubits", "detail": "a nested circuit needs 40 qubits, the limit is 5"},
        )
        assert_still_serving(url, headers={}, http=http)


def test_a_slow_decode_is_cut_off(physical, tmp_path, transport, http):
    limits = Limits(max_decode_seconds=0.5, max_decode_bytes=4 * 2**30)
    with serve(physical, tmp_path / "db.sqlite", **transport.serve, limits=limits) as (service, url):
        service.decoder.summarize(qpy_bytes([ghz(1)]))  # the worker is up: only decoding is timed
        refused = post(url, nested_definition(2**24), headers={}, http=http)
        assert (refused.status_code, refused.json()) == (
            422,
            {"error": "circuits_too_large", "detail": "deserialising the circuits took longer than 0.5 s"},
        )
        assert_still_serving(url, headers={}, http=http)


# -- 2. integers beyond SQLite, bools for integers ---------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seed", 2**70, "body.seed: Input should be less than or equal to 9223372036854775807"),
        ("seed", 2**63, "body.seed: Input should be less than or equal to 9223372036854775807"),
        ("seed", -1, "body.seed: Input should be greater than or equal to 0"),
        ("seed", True, "body.seed: Input should be a valid integer"),
        ("seed", 1.5, "body.seed: Input should be a valid integer"),
        ("shots", True, "body.shots: Input should be a valid integer"),
        ("shots", False, "body.shots: Input should be a valid integer"),
        ("shots", 2**64, "body.shots: Input should be less than or equal to 9223372036854775807"),
        ("shots", 10.0, "body.shots: Input should be a valid integer"),
        ("shots", "10", "body.shots: Input should be a valid integer"),
        ("shots", None, "body.shots: Input should be a valid integer"),
        ("key", 7, "body.key: Input should be a valid string"),
        ("key", "", "body.key: String should have at least 1 character"),
        ("circuits", [PAYLOAD], "body.circuits: Input should be a valid string"),
        ("extra", 1, "body.extra: Extra inputs are not permitted"),
    ],
)
def test_wrong_integers_and_types_are_refused_naming_the_field(
    physical, tmp_path, transport, http, field, value, message
):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve) as (_, url):
        body = {"key": "k", "circuits": PAYLOAD, "shots": 10, field: value}
        refused = http.post(f"{url}/batches", json=body)
        assert (refused.status_code, refused.json()) == (400, {"error": "bad_request", "detail": message})
        assert_still_serving(url, headers={}, http=http)
    assert "k" not in [b.key for b in read_batches(tmp_path / "db.sqlite")]


def test_the_largest_seed_is_stored(physical, tmp_path, transport, http):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve) as (_, url):
        body = {"key": "k", "circuits": PAYLOAD, "shots": 10, "seed": SQLITE_INT_MAX}
        assert http.post(f"{url}/batches", json=body).status_code == 202
    assert read_batches(tmp_path / "db.sqlite")[0].seed == SQLITE_INT_MAX


@pytest.mark.parametrize("batch_id", [str(2**63), str(2**70), "0", "-1", str(-(2**70))])
def test_batch_ids_out_of_range_are_not_found(physical, tmp_path, transport, http, tokens, batch_id):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve, tokens=tokens) as (_, url):
        missing = http.get(f"{url}/batches/{batch_id}", headers=TOKEN, params={"wait": 1})
        assert (missing.status_code, missing.json()) == (
            404,
            {"error": "not_found", "detail": f"no batch {batch_id} for job 'job-a'"},
        )
        assert_still_serving(url, http=http)


@pytest.mark.parametrize(
    ("path", "params", "message"),
    [
        ("/batches/abc", {}, "path.batch_id: Input should be a valid integer"),
        ("/batches/1", {"wait": "nan"}, "query.wait: Input should be a finite number"),
        ("/batches/1", {"wait": "-1"}, "query.wait: Input should be greater than or equal to 0"),
    ],
)
def test_malformed_path_and_query_are_bad_requests(
    physical, tmp_path, transport, http, path, params, message
):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve) as (_, url):
        refused = http.get(f"{url}{path}", params=params)
        assert (refused.status_code, refused.json()["error"]) == (400, "bad_request")
        assert refused.json()["detail"].startswith(message)


# -- 3. the token file fails closed ---------------------------------------------------------------
def test_a_broken_or_deleted_token_file_revokes_every_token_until_fixed(
    physical, tmp_path, transport, http, tokens
):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve, tokens=tokens) as (_, url):
        assert_healthy(url, http=http)
        unavailable = (503, "tokens_unavailable")
        for breakage in (lambda: tokens.write_text("job-a secret-a\nhalf-line\n"), tokens.unlink):
            breakage()
            for path in ("/health", "/metrics", "/batches/1"):
                refused = http.get(f"{url}{path}", headers=TOKEN)
                assert (refused.status_code, refused.json()["error"]) == unavailable
            refused = http.post(
                f"{url}/batches", json={"key": "k", "circuits": PAYLOAD, "shots": 1}, headers=TOKEN
            )
            assert (refused.status_code, refused.json()["error"]) == unavailable
            assert http.get(f"{url}/health").status_code == 401  # no token: still 401
            tokens.write_text("job-a secret-a\n")
            assert_still_serving(url, http=http)


# -- 4. API documentation -----------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"])
def test_docs_are_off_by_default(physical, tmp_path, transport, http, tokens, path):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve, tokens=tokens) as (_, url):
        assert http.get(f"{url}{path}").status_code == 404
        assert http.get(f"{url}{path}", headers=TOKEN).status_code == 404


def test_docs_when_enabled_are_public(tmp_path, tokens):
    with spawn_server(tmp_path / "db.sqlite", "--token-file", str(tokens), "--docs") as (_, url):
        for path in ("/docs", "/redoc", "/openapi.json"):
            assert httpx.get(f"{url}{path}").status_code == 200
        assert "/batches/{batch_id}" in httpx.get(f"{url}/openapi.json").json()["paths"]
        assert httpx.get(f"{url}/health").status_code == 401  # the API itself still needs a token


# -- request bodies and framing -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "status", "code"),
    [
        (b"not json", 400, "bad_request"),
        (b'{"key": "k", "circuits": "', 400, "bad_request"),
        (b"[1, 2, 3]", 400, "bad_request"),
        (b'"just a string"', 400, "bad_request"),
        (b"null", 400, "bad_request"),
        (b"[" * 100_000 + b"]" * 100_000, 400, None),
        (b'{"key": "k", "circuits": "AAAA", "shots": 1e400}', 400, "bad_request"),
        (b'{"key": "k\\ud800", "circuits": "AAAA", "shots": 1}', 400, "bad_request"),
        (b"\xff\xfe{}", 400, None),
    ],
    ids=["text", "truncated", "list", "string", "null", "deep", "inf", "surrogate", "not-utf8"],
)
def test_bodies_that_are_not_a_batch_are_bad_requests(
    physical, tmp_path, transport, http, content, status, code
):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve) as (_, url):
        refused = http.post(f"{url}/batches", content=content, headers={"Content-Type": "application/json"})
        assert refused.status_code == status
        assert code is None or refused.json()["error"] == code
        assert_still_serving(url, headers={}, http=http)


@pytest.mark.parametrize(
    ("length", "status"),
    [(b"-1", 400), (b"abc", 400), (b"1e3", 400), (b"99999999999999999999999", 400), (b"9000", 413)],
)
def test_bad_content_lengths_are_refused(physical, tmp_path, length, status):
    limits = Limits(max_payload_bytes=4000, max_read_seconds=2)
    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        head = b"POST /batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
        answer = raw_request(url, head + length + b"\r\n\r\n{}", timeout=5)
        assert answer.startswith(b"HTTP/1.1 %d " % status), answer
        assert_still_serving(url, headers={})


def test_a_batch_with_too_many_circuits_is_refused(physical, tmp_path, transport, http):
    with serve(physical, tmp_path / "db.sqlite", **transport.serve, limits=Limits(max_circuits=3)) as (
        _,
        url,
    ):
        refused = post(url, qpy_bytes([ghz(1)] * 4), headers={}, http=http)
        assert (refused.status_code, refused.json()["detail"]) == (
            422,
            "batch has 4 circuits, the limit is 3",
        )


def test_unicode_job_names_and_keys_are_stored(physical, tmp_path, transport, http):
    tokens = tmp_path / "tokens.txt"
    tokens.write_bytes("jöb-ä sécret-ä\njob-b secret-b\n".encode())
    with serve(physical, tmp_path / "db.sqlite", **transport.serve, tokens=tokens) as (_, url):
        headers = {"Authorization": "Bearer sécret-ä".encode()}
        body = {"key": "ключ-🔑", "circuits": PAYLOAD, "shots": 5}
        accepted = http.post(f"{url}/batches", json=body, headers=headers)
        assert accepted.status_code == 202 and accepted.json()["key"] == "ключ-🔑"
    with serve(physical, tmp_path / "open.sqlite", **transport.serve) as (_, url):
        for job in ("jöb-ä".encode(), "日本".encode(), b"x" * 128):
            accepted = http.post(f"{url}/batches", json=body, headers={"X-VQPU-Job": job})
            assert accepted.status_code == 202
        too_long = http.post(f"{url}/batches", json=body, headers={"X-VQPU-Job": "x" * 129})
        assert (too_long.status_code, too_long.json()["detail"]) == (
            400,
            "X-VQPU-Job has 129 characters, the limit is 128",
        )
    assert [b.job for b in read_batches(tmp_path / "db.sqlite")] == ["jöb-ä"]
    assert len({b.job for b in read_batches(tmp_path / "open.sqlite")}) == 3


#: A complete ``GET /health`` request.
HEALTH = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"


# -- slow and many clients ------------------------------------------------------------------------
def test_a_body_that_never_arrives_gets_408(physical, tmp_path):
    limits = Limits(max_read_seconds=1)
    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        head = b"POST /batches HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n"
        tic = time.monotonic()
        answer = raw_request(url, head + b'{"key": "k", "circ', timeout=10)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"did not arrive within 1 s" in answer
        assert 0.9 < time.monotonic() - tic < 5
        assert_still_serving(url, headers={})


def test_a_head_that_never_ends_is_cut_off(physical, tmp_path):
    limits = Limits(max_read_seconds=1)
    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        slow = [open_socket(url) for _ in range(20)]
        for sock in slow[:10]:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        assert_still_serving(url, headers={})
        tic = time.monotonic()
        for sock in slow:  # the server closes every one of them
            assert sock.recv(1024) == b""
        assert time.monotonic() - tic < 5
        for sock in slow:
            sock.close()


def test_a_later_head_dripped_a_byte_at_a_time_is_cut_off(physical, tmp_path):
    """Any byte cancels uvicorn's keep-alive timer; the head limit holds on a kept-alive connection too."""
    limits = Limits(max_read_seconds=1)
    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        sock = answered_socket(url)
        sock.settimeout(0.2)
        tic = time.monotonic()
        closed = False
        for byte in b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 100:
            try:
                sock.sendall(bytes([byte]))
                closed = sock.recv(1024) == b""
            except TimeoutError:
                continue
            except OSError:  # reset by the server
                closed = True
            if closed:
                break
        assert closed and 0.9 < time.monotonic() - tic < 3
        sock.close()
        assert_still_serving(url, headers={})


def test_blank_lines_after_an_answer_do_not_hold_the_connection(physical, tmp_path):
    """httptools skips blank lines before a head without starting a message: the head limit still holds."""
    limits = Limits(max_read_seconds=1)
    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        sock = answered_socket(url)
        tic = time.monotonic()
        sock.sendall(b"\r\n")
        assert sock.recv(1024) == b"" and 0.9 < time.monotonic() - tic < 3
        sock.close()


def test_a_client_that_never_reads_its_answers_is_cut_off(physical, tmp_path):
    """Pipelined requests whose answers are never read fill the server's write buffer: it aborts."""
    requests = 2000
    listener = loopback_socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)  # inherited by accepted sockets
    limits = Limits(max_read_seconds=1)
    with serve(physical, tmp_path / "db.sqlite", sock=listener, limits=limits) as (_, url):
        host, port = url.removeprefix("http://").split(":")
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
        sock.settimeout(3)
        sock.connect((host, int(port)))
        with contextlib.suppress(OSError):  # TimeoutError when the server stops reading, or its reset
            sock.sendall(HEALTH * requests)
        # not reading: the server drops the connection, its FIN queued behind answers never read
        assert wait_server_closed(sock, timeout=10)
        answers, tic = b"", time.monotonic()
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answers += chunk
        assert time.monotonic() - tic < 5  # the connection ended instead of serving every answer
        assert answers.count(b"HTTP/1.1 200 ") < requests
        sock.close()
        assert_still_serving(url, headers={})


def test_pipelined_and_kept_alive_requests_are_all_answered(physical, tmp_path):
    limits = Limits(max_read_seconds=1)
    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        sock = open_socket(url)
        sock.sendall(HEALTH * 2)  # two heads in one packet
        answers = b""
        while answers.count(b"HTTP/1.1 200 ") < 2:
            answers += sock.recv(65536)
        # idle longer than the head limit, shorter than the keep-alive timeout: a connection
        # opened after this one went idle is cut off by the head limit first
        late = open_socket(url)
        late.sendall(b"GET /health HTTP/1.1\r\n")  # and never the rest of the head
        assert wait_hung_up(late, timeout=10)
        late.close()
        sock.sendall(HEALTH)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        sock.close()


@pytest.mark.slow
def test_many_concurrent_connections(physical, tmp_path):
    limits = Limits(max_connections=40, max_read_seconds=1)
    statuses: list[int] = []

    def health(url):
        with contextlib.suppress(httpx.TransportError):
            statuses.append(httpx.get(f"{url}/health", timeout=10).status_code)

    with serve(physical, tmp_path / "db.sqlite", limits=limits) as (_, url):
        idle = [open_socket(url) for _ in range(200)]
        threads = [threading.Thread(target=health, args=(url,)) for _ in range(60)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert set(statuses) <= {200, 503} and len(statuses) == 60  # never 5xx errors, never hangs
        assert all(wait_hung_up(sock, timeout=10) for sock in idle)  # closed after max_read_seconds
        assert_still_serving(url, headers={})
        for sock in idle:
            sock.close()


def answered_socket(url) -> socket.socket:
    """A kept-alive connection whose first request (``GET /health``) was answered 200."""
    sock = open_socket(url)
    sock.sendall(HEALTH)
    assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    return sock


def open_socket(url) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock


def wait_hung_up(sock, timeout) -> bool:
    """Wait until the server ended the connection of ``sock`` (closed or reset), reading nothing.

    Answers the server sent before stay unread; False if it did not end it within ``timeout`` seconds.
    """
    poll = select.poll()
    poll.register(sock, select.POLLRDHUP)  # POLLHUP and POLLERR are always reported
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if poll.poll(left * 1000):
            return True
    return False


def tcp_states(local: int, remote: int) -> list[str]:
    """States (``/proc/net/tcp`` hex codes, ``01`` established) of loopback sockets local -> remote."""
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    ends = (f"0100007F:{local:04X}", f"0100007F:{remote:04X}")
    return [row[3] for row in rows if (row[1], row[2]) == ends]


def wait_server_closed(sock, timeout) -> bool:
    """Wait until the server's end of the connection of ``sock`` is no longer established.

    Unlike :func:`wait_hung_up`, this sees a close whose FIN waits behind unread answers.
    """
    client, server = sock.getsockname()[1], sock.getpeername()[1]
    assert tcp_states(client, server) == ["01"], "the client's end is not in /proc/net/tcp"
    deadline = time.monotonic() + timeout
    while "01" in tcp_states(server, client):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
