"""Request handling of a vQPU server, without HTTP: who is asking, what may be queued, what to answer.

:class:`VQPUService` holds one server's state (backend, store, executor, limits and
tokens); :func:`backends.vqpu.server.create_app` maps its methods onto HTTP routes.
Refusals raise :class:`APIError`, which the application answers as
``{"error": code, "detail": message}`` with the error's status.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from backends.base import QuantumBackend
from backends.errors import InvalidParameterError
from backends.vqpu.executor import FIFOExecutor
from backends.vqpu.limits import MAX_WAIT, Limits
from backends.vqpu.report import summarize
from backends.vqpu.store import Batch, QueueFullError, Store
from backends.vqpu.tokens import TokenBook
from backends.vqpu.wire import decode_circuits

__all__ = ["APIError", "BatchIn", "VQPUService"]

_FINISHED = ("done", "failed")


class APIError(Exception):
    """An error answered to the client as ``{"error": code, "detail": detail}``.

    Parameters
    ----------
    status : int
        HTTP status of the answer.
    code : str
        Machine-readable reason, e.g. ``"queue_full"``.
    detail : str
        Human-readable message.
    """

    def __init__(self, status: int, code: str, detail: str) -> None:
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

    Raises
    ------
    InvalidParameterError
        If ``latency`` is negative.
    """

    def __init__(
        self,
        backend: QuantumBackend,
        db: str | Path,
        *,
        tokens: TokenBook | None = None,
        latency: float = 0.0,
        limits: Limits | None = None,
    ) -> None:
        if not latency >= 0:
            raise InvalidParameterError(
                f"The 'latency' parameter must be >= 0 seconds. Got {latency} instead."
            )
        self.backend = backend
        self.tokens = tokens
        self.latency = latency
        self.limits = limits or Limits()
        self.max_qubits = min(self.limits.max_qubits or backend.num_qubits, backend.num_qubits)
        self.store = Store(db)
        self.started = time.time()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._waiters: defaultdict[int, asyncio.Event] = defaultdict(asyncio.Event)
        self._executor = FIFOExecutor(backend, self.store, latency=latency, on_finish=self._finished)

    # -- life cycle -------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Re-queue interrupted batches and start the executor; ``loop`` runs the long polls."""
        self._loop = loop
        self._executor.start()

    def stop(self) -> None:
        """Let the running batch finish, stop the executor and close the store; safe to call twice."""
        self._executor.stop()
        self.store.close()

    def _finished(self, batch_id: int) -> None:
        """On the executor thread: wake the long polls waiting for ``batch_id``."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._notify, batch_id)

    def _notify(self, batch_id: int) -> None:
        """On the event loop: set the event the long polls of ``batch_id`` wait on."""
        if (event := self._waiters.pop(batch_id, None)) is not None:
            event.set()

    # -- requests ---------------------------------------------------------------------------------
    def job_of(self, headers: Mapping[str, str]) -> str:
        """Return the job name of a request from its headers, checking its token.

        Parameters
        ----------
        headers : mapping of str to str
            Request headers, looked up by lower-case name (Starlette's ``Headers``
            ignore case).

        Raises
        ------
        APIError
            401 when a token is needed and missing or unknown.
        """
        if self.tokens is None:
            return headers.get("x-vqpu-job", "anonymous")
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise APIError(401, "unauthorized", "missing token: send 'Authorization: Bearer <token>'")
        if (name := self.tokens.name_of(token.strip())) is None:
            raise APIError(401, "unauthorized", "unknown token")
        return name

    def _check(self, body: BatchIn) -> tuple[int, int]:
        """Check a batch against the limits; return its number of circuits and widest circuit.

        Raises
        ------
        APIError
            400 for undecodable circuits, 422 when a limit is exceeded.
        """
        if body.shots > self.limits.max_shots:
            detail = f"shots={body.shots} exceeds the limit of {self.limits.max_shots}"
            raise APIError(422, "too_many_shots", detail)
        try:
            circuits = decode_circuits(body.circuits)
        except ValueError as exc:
            raise APIError(400, "bad_circuits", str(exc)) from None
        if len(circuits) > self.limits.max_circuits:
            detail = f"batch has {len(circuits)} circuits, the limit is {self.limits.max_circuits}"
            raise APIError(422, "too_many_circuits", detail)
        qubits = max(c.num_qubits for c in circuits)
        if qubits > self.max_qubits:
            detail = f"a circuit needs {qubits} qubits, the limit is {self.max_qubits}"
            raise APIError(422, "too_many_qubits", detail)
        return len(circuits), qubits

    def submit(self, job: str, body: BatchIn) -> tuple[dict[str, Any], bool]:
        """Check a batch against the limits and store it; return its public view and whether it is new.

        Raises
        ------
        APIError
            400 or 422 for a batch beyond the limits, 429 when the queue is full.
        """
        circuits, qubits = self._check(body)
        try:
            batch, created = self.store.accept(
                job=job,
                key=body.key,
                payload=body.circuits.encode("ascii"),
                circuits=circuits,
                qubits=qubits,
                shots=body.shots,
                seed=body.seed,
                submitted=time.time(),
                max_queue=self.limits.max_queue,
            )
        except QueueFullError as exc:
            raise APIError(429, "queue_full", str(exc)) from None
        self._executor.wake()
        return batch.to_json(), created

    def _batch_of(self, job: str, batch_id: int) -> Batch:
        """Return batch ``batch_id`` if it belongs to ``job``.

        Raises
        ------
        APIError
            404 when there is no such batch or it belongs to another job.
        """
        batch = self.store.get(batch_id)
        if batch is None or batch.job != job:
            raise APIError(404, "not_found", f"no batch {batch_id} for job {job!r}")
        return batch

    async def result(self, job: str, batch_id: int, wait: float) -> dict[str, Any]:
        """Return a batch of ``job``, waiting up to ``wait`` seconds for it to finish.

        Raises
        ------
        APIError
            404 when ``job`` has no batch ``batch_id``.
        """
        event = self._waiters[batch_id]  # created before the read, so no notification is missed
        try:
            batch = self._batch_of(job, batch_id)
        except APIError:
            self._waiters.pop(batch_id, None)
            raise
        if batch.status not in _FINISHED and wait > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(wait, MAX_WAIT))
            batch = self._batch_of(job, batch_id)
        if batch.status in _FINISHED:
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
