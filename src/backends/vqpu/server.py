"""The vQPU server: one physical backend time-multiplexed between many jobs.

Clients submit batches of circuits over HTTP; one executor thread runs them strictly
one at a time in arrival order (batch id order) and stores every step in SQLite
(:mod:`backends.vqpu.store`), so a restarted server finishes what it had accepted.

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

import asyncio
import contextlib
import logging
import threading
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from backends.vqpu.report import summarize
from backends.vqpu.store import QueueFullError, Store
from backends.vqpu.wire import decode_circuits

__all__ = ["Limits", "TokenBook", "VQPUService", "create_app"]

log = logging.getLogger("backends.vqpu")

#: Longest accepted long-poll, in seconds.
MAX_WAIT = 30.0


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server.

    Attributes
    ----------
    max_payload_bytes : int
        Largest request body.
    max_shots : int
        Most shots per circuit.
    max_circuits : int
        Most circuits per batch.
    max_queue : int
        Most batches queued or running at once; further submissions get 429.
    max_qubits : int or None
        Widest circuit; None means the device's ``num_qubits``.
    """

    max_payload_bytes: int = 8 * 2**20
    max_shots: int = 100_000
    max_circuits: int = 1_000
    max_queue: int = 1_000
    max_qubits: int | None = None

    def __post_init__(self):
        for name, value in asdict(self).items():
            if value is not None and value < 1:
                raise ValueError(f"The '{name}' limit must be a positive integer. Got {value} instead.")


class TokenBook:
    """Per-job tokens from a file with one ``name token`` pair per line.

    Blank lines and lines starting with ``#`` are ignored. The file is read again
    when its modification time changes, so tokens of new jobs can be appended while
    the server runs.

    Parameters
    ----------
    path : str or Path
        The token file.

    Raises
    ------
    ValueError
        If a line does not hold exactly two fields, or a name or token repeats
        (the message names file and line).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._mtime = None
        self._names: dict[str, str] = {}
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        mtime = self.path.stat().st_mtime_ns
        if mtime == self._mtime:
            return
        names: dict[str, str] = {}
        for number, line in enumerate(self.path.read_text().splitlines(), 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            if len(fields) != 2:
                raise ValueError(
                    f"{self.path}, line {number}: expected 'name token', got {len(fields)} fields"
                )
            name, token = fields
            if token in names or name in names.values():
                raise ValueError(f"{self.path}, line {number}: name or token {name!r} appears twice")
            names[token] = name
        self._names, self._mtime = names, mtime

    def name_of(self, token: str) -> str | None:
        """Return the job name of ``token``, or None if it is unknown."""
        with self._lock:
            try:
                self._load()
            except (OSError, ValueError) as exc:  # keep serving with the tokens read before
                log.error("token file not reloaded: %s", exc)
        return self._names.get(token)


class APIError(Exception):
    """An error answered to the client as ``{"error": code, "detail": detail}``."""

    def __init__(self, status: int, code: str, detail: str):
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


class BatchIn(BaseModel):
    """Body of ``POST /batches``."""

    key: str = Field(min_length=1, max_length=128)
    circuits: str
    shots: int = Field(ge=1)
    seed: int | None = None


class VQPUService:
    """State of one server: the backend, the store, the executor thread and the limits.

    Parameters
    ----------
    backend : QuantumBackend
        The physical device (any ``backends`` backend).
    db : str or Path
        SQLite accounting database; unfinished batches found in it are run first.
    tokens : TokenBook, optional
        Per-job tokens; None means open mode (the job name comes from the
        ``X-VQPU-Job`` header).
    latency : float
        Extra device seconds per circuit, emulating a real QPU on top of a simulator.
    limits : Limits, optional
        Request limits; default :class:`Limits()`.
    """

    def __init__(
        self,
        backend,
        db: str | Path,
        *,
        tokens: TokenBook | None = None,
        latency: float = 0.0,
        limits: Limits | None = None,
    ):
        if latency < 0:
            raise ValueError(f"The 'latency' parameter must be >= 0 seconds. Got {latency} instead.")
        self.backend = backend
        self.tokens = tokens
        self.latency = latency
        self.limits = limits or Limits()
        self.max_qubits = min(self.limits.max_qubits or backend.num_qubits, backend.num_qubits)
        self.store = Store(db)
        self.started = time.time()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiters: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        self._executor: threading.Thread | None = None

    # -- executor -------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Re-queue interrupted batches and start the executor thread."""
        self._loop = loop
        if requeued := self.store.requeue_interrupted():
            log.warning("re-queued %d batches interrupted by the previous server", requeued)
        self._executor = threading.Thread(target=self._execute_loop, name="vqpu-executor", daemon=True)
        self._executor.start()

    def stop(self) -> None:
        """Let the running batch finish, stop the executor and close the store; safe to call twice."""
        self._stop.set()
        self._wake.set()
        if self._executor is not None:
            self._executor.join()
        self.store.close()

    def _execute_loop(self) -> None:
        while not self._stop.is_set():
            batch_id = self.store.next_queued()
            if batch_id is None:
                self._wake.wait(1.0)
                self._wake.clear()
                continue
            self._execute(batch_id)

    def _execute(self, batch_id: int) -> None:
        batch = self.store.get(batch_id)
        started = time.time()
        payload = self.store.start(batch_id, started)
        tick = time.perf_counter()
        counts = error = None
        try:
            circuits = decode_circuits(payload)
            counts = self.backend.run(circuits, batch.shots, seed=batch.seed)
            time.sleep(self.latency * len(circuits))
        except Exception as exc:  # noqa: BLE001 - the batch fails, the server goes on
            log.exception("batch %d failed", batch_id)
            error = f"{type(exc).__name__}: {exc}"
        quantum = time.perf_counter() - tick
        self.store.finish(
            batch_id, ended=started + quantum, quantum_seconds=quantum, counts=counts, error=error
        )
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._notify, batch_id)

    def _notify(self, batch_id: int) -> None:
        if (event := self._waiters.pop(batch_id, None)) is not None:
            event.set()

    # -- requests -------------------------------------------------------------------------------
    def job_of(self, request: Request) -> str:
        """Return the job name of a request, checking its token.

        Raises
        ------
        APIError
            401 when a token is needed and missing or unknown.
        """
        if self.tokens is None:
            return request.headers.get("x-vqpu-job", "anonymous")
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise APIError(401, "unauthorized", "missing token: send 'Authorization: Bearer <token>'")
        if (name := self.tokens.name_of(token.strip())) is None:
            raise APIError(401, "unauthorized", "unknown token")
        return name

    def submit(self, job: str, body: BatchIn) -> tuple[dict[str, Any], bool]:
        """Check a batch against the limits and store it; return its public view and whether it is new."""
        if body.shots > self.limits.max_shots:
            raise APIError(
                422, "too_many_shots", f"shots={body.shots} exceeds the limit of {self.limits.max_shots}"
            )
        try:
            circuits = decode_circuits(body.circuits)
        except ValueError as exc:
            raise APIError(400, "bad_circuits", str(exc)) from None
        if len(circuits) > self.limits.max_circuits:
            raise APIError(
                422,
                "too_many_circuits",
                f"batch has {len(circuits)} circuits, the limit is {self.limits.max_circuits}",
            )
        qubits = max(c.num_qubits for c in circuits)
        if qubits > self.max_qubits:
            raise APIError(
                422, "too_many_qubits", f"a circuit needs {qubits} qubits, the limit is {self.max_qubits}"
            )
        try:
            batch, created = self.store.accept(
                job=job,
                key=body.key,
                payload=body.circuits.encode("ascii"),
                circuits=len(circuits),
                qubits=qubits,
                shots=body.shots,
                seed=body.seed,
                submitted=time.time(),
                max_queue=self.limits.max_queue,
            )
        except QueueFullError as exc:
            raise APIError(429, "queue_full", str(exc)) from None
        self._wake.set()
        return batch.to_json(), created

    async def result(self, job: str, batch_id: int, wait: float) -> dict[str, Any]:
        """Return a batch of ``job``, waiting up to ``wait`` seconds for it to finish."""
        event = self._waiters[batch_id]  # created before the read, so no notification is missed
        batch = self.store.get(batch_id)
        if batch is None or batch.job != job:
            self._waiters.pop(batch_id, None)
            raise APIError(404, "not_found", f"no batch {batch_id} for job {job!r}")
        if batch.status not in ("done", "failed") and wait > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(wait, MAX_WAIT))
            batch = self.store.get(batch_id)
        if batch.status in ("done", "failed"):
            self._waiters.pop(batch_id, None)
            await asyncio.to_thread(self.store.mark_fetched, batch_id)
        return batch.to_json()

    def health(self) -> dict[str, Any]:
        """Liveness and what the device offers."""
        return {
            "status": "ok",
            "backend": self.backend.name,
            "num_qubits": self.max_qubits,
            "latency": self.latency,
            "limits": asdict(self.limits),
        }

    def metrics(self) -> dict[str, Any]:
        """Queue length and accounting so far."""
        now = time.time()
        batches = self.store.batches()
        summary = summarize(batches, until=now) if batches else None
        return {
            "queue_length": sum(b.status in ("queued", "running") for b in batches),
            "batches_done": sum(b.status == "done" for b in batches),
            "batches_failed": sum(b.status == "failed" for b in batches),
            "busy_seconds": summary.quantum_seconds if summary else 0.0,
            "occupancy": summary.occupancy if summary else 0.0,
            "uptime_seconds": now - self.started,
        }


