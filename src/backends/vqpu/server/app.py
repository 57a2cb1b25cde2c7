"""The vQPU server: one physical backend time-multiplexed between many jobs.

Clients submit batches of circuits over HTTP; one executor thread runs them one at a
time in the order of the scheduling policy (:mod:`backends.vqpu.server.policies`; FIFO by
default) and stores every step in SQLite (:mod:`backends.vqpu.server.store`), so a restarted
server finishes what it had accepted. This module maps the HTTP API onto
:class:`~backends.vqpu.server.service.VQPUService`; a well-formed submission is answered ahead
of FastAPI's routing by :mod:`backends.vqpu.server.fastpath` (the same answer, less time). The
executor is :mod:`backends.vqpu.server.executor`, the tokens
:mod:`backends.vqpu.server.tokens`, accounting and quotas :mod:`backends.vqpu.server.accounting`
and the request limits :mod:`backends.vqpu.server.limits`.

HTTP API (every call needs ``Authorization: Bearer <token>`` unless the server runs
in open mode; errors are JSON ``{"error": code, "detail": message}``):

``POST /batches``
    Body ``{"key": str, "circuits": base64 QPY, "shots": int, "seed": int | null}``;
    optional query ``wait=S`` (seconds): answer only once the batch finished, or after
    ``S`` seconds (submit and long poll in one round trip). Answers 202 with the batch
    (``id``, ``status``...) for a new key, 200 with the same batch for a key the job
    used before (nothing runs twice); 403
    ``quota_exceeded`` once the job or its user has used its quantum-second quota.
``GET /batches/{id}?wait=S``
    The batch, waiting up to ``S`` seconds (long poll) for it to finish; once
    ``status`` is ``done`` it carries ``counts`` and the execution's timestamps.
``GET /health``
    ``status``, ``backend``, ``num_qubits``, the limits, the policy and the quotas;
    ``maintenance`` (bool), ``maintenance_reason`` and ``maintenance_since`` (epoch seconds).

In maintenance (:mod:`backends.vqpu.server.maintenance`: the admin's flag file, or a device
that stopped answering) ``POST /batches`` and ``GET /batches/{id}`` of an unfinished batch
are answered 503 ``maintenance`` with ``Retry-After: S``; the batches accepted stay queued
and run after it, and finished batches are still answered with their results.
``GET /status``
    JSON: queue length, busy seconds, occupancy so far, batches done and failed.
``GET /metrics``
    The same and the usage per user in the Prometheus text format
    (:mod:`backends.vqpu.server.metrics`).

The application's answers carry ``Server-Timing: app;dur=MS``, the server's
milliseconds on the request (:attr:`backends.vqpu.api.VQPUSession.server_seconds` reads
it); uvicorn's own refusals (503 beyond the connection limit, 400 for a malformed
request) and a 500 from an unexpected error do not.

Hostile clients (limits in :mod:`backends.vqpu.server.limits`):

- a request head (request line and headers) over ``max_head_bytes`` (64 KiB by default)
  gets 431 and the connection is closed as soon as that many bytes arrived, before the
  parser has to join them;
- ``/docs``, ``/redoc`` and ``/openapi.json`` exist only with ``docs=True``
  (``serve --docs``) and are then public: they describe the API, not its data;
- a POST needs ``Content-Length`` (411); a body over ``max_payload_bytes`` is refused
  before it is read (413), one that does not arrive within ``max_read_seconds`` is
  cut off (408), and so is a request head or a client that stops reading its answers
  (the connection is aborted);
- bodies that are not JSON, or have wrong types, bools for integers, integers
  beyond SQLite's 64 bits or unknown fields get 400 naming the field;
- batch ids outside 1..2**63-1 are answered 404 like any unknown batch;
- circuits are checked from their QPY header, then deserialised in a memory-capped
  worker process (:mod:`backends.vqpu.server.sandbox`), so neither can take the server's
  memory or stall ``/health``;
- more than ``max_connections`` connections or requests at once get 503.
"""

# No "from __future__ import annotations": FastAPI reads the route annotations, and the
# local ``Job`` dependency type is only found while they are evaluated at definition time.
import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

import uvicorn
from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from backends.vqpu.server.accounting import Quotas
from backends.vqpu.server.fastpath import CALLER, FastSubmit
from backends.vqpu.server.limits import MAX_WAIT, Limits
from backends.vqpu.server.metrics import CONTENT_TYPE
from backends.vqpu.server.policies import Policy
from backends.vqpu.server.service import APIError, BatchIn, VQPUService
from backends.vqpu.server.tokens import Caller, TokenBook

