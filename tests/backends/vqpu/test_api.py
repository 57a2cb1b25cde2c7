"""VQPUSession without a network: httpx's MockTransport plays the server."""

from __future__ import annotations

import json

import httpx
import pytest

from backends import BackendConnectionError, BackendError, InvalidParameterError
from backends.vqpu.api import VQPURejectedError, VQPUSession

URL = "http://vqpu.test"


def session_with(handler, **options):
    """A session whose requests go to ``handler`` (a function of httpx.Request) instead of a server."""
    session = VQPUSession(URL, backoff=0.001, **options)
    real = session._http
    session._http = httpx.Client(
        base_url=real.base_url, headers=real.headers, transport=httpx.MockTransport(handler)
    )
    real.close()
    return session


def answers(*responses):
    """A handler giving ``responses`` in turn (the last one forever) and recording the requests."""
    seen = []

    def handler(request):
        seen.append(request)
        response = responses[min(len(seen), len(responses)) - 1]
        if isinstance(response, Exception):
            raise response
        return response

    return handler, seen


def test_url_must_be_http():
    with pytest.raises(InvalidParameterError) as info:
        VQPUSession("localhost:8765")
    assert (
        str(info.value)
        == "The 'url' parameter must start with http:// or https://. Got 'localhost:8765' instead."
    )


def test_token_and_job_headers(monkeypatch):
    monkeypatch.setenv("VQPU_TOKEN", "from-env")
    monkeypatch.setenv("SLURM_JOB_ID", "4711")
    handler, seen = answers(httpx.Response(200, json={"status": "ok"}))

    session_with(handler).health()
    session_with(handler, token="given", job="label").health()
    monkeypatch.delenv("VQPU_TOKEN")
    session_with(handler).health()

    assert [(r.headers.get("authorization"), r.headers["x-vqpu-job"]) for r in seen] == [
        ("Bearer from-env", "4711"),
        ("Bearer given", "label"),
        (None, "4711"),  # open mode: no token at all
    ]
    assert all(r.url.path == "/health" for r in seen)


def test_5xx_and_connection_errors_are_retried():
    handler, seen = answers(
        httpx.ConnectError("refused"),
        httpx.Response(503, json={"error": "busy", "detail": "restarting"}),
        httpx.Response(200, json={"queue_length": 0}),
    )
    assert session_with(handler).status() == {"queue_length": 0}
    assert len(seen) == 3


def test_4xx_is_not_retried_and_carries_the_servers_reason():
    handler, seen = answers(httpx.Response(429, json={"error": "queue_full", "detail": "queue is full"}))
    with pytest.raises(VQPURejectedError) as info:
        session_with(handler).submit("payload", 10)
    assert (info.value.status, info.value.code, info.value.detail) == (429, "queue_full", "queue is full")
    assert str(info.value) == "vQPU server refused the request (429 queue_full): queue is full"
    assert len(seen) == 1


def test_a_non_json_refusal_keeps_the_start_of_the_text():
    handler, _ = answers(httpx.Response(404, text="<html>" + "x" * 500))
    with pytest.raises(VQPURejectedError) as info:
        session_with(handler).health()
    assert (info.value.code, info.value.detail) == ("error", ("<html>" + "x" * 500)[:200])


def test_gives_up_at_the_deadline():
    handler, seen = answers(httpx.Response(502, json={"detail": "bad gateway"}))
    with pytest.raises(BackendConnectionError) as info:
        session_with(handler, deadline=0.05).health()
    assert str(info.value) == f"vQPU server {URL} failed for 0 s: 502: bad gateway"
    assert len(seen) >= 2


def test_a_resubmission_reuses_the_idempotency_key():
    handler, seen = answers(
        httpx.Response(500, json={}), httpx.Response(202, json={"id": 7, "status": "queued"})
    )
    assert session_with(handler).submit("payload", 10, seed=3) == {"id": 7, "status": "queued"}
    bodies = [json.loads(request.content) for request in seen]
    assert bodies[0] == bodies[1]
    assert bodies[0]["circuits"] == "payload" and (bodies[0]["shots"], bodies[0]["seed"]) == (10, 3)
    assert len(bodies[0]["key"]) == 32


def test_result_long_polls_until_finished():
    queued = httpx.Response(200, json={"id": 7, "status": "queued"})
    done = httpx.Response(200, json={"id": 7, "status": "done", "counts": [{"0": 1}]})
    handler, seen = answers(queued, queued, done)

    assert session_with(handler, poll=2.5).result(7)["counts"] == [{"0": 1}]
    assert [(r.url.path, r.url.params["wait"]) for r in seen] == [("/batches/7", "2.5")] * 3


def test_execute_raises_when_the_batch_failed():
    handler, _ = answers(
        httpx.Response(202, json={"id": 7, "status": "queued"}),
        httpx.Response(200, json={"id": 7, "status": "failed", "error": "RuntimeError: boom"}),
    )
    with pytest.raises(BackendError) as info:
        session_with(handler).execute("payload", 10)
    assert str(info.value) == "vQPU batch 7 failed on the server: RuntimeError: boom"


def test_close_is_safe_twice_and_the_session_is_a_context_manager():
    handler, _ = answers(httpx.Response(200, json={}))
    with session_with(handler) as session:
        session.health()
    session.close()
    with pytest.raises(RuntimeError):
        session.health()
