"""The FIFO executor of a vQPU server: one thread runs the stored batches one at a time.

Batches run strictly in arrival order (batch id order). Every step goes through the
:class:`~backends.vqpu.store.Store` (``running`` with its start time, then ``done``
with counts or ``failed`` with the reason), so a restarted server finds in the store
what it still has to run. A failing batch is marked ``failed`` and the loop goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from backends.base import QuantumBackend
from backends.validation import check_nonnegative
from backends.vqpu.store import Store
from backends.vqpu.wire import decode_circuits

__all__ = ["FIFOExecutor"]

log = logging.getLogger("backends.vqpu")

#: Seconds the idle loop sleeps before looking at the store again when nobody wakes it.
IDLE_POLL = 1.0


class FIFOExecutor:
    """Run the queued batches of ``store`` on ``backend``, oldest first, on one thread.

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
    ) -> None:
        self.backend = backend
        self.store = store
        self.latency = check_nonnegative(latency, "latency")
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
        """Run the oldest queued batch until stopped; sleep until woken when there is none."""
        while not self._stop.is_set():
            batch_id = self.store.next_queued()
            if batch_id is None:
                self._wake.wait(IDLE_POLL)
                self._wake.clear()
                continue
            self.run_batch(batch_id)

    def run_batch(self, batch_id: int) -> None:
        """Run one stored batch and store its outcome; errors fail the batch, not the executor."""
        batch = self.store.get(batch_id)
        if batch is None:
            log.error("batch %d is not in the store", batch_id)
            return
        started = time.time()
        payload = self.store.start(batch_id, started)
        tick = time.perf_counter()
        counts: list[dict[str, int]] | None = None
        error: str | None = None
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
        if self._on_finish is not None:
            self._on_finish(batch_id)