__all__ = [
    "Limits",
    "Quotas",
    "TokenBook",
    "VQPUService",
    "Policy",
    "create_app",
    "uvicorn_config",
]

Answer = Callable[[Caller, BatchIn, float], Awaitable[JSONResponse]]


def create_app(service: VQPUService, *, docs: bool = False) -> FastAPI:
    """Build the FastAPI application serving ``service``; its lifespan runs the executor.

    Parameters
    ----------
    service : VQPUService
        The server's state; started when the application starts, stopped when it stops.
    docs : bool, optional
        Serve ``/docs``, ``/redoc`` and ``/openapi.json`` (without a token); off by default.

    Returns
    -------
    fastapi.FastAPI

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from backends.null import NullBackend
    >>> folder = tempfile.TemporaryDirectory()
    >>> service = VQPUService(NullBackend(), Path(folder.name) / "vqpu.db")
    >>> app = create_app(service)  # nothing runs until a server starts the app
    >>> sorted(route.path for route in app.routes)
    ['/batches', '/batches/{batch_id}', '/health', '/metrics', '/status']
    >>> service.stop(); folder.cleanup()
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            await asyncio.to_thread(service.stop)

    urls: dict[str, Any] = {} if docs else {"docs_url": None, "redoc_url": None, "openapi_url": None}
    app = FastAPI(title="vQPU", lifespan=lifespan, **urls)
    _add_error_handlers(app)
    answer = _submission_answer(service)
    _add_routes(app, service, answer)
    # innermost: a well-formed submission is answered past FastAPI's layers, the rest by the routes
    app.add_middleware(FastSubmit, submit=answer)
    app.add_middleware(_Authenticate, service=service)  # the caller, once, for FastSubmit and routes
    app.add_middleware(_BodyGuard, limits=service.limits)
    app.add_middleware(_ServerTiming)  # outermost: the answer's time includes reading the body
    return app


def uvicorn_config(app: FastAPI, limits: Limits, **options: Any) -> uvicorn.Config:
    """Return the uvicorn configuration that enforces the connection limits of ``limits``.

    At most ``max_connections`` connections and requests at once (503 beyond); a
    request head must arrive within ``max_read_seconds``, and a client may leave the
    server's write buffer full for at most ``max_read_seconds`` (else the connection is
    aborted); a request head over ``max_head_bytes`` gets 431 and the connection is
    closed. ``X-Forwarded-For`` and the like are not read (the server logs no client
    addresses). Requests are parsed by httptools (llhttp, in C) and, where uvloop is
    installed (a dependency except on Windows), uvicorn runs on its event loop.
    ``options`` go to :class:`uvicorn.Config` (``host``, ``port``, ``log_level``...).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import uvicorn
    >>> from backends.null import NullBackend
    >>> folder = tempfile.TemporaryDirectory()
    >>> limits = Limits(max_connections=64)
    >>> service = VQPUService(NullBackend(), Path(folder.name) / "vqpu.db", limits=limits)
    >>> config = uvicorn_config(create_app(service), limits, host="127.0.0.1", port=8765)
    >>> config.limit_concurrency, config.port, config.http.max_head_bytes
    (64, 8765, 65536)
    >>> uvicorn.Server(config).run()  # doctest: +SKIP
    >>> service.stop(); folder.cleanup()
    """
    protocol = type(
        "VQPUProtocol",
        (_SlowClientProtocol,),
        {"seconds": limits.max_read_seconds, "max_head_bytes": limits.max_head_bytes},
    )
    # no proxy headers: nothing reads the client's address, and their layer costs every request time
    options = {"proxy_headers": False, **options}
    return uvicorn.Config(app, http=protocol, limit_concurrency=limits.max_connections, **options)


class _SlowClientProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, cutting off slow clients and refusing oversized heads.

    uvicorn only times out idle keep-alive connections, and any byte received cancels
    that timer: a client that opens a connection and sends nothing, or its head a byte
    at a time, would hold it forever, and so would one that stops reading its answers
    (the server's writes then wait for the full buffer to drain). Here a head must be
    complete within ``seconds`` of the connection's start (first request) or of the
    first byte received after the previous answer (later requests on the connection,
    blank lines before a head included), and the write buffer may stay full for at
    most ``seconds``; past either, the connection is aborted.

    The bytes received while a head is incomplete are counted; past ``max_head_bytes``
    the client gets 431 and the connection is closed (aborted if an answer to an
    earlier request is still being sent). For a later request on a kept-alive
    connection the count starts with the chunk after the one where its head begins, so
    an unfinished head may exceed the limit by one received chunk (at most 256 KiB), no
    more. A head that is complete is measured too (its request line and headers, as
    parsed) and refused the same way, so one arriving whole in a single chunk does not
    slip past a small limit; nothing of a refused request reaches the application.
    """

    seconds = Limits.max_read_seconds
    max_head_bytes = Limits.max_head_bytes

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._in_head = True
        self._head_bytes = 0
        self._refused = False
        super().connection_made(transport)
        self._arm("head")

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._refused:
            return
        if self._in_head and self._head_bytes > self.max_head_bytes and not self.transport.is_closing():
            self._refuse_head()
            return
        if self.cycle is None or self.cycle.response_complete:  # bytes, but no new head complete
            self._arm("head")

    def on_message_begin(self) -> None:  # a pipelined head, behind a request in progress
        if self._refused:
            return
        super().on_message_begin()
        if not self._in_head:  # a later head: its bytes count from the next chunk on
            self._in_head = True
            self._head_bytes = 0
        self._arm("head")

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        self._in_head = False
        self._disarm("head")
        if self._head_size() > self.max_head_bytes:  # complete within one chunk: not refused above
            self._refuse_head()
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._refused:
            super().on_message_complete()

    def _head_size(self) -> int:
        """Bytes of the head just parsed: request line and headers, without optional whitespace."""
        request_line = len(self.parser.get_method()) + 1 + len(self.url) + len(b" HTTP/1.1\r\n")
        return request_line + sum(len(name) + len(value) + 4 for name, value in self.headers) + 2

    def _refuse_head(self) -> None:
        """Answer 431 and close the connection, or abort it if an earlier answer is being sent.

        Nothing more of the connection is parsed into requests.
        """
        self._refused = True
        if self.cycle is not None and not self.cycle.response_complete:
            self.transport.abort()
            return
        content = json.dumps(
            {
                "error": "header_too_large",
                "detail": f"the request head exceeds {self.max_head_bytes} bytes",
            }
        ).encode()
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\n"
            b"content-length: " + str(len(content)).encode() + b"\r\n"
            b"connection: close\r\n\r\n" + content
        )
        self.transport.close()

    def pause_writing(self) -> None:  # the client does not read: the write buffer is full
        super().pause_writing()
        self._arm("write")

    def resume_writing(self) -> None:
        self._disarm("write")
        super().resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        for name in list(self._timers):
            self._disarm(name)
        super().connection_lost(exc)

    def _arm(self, name: str) -> None:
        """Start timer ``name`` unless it runs already."""
        if name not in self._timers:
            self._timers[name] = self.loop.call_later(self.seconds, self._expire, name)

    def _disarm(self, name: str) -> None:
        if (timer := self._timers.pop(name, None)) is not None:
            timer.cancel()

    def _expire(self, name: str) -> None:
        """A client overran: drop the connection at once, unsent answers included."""
        self._timers.pop(name, None)
        self.transport.abort()