def create_app(service: VQPUService) -> FastAPI:
    """Build the FastAPI application serving ``service``; its lifespan runs the executor."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        service.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            await asyncio.to_thread(service.stop)

    app = FastAPI(title="vQPU", lifespan=lifespan)
    Job = Annotated[str, Depends(service.job_of)]

    @app.exception_handler(APIError)
    async def _api_error(request: Request, exc: APIError):
        return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        return JSONResponse({"error": "bad_request", "detail": detail}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"error": "http_error", "detail": str(exc.detail)}, status_code=exc.status_code)

    @app.middleware("http")
    async def _limit_payload(request: Request, call_next):
        if request.method == "POST":
            length = request.headers.get("content-length")
            if length is None:
                return JSONResponse(
                    {"error": "length_required", "detail": "send a Content-Length header"}, 411
                )
            if int(length) > service.limits.max_payload_bytes:
                detail = (
                    f"request body has {int(length)} bytes, the limit is {service.limits.max_payload_bytes}"
                )
                return JSONResponse({"error": "payload_too_large", "detail": detail}, 413)
        return await call_next(request)

    @app.post("/batches", status_code=202)
    def submit(body: BatchIn, job: Job):
        view, created = service.submit(job, body)
        return view if created else JSONResponse(view, status_code=200)

    @app.get("/batches/{batch_id}")
    async def result(batch_id: int, job: Job, wait: float = 0.0):
        return await service.result(job, batch_id, wait)

    @app.get("/health")
    def health(job: Job):
        return service.health()

    @app.get("/metrics")
    def metrics(job: Job):
        return service.metrics()

    return app
