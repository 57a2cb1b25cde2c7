"""Request handling of a vQPU server, without HTTP: who is asking, what may be queued, what to answer.

:class:`VQPUService` holds one server's state (backend, store, executor, limits and
tokens); :func:`backends.vqpu.server.app.create_app` maps its methods onto HTTP routes.
Refusals raise :class:`~backends.vqpu.server.errors.APIError`, which the application
answers as ``{"error": code, "detail": message}`` with the error's status.

A submission is checked in order of cost, each step only after the previous passed:
the body's fields (:class:`~backends.vqpu.server.admission.BatchIn`); its key (a key
the job sent before is answered with its batch, whatever the quotas and limits are
now, or refused when the circuits, shots or seed differ); the quotas; then the limits,
the sandboxed decoding included (:class:`~backends.vqpu.server.admission.Admission`).
Only then is the batch stored and queued. Who is asking is
:func:`backends.vqpu.server.callers.caller_of`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from backends.base import QuantumBackend
from backends.utils.errors import InvalidParameterError
from backends.vqpu.server import callers
from backends.vqpu.server.accounting import Ledger, Quotas
from backends.vqpu.server.admission import Admission, BatchIn
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.executor import BatchExecutor
from backends.vqpu.server.gate import IdleGate
from backends.vqpu.server.limits import MAX_WAIT, SQLITE_INT_MAX, Limits, backend_max_shots
from backends.vqpu.server.maintenance import Maintenance, probe_device
from backends.vqpu.server.metrics import Snapshot, render
from backends.vqpu.server.policies import Policy
from backends.vqpu.server.report import summarize
from backends.vqpu.server.sandbox import DecodeWorker
from backends.vqpu.server.slurm_auth import SlurmAuth
from backends.vqpu.server.store import Batch, JobBusyError, KeyReusedError, QueueFullError, Store
from backends.vqpu.server.tokens import Caller, TokenBook

__all__ = ["APIError", "BatchIn", "VQPUService"]

#: Seconds the executor waits at most, before each batch, for the requests in hand
#: (:mod:`backends.vqpu.server.gate`): long beside a request's 1 to 2 ms, short beside a QPU's batch.
MAX_REQUESTS_FIRST = 0.005
_FINISHED = ("done", "failed")


class VQPUService:
    """State of one server: the backend, the store, the executor thread and the limits.

    Parameters
    ----------
    backend : QuantumBackend
        The physical device (any ``backends`` backend).
    db : str or Path
        SQLite accounting database; unfinished batches found in it are run first.
    tokens : TokenBook, optional
        Per-job tokens; None (and no ``slurm``) means open mode (the job name comes
        from the ``X-VQPU-Job`` header, and each job is billed as its own user).
    slurm : SlurmAuth, optional
        Slurm-bound access (:mod:`backends.vqpu.server.slurm_auth`): only running jobs
        holding the vQPU resource are served, each under its Slurm job id and user.
    warnings : sequence of str
        Warnings of the server's set-up (e.g. credentials sent in clear), reported on
        ``/health``.
    latency : float
        Extra device seconds per circuit, emulating a real QPU on top of a simulator.
    limits : Limits, optional
        Request limits; default :class:`Limits()`. ``max_qubits`` and ``max_shots`` are
        lowered to what the backend accepts (its ``num_qubits``, and its ``max_shots``
        where it has one), see :attr:`max_qubits` and :attr:`max_shots`.
    policy : Policy, optional
        Scheduling policy (:mod:`backends.vqpu.server.policies`); default FIFO.
    quotas : Quotas, optional
        Quantum-second quotas per job and per user; default none.
    maintenance : Maintenance, optional
        When the vQPU is in maintenance (:mod:`backends.vqpu.server.maintenance`); default
        one without an admin flag, probing ``backend`` when it stops answering.

    Attributes
    ----------
    max_qubits : int
        Widest circuit accepted: ``limits.max_qubits``, at most the backend's ``num_qubits``.
    max_shots : int
        Most shots per circuit accepted: ``limits.max_shots``, at most the backend's own
        ``max_shots`` (:attr:`backends.base.BaseBackend.max_shots`; a backend without
        one sets no limit), so a batch the backend would refuse at run time is refused
        at submission (422 ``too_many_shots``).

    Raises
    ------
    InvalidParameterError
        If ``latency`` is negative.
    DatabaseInUseError
        If another store (another server) writes to ``db``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from backends.null import NullBackend
    >>> folder = tempfile.TemporaryDirectory()
    >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
    >>> health = service.health()
    >>> health["backend"], health["num_qubits"], health["policy"]
    ('null', 4, 'fifo')
    >>> service.stop()
    >>> service = VQPUService(NullBackend(), Path(folder.name) / "vqpu.db", limits=Limits(max_shots=10**7))
    >>> service.max_shots  # the null backend's own limit
    1000000
    >>> service.stop(); folder.cleanup()
    """

    def __init__(
        self,
        backend: QuantumBackend,
        db: str | Path,
        *,
        tokens: TokenBook | None = None,
        slurm: SlurmAuth | None = None,
        warnings: Sequence[str] = (),
        latency: float = 0.0,
        limits: Limits | None = None,
        policy: Policy | None = None,
        quotas: Quotas | None = None,
        maintenance: Maintenance | None = None,
    ) -> None:
        if not latency >= 0:
            raise InvalidParameterError(
                f"The 'latency' parameter must be >= 0 seconds. Got {latency} instead."
            )
        self.backend = backend
        self.tokens = tokens
        self.slurm = slurm
        self.warnings = list(warnings)
        self.latency = latency
        self.limits = limits or Limits()
        self.max_qubits = min(self.limits.max_qubits or backend.num_qubits, backend.num_qubits)
        own_shots = backend_max_shots(backend)
        self.max_shots = self.limits.max_shots if own_shots is None else min(self.limits.max_shots, own_shots)
        self.store = Store(db)  # takes the database's writer lock
        try:
            self.decoder = DecodeWorker(
                memory_bytes=self.limits.max_decode_bytes, timeout=self.limits.max_decode_seconds
            )
            self._admission = Admission(
                self.limits, max_qubits=self.max_qubits, max_shots=self.max_shots, decoder=self.decoder
            )
            self.started = time.time()
            self._loop: asyncio.AbstractEventLoop | None = None
            self._waiters: defaultdict[int, asyncio.Event] = defaultdict(asyncio.Event)
            self._sleepers: Counter[asyncio.Event] = Counter()  # long polls waiting on each event
            self.gate = IdleGate()
            self.quotas = quotas or Quotas()
            self.ledger = Ledger.of_store(self.store)
            self.quota_refusals = 0
            self.maintenance = maintenance or Maintenance(probe=probe_device(backend))
            self._executor = BatchExecutor(
                backend,
                self.store,
                latency=latency,
                on_finish=self._finished,
                policy=policy or Policy("fifo"),
                quotas=self.quotas,
                ledger=self.ledger,
                wait_turn=self._requests_first,
                maintenance=self.maintenance,
            )
        except BaseException:
            self.store.close()  # releases the lock: the database is free again
            raise

    @property
    def policy(self) -> Policy:
        """The scheduling policy (read-only: the executor's queue is built for it)."""
        return self._executor.policy

    # -- life cycle -------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Re-queue interrupted batches and start the executor; ``loop`` runs the long polls.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> from qiskit import QuantumCircuit
        >>> from backends.vqpu.wire import encode_circuits
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> body = BatchIn(key="k1", circuits=encode_circuits([circuit]), shots=100, seed=7)
        >>> import asyncio
        >>> async def run_one():
        ...     service.start(asyncio.get_running_loop())
        ...     batch, created = service.submit(Caller("job-a", "ann"), body)
        ...     return await service.result("job-a", batch["id"], wait=30.0)
        >>> done = asyncio.run(run_one())
        >>> done["status"], sum(done["counts"][0].values())
        ('done', 100)
        >>> service.stop(); folder.cleanup()
        """
        self._loop = loop
        self.gate.bind(loop)
        self.maintenance.start()  # first: a server restarted in maintenance starts no batch
        self._executor.start()

    def stop(self) -> None:
        """Let the running batch finish, stop executor and decoder, close the store; safe to call twice.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> service.start()
        >>> service.stop()
        >>> service.stop(); folder.cleanup()
        """
        self._executor.stop()
        self.maintenance.stop()
        self.decoder.close()
        self.store.close()

    def _finished(self, batch_id: int) -> None:
        """On the executor thread: wake the long polls waiting for ``batch_id``."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._notify, batch_id)

    def _requests_first(self) -> None:
        """On the executor thread: let the requests in hand go before the next batch, for a bounded time."""
        self.gate.wait_idle(MAX_REQUESTS_FIRST)

    def _notify(self, batch_id: int) -> None:
        """On the event loop: set the event the long polls of ``batch_id`` wait on.

        The gate counts the woken polls as requests in hand from here, so the executor
        does not start its next batch before they are answered.
        """
        if (event := self._waiters.pop(batch_id, None)) is not None:
            self.gate.enter(self._sleepers[event])
            event.set()

    # -- requests ---------------------------------------------------------------------------------
    def caller_of(self, headers: Mapping[str, str], client: str | None = None) -> Caller:
        r"""Return the job and user of a request from its headers, checking its token.

        Parameters
        ----------
        headers : mapping of str to str
            Request headers, looked up by lower-case name (Starlette's ``Headers``
            ignore case); tokens and job names sent as UTF-8 bytes are decoded as such.
        client : str, optional
            The client's host, to which a Slurm-bound server's session tickets are bound.

        Raises
        ------
        APIError
            401 when a token is needed and missing or unknown, 503 while the token
            file is unusable (every token is refused), 400 for an open-mode job name
            longer than 128 characters.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> _ = (Path(folder.name) / "tokens").write_text("job-a tok-a ann\n")
        >>> book = TokenBook(Path(folder.name) / "tokens")
        >>> service = VQPUService(NullBackend(), Path(folder.name) / "vqpu.db", tokens=book)
        >>> caller = service.caller_of({"authorization": "Bearer tok-a"})
        >>> caller.job, caller.user
        ('job-a', 'ann')
        >>> try:
        ...     service.caller_of({"authorization": "Bearer guess"})
        ... except APIError as error:
        ...     print(error.status, error.code, error.detail)
        401 unauthorized unknown token
        >>> service.stop(); folder.cleanup()
        """
        return callers.caller_of(headers, self.tokens, self.slurm, client)

    def session_for(self, caller: Caller, headers: Mapping[str, str], client: str | None) -> str | None:
        """A session ticket for a request just admitted by a MUNGE credential, else ``None``.

        The answer carries it (``X-VQPU-Session``); the client sends it instead of a
        credential until it is refused (:mod:`backends.vqpu.server.sessions`).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(), Path(folder.name) / "vqpu.db")
        >>> service.session_for(Caller("job-a", "job-a"), {}, "127.0.0.1") is None  # open mode
        True
        >>> service.stop(); folder.cleanup()
        """
        scheme = headers.get("authorization", "").partition(" ")[0].lower()
        return (
            self.slurm.open_session(caller, client) if self.slurm is not None and scheme == "munge" else None
        )

    def submit(self, caller: Caller, body: BatchIn) -> tuple[dict[str, Any], bool]:
        """Check a batch against quotas and limits and store it; return its view and whether it is new.

        A key the job sent before is answered with its batch (not new) before any
        quota or limit is checked, so a client whose answer was lost can always
        resend its batch.

        Raises
        ------
        APIError
            409 when the key is known with other circuits, shots or seed, 403 when the
            job, user or account has used its quota of quantum seconds (503 while the
            account file is unusable), 400 or 422 for a batch
            beyond the limits, 429 when the queue is full, 503 when the decoder is
            busy or unavailable, or (with ``Retry-After``) while the vQPU is in maintenance.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> from qiskit import QuantumCircuit
        >>> from backends.vqpu.wire import encode_circuits
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> body = BatchIn(key="k1", circuits=encode_circuits([circuit]), shots=100, seed=7)
        >>> batch, created = service.submit(Caller("job-a", "ann"), body)  # decoded in the sandbox
        >>> batch["status"], batch["circuits"], created
        ('queued', 1, True)
        >>> service.submit(Caller("job-a", "ann"), body)[1]  # the same key again: nothing new
        False
        >>> try:
        ...     service.submit(Caller("job-a", "ann"), body.model_copy(update={"key": "k2", "shots": 10**6}))
        ... except APIError as error:
        ...     print(error.status, error.code, error.detail)
        422 too_many_shots shots=1000000 exceeds the limit of 100000
        >>> try:
        ...     service.submit(Caller("job-a", "ann"), body.model_copy(update={"shots": 10}))
        ... except APIError as error:
        ...     print(error.status, error.code, error.detail.split(";")[0])
        409 key_reused key 'k1' of job 'job-a' was used for batch 1 with other shots
        >>> service.stop(); folder.cleanup()
        """
        # exact text (lone surrogates kept): a body that is not ASCII base64 matches no stored payload
        payload = body.circuits.encode("utf-8", "surrogatepass")
        job, key, shots, seed = caller.job, body.key, body.shots, body.seed
        if (closed := self.maintenance.refusal()) is not None:
            raise closed
        try:
            known = self.store.find(job=job, key=key, payload=payload, shots=shots, seed=seed)
            if known is not None:  # before quotas and limits: a resent batch is always answered
                return known.to_json(), False
            if (problem := self.quotas.unavailable()) is not None:  # the account file: fail closed
                raise APIError(503, "quotas_unavailable", problem)
            if (refusal := self.quotas.refusal(caller, self.ledger)) is not None:
                self.quota_refusals += 1
                raise APIError(403, "quota_exceeded", refusal)
            summary = self._admission.check(body)
            batch, created = self.store.accept(
                job=job,
                user=caller.user,
                account=caller.account,
                key=key,
                payload=payload,
                circuits=summary.circuits,
                qubits=summary.qubits,
                shots=shots,
                seed=seed,
                submitted=time.time(),
                max_queue=self.limits.max_queue,
                max_job_pending=self._job_bound(caller),
            )
        except KeyReusedError as exc:
            raise APIError(409, "key_reused", str(exc)) from None
        except QueueFullError as exc:
            raise APIError(429, "queue_full", str(exc)) from None
        except JobBusyError as exc:
            raise APIError(429, "job_busy", str(exc)) from None
        if created:
            self._executor.enqueue(batch)
        return batch.to_json(), created

    def _job_bound(self, caller: Caller) -> int | None:
        """Most batches ``caller``'s job may have queued or running: its shares x the limit per share."""
        per_share = self.limits.max_batches_per_share
        return None if per_share is None else caller.shares * per_share

    def _batch_of(self, job: str, batch_id: int) -> Batch:
        """Return batch ``batch_id`` if it belongs to ``job``.

        Raises
        ------
        APIError
            404 when there is no such batch (any id outside 1..2**63-1 included) or it
            belongs to another job.
        """
        batch = self.store.get(batch_id) if 1 <= batch_id <= SQLITE_INT_MAX else None
        if batch is None or batch.job != job:
            raise APIError(404, "not_found", f"no batch {batch_id} for job {job!r}")
        return batch

    async def result(self, job: str, batch_id: int, wait: float) -> dict[str, Any]:
        """Return a batch of ``job``, waiting up to ``wait`` seconds for it to finish.

        Raises
        ------
        APIError
            404 when ``job`` has no batch ``batch_id``; 503 with ``Retry-After`` for an
            unfinished batch while the vQPU is in maintenance.

        Examples
        --------
        >>> import asyncio
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> try:
        ...     asyncio.run(service.result("job-a", 1, wait=0.0))
        ... except APIError as error:
        ...     print(error.status, error.detail)
        404 no batch 1 for job 'job-a'
        >>> service.stop(); folder.cleanup()

        A finished batch is answered with its counts, see :meth:`start`.
        """
        with self.gate.working():
            # ownership first: a lookup that fails (another job's id, no such batch) never
            # touches the event the owner's long polls wait on
            batch = self._batch_of(job, batch_id)
            if batch.status not in _FINISHED and (closed := self.maintenance.refusal()) is not None:
                raise closed  # 503 with Retry-After: the client waits the maintenance out
            if batch.status not in _FINISHED and wait > 0:
                event = self._waiters[batch_id]
                batch = self._batch_of(job, batch_id)  # again, the event made: no wake-up missed
                if batch.status not in _FINISHED:
                    await self._sleep(event, min(wait, MAX_WAIT))
                    batch = self._batch_of(job, batch_id)
            if batch.status in _FINISHED:
                # wake the polls of a notification still on its way to the loop, and forget their event
                self._notify(batch_id)
                # the event loop goes on with other requests while the writer stores the delivery
                await asyncio.wrap_future(self.store.mark_fetched(batch_id))
            return batch.to_json()

    async def _sleep(self, event: asyncio.Event, seconds: float) -> None:
        """Wait up to ``seconds`` for ``event``, as a request the gate does not count meanwhile."""
        self._sleepers[event] += 1
        self.gate.leave()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), seconds)
        finally:
            self._sleepers[event] -= 1
            if not self._sleepers[event]:
                del self._sleepers[event]
            if not event.is_set():  # woken by the timeout: _notify did not count it in again
                self.gate.enter()

    def health(self) -> dict[str, Any]:
        """Liveness and what the device offers; ``limits["max_shots"]`` is the limit applied.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> health = service.health()
        >>> health["status"], health["num_qubits"], health["limits"]["max_shots"], health["quotas"]
        ('ok', 4, 100000, {'job_seconds': None, 'user_seconds': None})
        >>> service.stop(); folder.cleanup()
        """
        return {
            "status": "ok",
            "backend": self.backend.name,
            "num_qubits": self.max_qubits,
            "latency": self.latency,
            "limits": {**asdict(self.limits), "max_shots": self.max_shots},
            "policy": self.policy.name,
            "max_wait": self.policy.max_wait,
            "quotas": asdict(self.quotas),
            "auth": "slurm" if self.slurm else "token" if self.tokens else "open",
            "warnings": self.warnings,
            **self.maintenance.state(),
        }

    def metrics(self) -> bytes:
        """The Prometheus text exposition of the accounting so far (:mod:`backends.vqpu.server.metrics`).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> text = service.metrics().decode()
        >>> [line for line in text.splitlines() if line.startswith(("vqpu_queue", "vqpu_quota"))]
        ['vqpu_queue_length 0.0', 'vqpu_quota_refusals_total 0.0']
        >>> service.stop(); folder.cleanup()
        """
        _, users = self.ledger.snapshot()
        return render(
            Snapshot(self.store.status_counts(), users, self.quota_refusals, time.time() - self.started)
        )

    def status(self) -> dict[str, Any]:
        """Queue length and accounting so far, as JSON.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from backends.null import NullBackend
        >>> folder = tempfile.TemporaryDirectory()
        >>> service = VQPUService(NullBackend(width=4, seed=1), Path(folder.name) / "vqpu.db")
        >>> status = service.status()
        >>> status["queue_length"], status["batches_done"], status["occupancy"]
        (0, 0, 0.0)
        >>> service.stop(); folder.cleanup()
        """
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