class _ServerTiming:
    """ASGI middleware: tell every answer how long the server took, in a ``Server-Timing`` header.

    The header is ``Server-Timing: app;dur=MS``, the milliseconds from the request
    reaching the application (its head parsed) to the start of the answer, so a client
    can split a round trip into the server's time and the network's and its own.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        tic = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                timing = f"app;dur={1e3 * (time.perf_counter() - tic):.3f}".encode()
                message = {**message, "headers": [*message.get("headers", ()), (b"server-timing", timing)]}
            await send(message)

        await self.app(scope, receive, timed)


class _Authenticate:
    """ASGI middleware: find every request's caller once, and hand out session tickets.

    The caller (or the refusal, an :class:`APIError`) goes into the scope under
    :data:`~backends.vqpu.server.fastpath.CALLER` for :class:`FastSubmit` and the routes. A
    request admitted by a MUNGE credential gets a session ticket in its answer's
    ``X-VQPU-Session`` header (:mod:`backends.vqpu.server.sessions`).
    """

    def __init__(self, app: ASGIApp, *, service: VQPUService) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers, host = Headers(scope=scope), (scope.get("client") or (None,))[0]
        try:
            caller = scope[CALLER] = self.service.caller_of(headers, host)
        except APIError as refusal:
            scope[CALLER] = refusal
            await self.app(scope, receive, send)
            return
        ticket = self.service.session_for(caller, headers, host)
        if ticket is None:
            await self.app(scope, receive, send)
            return

        async def with_ticket(message: Message) -> None:
            if message["type"] == "http.response.start":
                header = (b"x-vqpu-session", ticket.encode())
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)

        await self.app(scope, receive, with_ticket)


class _BodyGuard:
    """ASGI middleware: check ``Content-Length`` and read the whole body within the time limit.

    A POST without ``Content-Length`` gets 411 (so chunked bodies are refused), any
    request whose ``Content-Length`` exceeds ``max_payload_bytes`` 413, and a body not
    received within ``max_read_seconds`` 408. The body is then handed to the
    application from memory, so no route ever waits on a slow client.
    """

    def __init__(self, app: ASGIApp, *, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lengths = [value for name, value in scope["headers"] if name == b"content-length"]
        if not lengths:
            if scope["method"] == "POST":
                await _send_error(send, 411, "length_required", "send a Content-Length header", close=True)
                return
            await self.app(scope, receive, send)
            return
        # httptools refuses malformed, negative and conflicting Content-Length headers before this.
        if not lengths[0].isdigit():
            await _send_error(
                send, 400, "bad_request", "Content-Length must be a decimal integer", close=True
            )
            return
        length = int(lengths[0])
        if length > self.limits.max_payload_bytes:
            detail = f"request body has {length} bytes, the limit is {self.limits.max_payload_bytes}"
            await _send_error(send, 413, "payload_too_large", detail, close=True)
            return
        try:
            async with asyncio.timeout(self.limits.max_read_seconds):  # unlike wait_for, no task per body
                body = await _read_body(receive)
        except TimeoutError:
            detail = f"the request body did not arrive within {self.limits.max_read_seconds:g} s"
            await _send_error(send, 408, "request_timeout", detail, close=True)
            return
        if body is None:  # the client went away
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or None if the client disconnected first."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _send_error(send: Send, status: int, code: str, detail: str, *, close: bool = False) -> None:
    """Send ``{"error": code, "detail": detail}`` straight from the ASGI middleware."""
    content = json.dumps({"error": code, "detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


def _error(status: int, code: str, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON answer ``{"error": code, "detail": detail}`` of every refusal."""
    return JSONResponse({"error": code, "detail": detail}, status_code=status, headers=headers)


