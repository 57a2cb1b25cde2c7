"""The vQPU server: one physical backend time-multiplexed between many jobs.

Clients submit batches of circuits over HTTP; one executor thread runs them strictly
one at a time in arrival order (batch id order) and stores every step in SQLite
(:mod:`backends.vqpu.store`), so a restarted server finishes what it had accepted.
This module maps the HTTP API onto :class:`~backends.vqpu.service.VQPUService`; the
executor is :mod:`backends.vqpu.executor`, the tokens :mod:`backends.vqpu.tokens`
and the request limits :mod:`backends.vqpu.limits`.

HTTP API (every call needs ``Authorization: Bearer <token>`` unless the server runs
in open mode; errors are JSON ``{"error": code, "detail": message}``):

``POST /batches``
    Body ``{"key": str, "circuits": base64 QPY, "shots": int, "seed": int | null}``.
    Answers 202 with the batch (``id``, ``status``...) for a new key, 200 with the
    same batch for a key the job used before (nothing runs twice).
``GET /batches/{id}?wait=S``
    The batch, waiting up to ``S`` seconds (long poll) for it to finish; once
    ``status`` is ``done`` it carries ``counts`` and the execution's timestamps.
``GET /health``
    ``status``, ``backend``, ``num_qubits``, the limits.
``GET /metrics``
    Queue length, busy seconds, occupancy so far, batches done and failed.
"""

# No "from __future__ import annotations": FastAPI reads the route annotations, and the
# local ``Job`` dependency type is only found while they are evaluated at definition time.
import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from backends.vqpu.limits import Limits
from backends.vqpu.service import APIError, BatchIn, VQPUService
from backends.vqpu.tokens import TokenBook

__all__ = ["Limits", "TokenBook", "VQPUService", "create_app"]


def create_app(service: VQPUService) -> FastAPI:
    """Build the FastAPI application serving ``service``; its lifespan runs the executor.

    Parameters
    ----------
    service : VQPUService
        The server's state; started when the application starts, stopped when it stops.

    Returns
    -------
    fastapi.FastAPI
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            await asyncio.to_thread(service.stop)

    app = FastAPI(title="vQPU", lifespan=lifespan)
    _add_error_handlers(app)
    _add_payload_limit(app, service.limits)
    _add_routes(app, service)
    return app


def _error(status: int, code: str, detail: str) -> JSONResponse:
    """The JSON answer ``{"error": code, "detail": detail}`` of every refusal."""
    return JSONResponse({"error": code, "detail": detail}, status_code=status)


def _add_error_handlers(app: FastAPI) -> None:
    """Answer every error, ours and FastAPI's, as ``{"error": code, "detail": message}``."""

    @app.exception_handler(APIError)
    async def _api_error(request: Request, exc: APIError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.detail)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return _error(400, "bad_request", detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, "http_error", str(exc.detail))


def _add_payload_limit(app: FastAPI, limits: Limits) -> None:
    """Refuse POST requests without ``Content-Length`` (411) or with a body over the limit (413)."""

    @app.middleware("http")
    async def _limit_payload(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        if request.method == "POST":
            length = request.headers.get("content-length")
            if length is None:
                return _error(411, "length_required", "send a Content-Length header")
            if int(length) > limits.max_payload_bytes:
                detail = f"request body has {int(length)} bytes, the limit is {limits.max_payload_bytes}"
                return _error(413, "payload_too_large", detail)
        return await call_next(request)


def _add_routes(app: FastAPI, service: VQPUService) -> None:
    """``POST /batches``, ``GET /batches/{id}``, ``GET /health`` and ``GET /metrics``, all authenticated."""

    def job_of(request: Request) -> str:
        return service.job_of(request.headers)

    Job = Annotated[str, Depends(job_of)]

    @app.post("/batches", status_code=202, response_model=None)
    def submit(body: BatchIn, job: Job) -> dict[str, Any] | JSONResponse:
        view, created = service.submit(job, body)
        return view if created else JSONResponse(view, status_code=200)

    @app.get("/batches/{batch_id}", response_model=None)
    async def result(batch_id: int, job: Job, wait: float = 0.0) -> dict[str, Any]:
        return await service.result(job, batch_id, wait)

    @app.get("/health", response_model=None)
    def health(job: Job) -> dict[str, Any]:
        return service.health()

    @app.get("/metrics", response_model=None)
    def metrics(job: Job) -> dict[str, Any]:
        return service.metrics()
