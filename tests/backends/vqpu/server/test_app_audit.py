"""The server's limit on request heads: 431 at once for a head over ``max_head_bytes``, others unaffected."""

from __future__ import annotations

import json
import socket
import time

import httpx
import pytest
from vqpu_helpers import ghz, serve

from backends.null import NullBackend
from backends.vqpu.cli import build_parser
from backends.vqpu.server.limits import Limits
from backends.vqpu.wire import encode_circuits

MAX_HEAD_BYTES = Limits().max_head_bytes


@pytest.fixture
def url(tmp_path):
    with serve(NullBackend(), tmp_path / "vq.db") as (_, url):
        yield url


def head_of(size: int) -> bytes:
    """The start of a GET /health head of exactly ``size`` bytes, its last header unfinished."""
    start = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: "
    return start + b"a" * (size - len(start))


def answer(url: str, data: bytes) -> bytes:
    """Send ``data`` on a new connection; return everything the server sends until it closes."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_head_one_byte_over_the_limit_gets_431_without_waiting_for_its_end(url):
    tic = time.monotonic()
    reply = answer(url, head_of(MAX_HEAD_BYTES + 1))  # the head is never finished
    assert time.monotonic() - tic < 5  # not the 10 s head deadline
    status, _, body = reply.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 431 ")
    assert body == b'{"error": "header_too_large", "detail": "the request head exceeds 65536 bytes"}'


def test_a_head_just_under_the_limit_is_served(url):
    reply = answer(url, head_of(MAX_HEAD_BYTES - 100) + b"\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200 ")


def test_a_streamed_huge_header_is_cut_off_and_the_server_keeps_serving(url):
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head_of(1024))
        sent = 0
        with pytest.raises(OSError):  # reset or broken pipe long before 64 MiB
            for _ in range(64):
                sock.sendall(b"a" * 2**20)
                sent += 1
        assert sent < 8
    assert httpx.get(f"{url}/health", timeout=5).status_code == 200


def test_a_later_head_on_a_kept_alive_connection_is_limited_too(url):
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        sock.sendall(head_of(1024))  # counted from the next chunk on
        time.sleep(0.2)
        sock.sendall(b"a" * (MAX_HEAD_BYTES + 1))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    assert b"".join(chunks).startswith(b"HTTP/1.1 431 ")


@pytest.mark.timeout(60)
def test_the_default_head_limit_is_64_kib_and_serve_s_default():
    args = build_parser().parse_args(["serve", "--backend", "null", "--port", "1"])
    assert MAX_HEAD_BYTES == args.max_head_bytes == 64 * 2**10


CLOSE = b"\r\nConnection: close\r\n\r\n"


@pytest.mark.timeout(60)
def test_a_configured_head_limit_is_applied_and_named_in_the_431(tmp_path):
    with serve(NullBackend(), tmp_path / "vq.db", limits=Limits(max_head_bytes=1024)) as (_, url):
        unfinished = answer(url, head_of(1025))
        status, _, body = unfinished.partition(b"\r\n\r\n")
        assert status.startswith(b"HTTP/1.1 431 ")
        assert body == b'{"error": "header_too_large", "detail": "the request head exceeds 1024 bytes"}'
        assert answer(url, head_of(1024 - len(CLOSE)) + CLOSE).startswith(b"HTTP/1.1 200 ")
        # a complete head one byte over, arriving in one chunk, is refused all the same
        assert answer(url, head_of(1025 - len(CLOSE)) + CLOSE).startswith(b"HTTP/1.1 431 ")
        assert answer(url, head_of(4096) + CLOSE).startswith(b"HTTP/1.1 431 ")  # under the default
        assert httpx.get(f"{url}/health", timeout=5).json()["limits"]["max_head_bytes"] == 1024


@pytest.mark.timeout(60)
def test_a_body_in_the_same_chunk_does_not_count_as_head(tmp_path):
    payload = encode_circuits([ghz(2, name="x" * 3000)])
    content = json.dumps({"key": "k", "circuits": payload, "shots": 10}).encode()
    request = (
        b"POST /batches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(content)).encode() + CLOSE + content
    )
    assert len(content) > 2048
    with serve(NullBackend(), tmp_path / "vq.db", limits=Limits(max_head_bytes=1024)) as (_, url):
        assert answer(url, request).startswith(b"HTTP/1.1 202 ")