def _add_error_handlers(app: FastAPI) -> None:
    """Answer every error, ours and FastAPI's, as ``{"error": code, "detail": message}``."""

    @app.exception_handler(APIError)
    async def _api_error(request: Request, exc: APIError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.detail, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return _error(400, "bad_request", detail[:1000])

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, "http_error", str(exc.detail))


def _submission_answer(service: VQPUService) -> Answer:
    """``answer(job, body, wait)``: the answer to ``POST /batches``, for the route and :class:`FastSubmit`."""

    async def answer(job: Caller, body: BatchIn, wait: float) -> JSONResponse:
        try:
            with service.gate.working():  # the executor waits while the batch is checked and stored
                view, created = await asyncio.to_thread(service.submit, job, body)
            if wait > 0:  # submit and result in one round trip
                view = await service.result(job.job, view["id"], wait)
        except APIError as exc:  # its headers too: Retry-After in maintenance
            return _error(exc.status, exc.code, exc.detail, exc.headers)
        # JSONResponse directly: the views are plain JSON, FastAPI's encoder would only cost time
        return JSONResponse(view, status_code=202 if created else 200)

    return answer


def _add_routes(app: FastAPI, service: VQPUService, answer: Answer) -> None:
    """``POST /batches`` (by ``answer``), ``GET /batches/{id}``, ``/health``, ``/status``, ``/metrics``.

    All need a token.
    """

    async def caller_of(request: Request) -> Caller:  # async: no thread hop per request
        found: Caller | APIError = request.scope[CALLER]  # by _Authenticate: a credential decodes once
        if isinstance(found, APIError):
            raise found
        return found

    Job = Annotated[Caller, Depends(caller_of)]
    Wait = Annotated[float, Query(ge=0.0, allow_inf_nan=False, description=f"seconds, at most {MAX_WAIT:g}")]

    @app.post("/batches", status_code=202, response_model=None)
    async def submit(body: BatchIn, job: Job, wait: Wait = 0.0) -> JSONResponse:
        return await answer(job, body, wait)

    @app.get("/batches/{batch_id}", response_model=None)
    async def result(batch_id: int, job: Job, wait: Wait = 0.0) -> JSONResponse:
        return JSONResponse(await service.result(job.job, batch_id, wait))

    @app.get("/health", response_model=None)
    def health(job: Job) -> dict[str, Any]:
        return service.health()

    @app.get("/status", response_model=None)
    def status(job: Job) -> dict[str, Any]:
        return service.status()

    @app.get("/metrics", response_model=None)
    def metrics(job: Job) -> Response:
        return Response(service.metrics(), media_type=CONTENT_TYPE)
