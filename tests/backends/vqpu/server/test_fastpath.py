"""FastSubmit: well-formed submissions answered ahead of FastAPI, the same answers as the route.

The unit tests drive the middleware alone, with a stand-in application and ``submit``:
what it answers, what it hands on, and that the handed-on body is the one received.
The server tests run the whole application in process (httpx's ASGI transport, no
socket): with the route removed, a well-formed submission is still answered (so the
middleware answered it) and a malformed one is not; and random requests, sent to two
servers alike but for the middleware, get the same answers from both.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from vqpu_helpers import ghz

from backends.null import NullBackend
from backends.vqpu.server.app import TokenBook, VQPUService, create_app
from backends.vqpu.server.fastpath import CALLER, FastSubmit
from backends.vqpu.server.service import APIError, BatchIn
from backends.vqpu.server.tokens import Caller
from backends.vqpu.wire import encode_circuits

pytestmark = pytest.mark.timeout(300)

CIRCUITS = encode_circuits([ghz(2)])
BODY = {"key": "k1", "circuits": CIRCUITS, "shots": 10, "seed": 3}


def caller_of(headers):
    if headers.get("authorization") != "Bearer tok-a":
        raise APIError(401, "unauthorized", "unknown token")
    return Caller("job-a", "ann")


class Recorder:
    """A stand-in for the application behind and for ``submit``, recording what reached each."""

    def __init__(self):
        self.handed_on: list[bytes] = []
        self.submitted: list[tuple[Caller, BatchIn, float]] = []

    async def app(self, scope, receive, send):
        message = await receive()
        self.handed_on.append(message.get("body", b""))
        await JSONResponse({"error": "route"}, status_code=400)(scope, receive, send)

    async def submit(self, caller, body, wait):
        self.submitted.append((caller, body, wait))
        return JSONResponse({"id": 1}, status_code=202)


def call(
    fast,
    *,
    method="POST",
    path="/batches",
    query=b"",
    body=b"",
    content_type=b"application/json",
    token=b"tok-a",
):
    """Send one request through ``fast``, its caller found as the server's ``_Authenticate`` does."""
    headers = [(b"content-length", str(len(body)).encode())]
    if content_type is not None:
        headers.append((b"content-type", content_type))
    if token is not None:
        headers.append((b"authorization", b"Bearer " + token))
    scope = {"type": "http", "method": method, "path": path, "query_string": query, "headers": headers}
    try:
        scope[CALLER] = caller_of(Headers(scope=scope))
    except APIError as refusal:
        scope[CALLER] = refusal
    sent = []

    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(fast(scope, receive, send))
    return sent[0]["status"]


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def fast(recorder):
    return FastSubmit(recorder.app, submit=recorder.submit)


@pytest.mark.parametrize(
    ("query", "content_type", "wait"),
    [
        (b"", b"application/json", 0.0),
        (b"wait=0", b"application/json", 0.0),
        (b"wait=20", b"application/json", 20.0),
        (b"wait=0.25", b"Application/JSON", 0.25),
    ],
)
def test_well_formed_submission_is_answered_by_submit(fast, recorder, query, content_type, wait):
    status = call(fast, query=query, content_type=content_type, body=json.dumps(BODY).encode())
    assert status == 202
    assert recorder.submitted == [(Caller("job-a", "ann"), BatchIn(**BODY), wait)]
    assert recorder.handed_on == []


def body_with(**fields) -> bytes:
    return json.dumps({key: value for key, value in {**BODY, **fields}.items() if value != "omit"}).encode()


DECLINED = {
    "GET": {"method": "GET"},
    "another path": {"path": "/batches/"},
    "a batch's path": {"path": "/batches/1"},
    "no content type": {"content_type": None},
    "content type with charset": {"content_type": b"application/json; charset=utf-8"},
    "text content": {"content_type": b"text/plain"},
    "negative wait": {"query": b"wait=-1"},
    "wait nan": {"query": b"wait=nan"},
    "wait inf": {"query": b"wait=inf"},
    "wait in exponent form": {"query": b"wait=1e3"},
    "empty wait": {"query": b"wait="},
    "two waits": {"query": b"wait=1&wait=2"},
    "another parameter": {"query": b"x=1"},
    "no token": {"token": None},
    "unknown token": {"token": b"guess"},
    "empty body": {"body": b""},
    "not JSON": {"body": b'{"key": '},
    "not UTF-8": {"body": b"\xff\xfe{}"},
    "deeply nested": {"body": b"[" * 100_000 + b"]" * 100_000},
    "a list": {"body": b"[]"},
    "no circuits": {"body": body_with(circuits="omit")},
    "an unknown field": {"body": body_with(priority=1)},
    "shots as a bool": {"body": body_with(shots=True)},
    "shots as a float": {"body": body_with(shots=10.0)},
    "a negative seed": {"body": body_with(seed=-1)},
    "an empty key": {"body": body_with(key="")},
}


@pytest.mark.parametrize("case", DECLINED.values(), ids=DECLINED.keys())
def test_anything_else_goes_to_the_application_with_its_body(fast, recorder, case):
    request = {"body": json.dumps(BODY).encode(), **case}
    status = call(fast, **request)
    assert status == 400
    assert recorder.handed_on == [request["body"]]
    assert recorder.submitted == []


