"""The executor of a vQPU server: one thread runs the stored batches one at a time.

The scheduling policy (:mod:`backends.vqpu.server.policies`) picks the next queued batch;
FIFO, the default, runs them in arrival order. Every step goes through the
:class:`~backends.vqpu.server.store.Store` (``running`` with its start time, then ``done``
with counts or ``failed`` with the reason), so a restarted server finds in the store
what it still has to run. A failing batch is marked ``failed`` and the loop goes on.

Before a batch runs, the quotas of its job and user are checked against the
:class:`~backends.vqpu.server.accounting.Ledger`; a batch over quota fails with
``quota_exceeded`` without touching the device.

While the server is in maintenance (:mod:`backends.vqpu.server.maintenance`) the executor
starts no batch. A batch whose execution raises a connection-type error (the device stopped
answering) is not failed: it goes back to the queue, and the server enters maintenance until
the device answers a probe. The device time of a batch
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
from backends.utils.validation import check_nonnegative
from backends.vqpu.server.accounting import Ledger, Quotas, usage_of
from backends.vqpu.server.maintenance import Maintenance, is_device_fault
from backends.vqpu.server.policies import Policy, RunQueue
from backends.vqpu.server.store import Batch, Queued, Store
from backends.vqpu.server.tokens import Caller
from backends.vqpu.wire import decode_circuits

__all__ = ["BatchExecutor"]

log = logging.getLogger("backends.vqpu")


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
    wait_turn : callable, optional
        Called on the executor thread before it takes each batch, to let other work go
        first (the server's requests, :mod:`backends.vqpu.server.gate`); default none.
    maintenance : Maintenance, optional
        While it is active no batch starts; a device fault puts the batch back in the queue
        and enters it. Default none: a device fault fails the batch like any error.

    Raises
    ------
    InvalidParameterError
        If ``latency`` is negative.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from qiskit import QuantumCircuit
    >>> from backends.null import NullBackend
    >>> from backends.vqpu.server.store import Store
    >>> from backends.vqpu.wire import encode_circuits
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = Store(Path(folder.name) / "vqpu.db")
    >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
    >>> batch, _ = store.accept(job="j", user="u", key="k", payload=encode_circuits([circuit]).encode(),
    ...                         circuits=1, qubits=2, shots=100, seed=1, submitted=0.0)
    >>> executor = BatchExecutor(NullBackend(seed=1), store)
    >>> executor.run_batch(batch.id)
    >>> done = store.get(batch.id)
    >>> done.status, sum(done.counts[0].values()), executor.ledger.jobs["j"].shots
    ('done', 100, 100)
    >>> store.close(); folder.cleanup()
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
        wait_turn: Callable[[], object] | None = None,
        maintenance: Maintenance | None = None,
    ) -> None:
        self.backend = backend
        self.store = store
        self.latency = check_nonnegative(latency, "latency")
        self._policy = policy or Policy("fifo")
        self.quotas = quotas or Quotas()
        self.ledger = ledger if ledger is not None else Ledger()
        self._on_finish = on_finish
        self._wait_turn = wait_turn
        self._queue = RunQueue(self._policy)  # the store's queued batches
        self._queue_lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._maintenance = maintenance
        if maintenance is not None:
            maintenance.add_listener(self._wake.set)  # its end wakes the loop

    @property
    def policy(self) -> Policy:
        """The scheduling policy (read-only: the executor's queue is built for it)."""
        return self._policy

    def start(self) -> None:
        """Re-queue the batches a dead server left running, then start the executor thread.

        Examples
        --------
        >>> import threading
        >>> import tempfile
        >>> from pathlib import Path
        >>> from qiskit import QuantumCircuit
        >>> from backends.null import NullBackend
        >>> from backends.vqpu.server.store import Store
        >>> from backends.vqpu.wire import encode_circuits
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=encode_circuits([circuit]).encode(),
        ...                         circuits=1, qubits=2, shots=100, seed=1, submitted=0.0)
        >>> finished = threading.Event()
        >>> executor = BatchExecutor(NullBackend(seed=1), store, on_finish=lambda _: finished.set())
        >>> executor.start()  # runs what the store has queued
        >>> finished.wait(30), store.get(batch.id).status
        (True, 'done')
        >>> executor.stop()
        >>> store.close(); folder.cleanup()
        """
        if requeued := self.store.requeue_interrupted():
            log.warning("re-queued %d batches interrupted by the previous server", requeued)
        for queued in self.store.queued():
            self._add(queued)
        self._thread = threading.Thread(target=self._loop, name="vqpu-executor", daemon=True)
        self._thread.start()

    def enqueue(self, batch: Batch) -> None:
        """Queue a batch that was just accepted into the store, and wake the executor.

        Batches queued in the store before :meth:`start` are found there by it.

        Examples
        --------
        >>> import threading
        >>> import tempfile
        >>> from pathlib import Path
        >>> from qiskit import QuantumCircuit
        >>> from backends.null import NullBackend
        >>> from backends.vqpu.server.store import Store
        >>> from backends.vqpu.wire import encode_circuits
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> finished = threading.Event()
        >>> executor = BatchExecutor(NullBackend(seed=1), store, on_finish=lambda _: finished.set())
        >>> executor.start()  # nothing queued: the executor sleeps until a batch is queued
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=encode_circuits([circuit]).encode(),
        ...                         circuits=1, qubits=2, shots=100, seed=1, submitted=0.0)
        >>> executor.enqueue(batch)
        >>> finished.wait(30), store.get(batch.id).status
        (True, 'done')
        >>> executor.stop()
        >>> store.close(); folder.cleanup()
        """
        self._add(Queued(batch.id, batch.job, batch.submitted, batch.account))
        self._wake.set()

    def _add(self, queued: Queued) -> None:
        """Put a batch in the in-memory queue unless it is there already (start() and enqueue() may meet)."""
        with self._queue_lock:
            self._queue.add(queued)

    def stop(self) -> None:
        """Let the running batch finish and stop the thread; safe to call twice.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from qiskit import QuantumCircuit
        >>> from backends.null import NullBackend
        >>> from backends.vqpu.server.store import Store
        >>> from backends.vqpu.wire import encode_circuits
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=encode_circuits([circuit]).encode(),
        ...                         circuits=1, qubits=2, shots=100, seed=1, submitted=0.0)
        >>> executor = BatchExecutor(NullBackend(seed=1), store)
        >>> executor.start()
        >>> executor.stop(); executor.stop()
        >>> "running" in store.status_counts()  # a batch it had started is finished
        False
        >>> store.close(); folder.cleanup()
        """
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        """Run the batch the policy picks until stopped; sleep until a batch is queued when none is."""
        while True:
            self._wake.clear()  # before the stop check: a stop() after it sets the event again
            if self._stop.is_set():
                return
            if self._maintenance is not None and self._maintenance.active:
                self._wake.wait()
                continue
            if self._wait_turn is not None:
                self._wait_turn()
            if (batch_id := self._next()) is None:
                self._wake.wait()
                continue
            self.run_batch(batch_id)

    def _next(self) -> int | None:
        """Take the batch the policy picks off the queue; None when the queue is empty."""
        with self._queue_lock:
            return self._queue.take(now=time.time())

    def run_batch(self, batch_id: int) -> None:
        """Run one stored batch and store its outcome; errors fail the batch, not the executor.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> from qiskit import QuantumCircuit
        >>> from backends.null import NullBackend
        >>> from backends.vqpu.server.store import Store
        >>> from backends.vqpu.wire import encode_circuits
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> circuit = QuantumCircuit(2, 2); _ = circuit.measure([0, 1], [0, 1])
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=encode_circuits([circuit]).encode(),
        ...                         circuits=1, qubits=2, shots=100, seed=1, submitted=0.0)
        >>> from backends.vqpu.server.accounting import Quotas
        >>> _ = store.accept(job="j", user="u", key="bad", payload=b"not QPY", circuits=1, qubits=1,
        ...                  shots=1, seed=None, submitted=0.0)
        >>> executor = BatchExecutor(NullBackend(), store, quotas=Quotas(job_seconds=0.0))
        >>> executor.run_batch(batch.id)  # the job's quota of 0 s is used up from the start
        >>> store.get(batch.id).error
        "quota_exceeded: job 'j' used 0 quantum seconds, its quota is 0 s"
        >>> BatchExecutor(NullBackend(), store).run_batch(batch.id + 1)  # logs the error, goes on
        >>> store.get(batch.id + 1).error  # doctest: +ELLIPSIS
        'ValueError: circuits are not base64-encoded QPY: ...'
        >>> store.close(); folder.cleanup()
        """
        batch = self.store.get(batch_id)
        if batch is None or batch.status != "queued":
            log.error("batch %d is not queued in the store (%s)", batch_id, batch and batch.status)
            return
        caller = Caller(batch.job, batch.user, batch.account)
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
            if self.latency > 0:  # time.sleep(0) still gives up the GIL, and waits to get it back
                time.sleep(self.latency * len(circuits))
                device += self.latency * len(circuits)
        except Exception as exc:  # noqa: BLE001 - the batch fails, the server goes on
            if self._maintenance is not None and is_device_fault(exc):
                self._put_back(batch, exc, self._maintenance)
                return
            log.exception("batch %d failed", batch_id)
            error = f"{type(exc).__name__}: {exc}"
        transpile = max(0.0, time.perf_counter() - tick - device)
        self._finish(batch, started, device, transpile, counts=counts, error=error)

    def _put_back(self, batch: Batch, fault: BaseException, maintenance: Maintenance) -> None:
        """The device stopped answering: maintenance, and ``batch`` back in the queue, not failed."""
        log.warning("batch %d goes back to the queue: the device does not answer (%s)", batch.id, fault)
        maintenance.device_failed(f"{type(fault).__name__}: {fault}")
        self.store.requeue_interrupted()  # the one running batch: this one
        self._add(Queued(batch.id, batch.job, batch.submitted, batch.account))

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
        """Charge ``batch``'s job and user, store its outcome, and tell ``on_finish``.

        The charge comes first, so whoever sees the batch done sees its usage counted: a
        submission right after cannot slip past a quota the batch used up.
        """
        ran = dataclasses.replace(
            batch,
            status="failed" if error is not None else "done",
            started=started,
            quantum_seconds=quantum,
            transpile_seconds=transpile,
        )
        self.ledger.charge(Caller(batch.job, batch.user, batch.account), usage_of(ran))
        self.store.finish(
            batch.id,
            ended=time.time(),
            quantum_seconds=quantum,
            transpile_seconds=transpile,
            counts=counts,
            error=error,
        )
        if self._on_finish is not None:
            self._on_finish(batch.id)
