"""The executor of a vQPU server: one thread runs the stored batches one at a time.

The scheduling policy (:mod:`backends.vqpu.policies`) picks the next queued batch;
FIFO, the default, runs them in arrival order. Every step goes through the
:class:`~backends.vqpu.store.Store` (``running`` with its start time, then ``done``
with counts or ``failed`` with the reason), so a restarted server finds in the store
what it still has to run. A failing batch is marked ``failed`` and the loop goes on.

Before a batch runs, the quotas of its job and user are checked against the
:class:`~backends.vqpu.accounting.Ledger`; a batch over quota fails with
``quota_exceeded`` without touching the device. The device time of a batch
(``quantum_seconds``) is the backend's own execution window from its timing record,
plus the emulated latency; decoding and transpiling are stored apart as
``transpile_seconds``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable

from backends.base import QuantumBackend
from backends.timing import record_timings
from backends.validation import check_nonnegative
from backends.vqpu.accounting import Ledger, Quotas, usage_of
from backends.vqpu.policies import Policy, make_policy
from backends.vqpu.store import Batch, Store
from backends.vqpu.tokens import Caller
from backends.vqpu.wire import decode_circuits

__all__ = ["BatchExecutor"]

log = logging.getLogger("backends.vqpu")

#: Seconds the idle loop sleeps before looking at the store again when nobody wakes it.
IDLE_POLL = 1.0


class BatchExecutor:
    """Run the queued batches of ``store`` on ``backend`` in the order of ``policy``, on one thread.

    Parameters
    ----------
    backend : QuantumBackend
        The physical device.
    store : Store
        Where batches are queued and their outcomes stored.
    latency : float, optional
        Extra device seconds per circuit, emulating a real QPU on top of a simulator.
    on_finish : callable, optional
        Called on the executor thread with the id of every batch that finished (done
        or failed), after its outcome is stored.
    policy : Policy, optional
        Scheduling policy; default FIFO without a waiting-time bound.
    quotas : Quotas, optional
        Quantum-second quotas checked before each batch runs; default none.
    ledger : Ledger, optional
        Usage so far, charged with every finished batch; default an empty ledger.

    Raises
    ------
    InvalidParameterError
        If ``latency`` is negative.
    """

    def __init__(
        self,
        backend: QuantumBackend,
        store: Store,
        *,
        latency: float = 0.0,
        on_finish: Callable[[int], None] | None = None,
        policy: Policy | None = None,
        quotas: Quotas | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        self.backend = backend
        self.store = store
        self.latency = check_nonnegative(latency, "latency")
        self.policy = policy or make_policy("fifo")
        self.quotas = quotas or Quotas()
        self.ledger = ledger if ledger is not None else Ledger()
        self._on_finish = on_finish
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Re-queue the batches a dead server left running, then start the executor thread."""
        if requeued := self.store.requeue_interrupted():
            log.warning("re-queued %d batches interrupted by the previous server", requeued)
        self._thread = threading.Thread(target=self._loop, name="vqpu-executor", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Tell the executor that a batch was queued."""
        self._wake.set()

    def stop(self) -> None:
        """Let the running batch finish and stop the thread; safe to call twice."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        """Run the batch the policy picks until stopped; sleep until woken when none is queued."""
        while not self._stop.is_set():
            self._wake.clear()
            queue = self.store.queued()
            if not queue:
                self._wake.wait(IDLE_POLL)
                continue
            self.run_batch(self.policy.choose(queue, now=time.time()))

    def run_batch(self, batch_id: int) -> None:
        """Run one stored batch and store its outcome; errors fail the batch, not the executor."""
        batch = self.store.get(batch_id)
        if batch is None:
            log.error("batch %d is not in the store", batch_id)
            return
        caller = Caller(batch.job, batch.user)
        started = time.time()
        payload = self.store.start(batch_id, started)
        if (refusal := self.quotas.refusal(caller, self.ledger)) is not None:
            self._finish(batch, started, 0.0, 0.0, error=f"quota_exceeded: {refusal}")
            return
        tick = time.perf_counter()
        counts: list[dict[str, int]] | None = None
        error: str | None = None
        device = 0.0
        try:
            circuits = decode_circuits(payload)
            with record_timings() as records:
                counts = self.backend.run(circuits, batch.shots, seed=batch.seed)
            # the device's own window when the backend reports one, else the whole call
            device = sum(r.quantum_seconds for r in records) if records else time.perf_counter() - tick
            time.sleep(self.latency * len(circuits))
            device += self.latency * len(circuits)
        except Exception as exc:  # noqa: BLE001 - the batch fails, the server goes on
            log.exception("batch %d failed", batch_id)
            error = f"{type(exc).__name__}: {exc}"
        transpile = max(0.0, time.perf_counter() - tick - device)
        self._finish(batch, started, device, transpile, counts=counts, error=error)

    def _finish(
        self,
        batch: Batch,
        started: float,
        quantum: float,
        transpile: float,
        *,
        counts: list[dict[str, int]] | None = None,
        error: str | None = None,
    ) -> None:
        """Store the outcome of ``batch``, charge its job and user, and tell ``on_finish``."""
        self.store.finish(
            batch.id,
            ended=time.time(),
            quantum_seconds=quantum,
            transpile_seconds=transpile,
            counts=counts,
            error=error,
        )
        ran = dataclasses.replace(
            batch,
            status="failed" if error is not None else "done",
            started=started,
            quantum_seconds=quantum,
            transpile_seconds=transpile,
        )
        self.ledger.charge(Caller(batch.job, batch.user), usage_of(ran))
        if self._on_finish is not None:
            self._on_finish(batch.id)