@pytest.mark.parametrize(
    ("token", "body", "found"),
    [
        (b"tok-a", body_with(circuits="omit"), Caller("job-a", "ann")),  # checked, then a bad body
        (b"guess", json.dumps(BODY).encode(), APIError),  # refused
    ],
)
def test_a_request_handed_on_carries_the_caller_it_came_with(token, body, found):
    seen = []

    async def app(scope, receive, send):
        seen.append(scope.get(CALLER))
        await JSONResponse({"error": "route"}, status_code=400)(scope, receive, send)

    fast = FastSubmit(app, submit=Recorder().submit)
    assert call(fast, token=token, body=body) == 400
    assert seen == [found] if isinstance(found, Caller) else isinstance(seen[0], found)


def test_other_scopes_pass_through(recorder):
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    fast = FastSubmit(app, submit=recorder.submit)
    asyncio.run(fast({"type": "lifespan"}, None, None))
    assert seen == ["lifespan"]


# -- the whole application, in process -----------------------------------------------------------


def make_service(tmp_path, name):
    tokens = tmp_path / f"{name}.tokens"
    tokens.write_text("job-a tok-a ann\njob-b tok-b bob\n")
    return VQPUService(NullBackend(width=4, seed=1), tmp_path / f"{name}.db", tokens=TokenBook(tokens))


def without_fast_path(app):
    app.user_middleware = [m for m in app.user_middleware if m.cls is not FastSubmit]
    return app


async def send(app, request):
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://vqpu") as client:
        return await client.request(**request)


def submission(body=BODY, *, token="tok-a", params=None, content_type="application/json"):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": content_type}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return {"method": "POST", "url": "/batches", "content": content, "headers": headers, "params": params}


def test_a_well_formed_submission_is_answered_without_the_route(tmp_path):
    service = make_service(tmp_path, "a")
    app = create_app(service)
    app.router.routes = [route for route in app.router.routes if route.path != "/batches"]
    try:
        accepted = asyncio.run(send(app, submission()))
        refused = asyncio.run(send(app, submission(content_type="text/plain")))
        again = asyncio.run(send(app, submission()))
    finally:
        service.stop()
    assert accepted.status_code == 202, accepted.text
    assert accepted.json()["status"] == "queued"
    assert refused.status_code == 404  # handed on, and there is no route to answer it
    assert again.status_code == 200 and again.json()["id"] == accepted.json()["id"]  # the same batch


TIMES = ("submitted", "started", "ended", "quantum_seconds", "queue_seconds")


def answer_of(response: httpx.Response) -> tuple[int, object]:
    """Status and JSON body of an answer, the batch's times left out (two servers differ there)."""
    body = response.json()
    if isinstance(body, dict) and "id" in body:
        body = {key: value for key, value in body.items() if key not in TIMES}
    return response.status_code, body


OMIT = object()
#: One change each to a well-formed submission: (the part changed, its new value).
MUTATIONS = [
    *(
        ("body", {field: value})
        for field, value in [
            ("shots", True),
            ("shots", 10.0),
            ("shots", "10"),
            ("shots", 0),
            ("shots", 2**63),
            ("seed", -1),
            ("seed", 2**64),
            ("seed", None),
            ("seed", OMIT),
            ("key", ""),
            ("key", "x" * 129),
            ("key", 7),
            ("circuits", "bm90IFFQWQ=="),
            ("circuits", "*"),
            ("circuits", None),
            ("circuits", OMIT),
            ("circuits", encode_circuits([ghz(3)])),
            ("priority", 1),
        ]
    ),
    *(("raw", raw) for raw in [b"", b"{", b"[]", b"null", b"\xff", b'{"key": NaN}', b'{"shots": 1e400}']),
    *(("token", token) for token in ["tok-b", "guess", None]),
    *(
        ("params", params)
        for params in [
            {"wait": "0.01"},
            {"wait": "-1"},
            {"wait": "nan"},
            {"wait": "1e-2"},
            {"w": "1"},
            {"wait": ["0", "0.01"]},
        ]
    ),
    *(("content_type", kind) for kind in ["application/json; charset=utf-8", "text/plain", "", "app/json"]),
]


def mutated(key: str, shots: int, mutations: list[tuple[str, object]]) -> dict:
    """A well-formed submission of ``key`` and ``shots`` with ``mutations`` applied in turn."""
    body: dict | bytes = {"key": key, "circuits": CIRCUITS, "shots": shots, "seed": 3}
    request = {"token": "tok-a", "params": None, "content_type": "application/json"}
    for part, value in mutations:
        if part == "body":  # after a raw body: nothing to change
            if isinstance(body, dict):
                body = {field: new for field, new in {**body, **value}.items() if new is not OMIT}
        elif part == "raw":
            body = value
        else:
            request[part] = value
    return submission(body, **request)


REQUESTS = st.builds(
    mutated,
    st.sampled_from(["k1", "k2", "k3", "k4"]),
    st.sampled_from([10, 11]),  # a key sent again with other shots: 409
    st.lists(st.sampled_from(MUTATIONS), max_size=2),
)


def test_the_answers_are_the_routes(tmp_path):
    fast_service, route_service = make_service(tmp_path, "fast"), make_service(tmp_path, "route")
    fast_app, route_app = create_app(fast_service), without_fast_path(create_app(route_service))
    loop = asyncio.new_event_loop()  # one loop, as in a server: long polls wait on the loop's events

    @settings(
        max_examples=150,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(request=REQUESTS)
    def same_answer(request):
        fast = loop.run_until_complete(send(fast_app, request))
        route = loop.run_until_complete(send(route_app, request))
        assert answer_of(fast) == answer_of(route)
        statuses.add(fast.status_code)

    statuses: set[int] = set()
    try:
        same_answer()
    finally:
        fast_service.stop()
        route_service.stop()
        loop.close()
    assert {200, 202, 400, 401, 409} <= statuses  # accepted, resent, and refused in several ways
