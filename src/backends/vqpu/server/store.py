"""SQLite store of the vQPU server: accepted batches, their timestamps and results.

The datasette way: one writer thread owns the only write connection and runs each
queued write inside ``BEGIN IMMEDIATE``; reads use read-only per-thread
connections; every value is a bound parameter. A write that fails raises in its
caller and the writer keeps running.

Schema (one row per accepted batch)::

    batches(id, job, key, payload, circuits, qubits, shots, seed, status,
            submitted, started, ended, quantum_seconds, runs, result, error, fetched,
            user, transpile_seconds)

``status`` is ``queued``, ``running``, ``done`` or ``failed``; timestamps are epoch
seconds (``time.time()``); ``result`` is the JSON list of counts; ``runs`` counts how
often the batch was started (more than one only when the server died mid-execution);
``fetched`` counts how often its finished (done or failed) result was read by its job;
``user`` is who is billed for the job; ``quantum_seconds`` is device execution only,
``transpile_seconds`` the server's decoding and transpiling before it. Databases of
earlier versions get the last two columns added when opened (each job its own user).
A database holding other tables, or a ``batches`` table of another schema, is refused
with :class:`ForeignDatabaseError` before anything is written to it.

One writer per database: a :class:`Store` holds an exclusive lock on ``<db>.lock``
(created if missing, never removed) from before it opens the database until it is
closed, so a second store on the same file - another server, or a script opening one
beside a live server - is refused with :class:`DatabaseInUseError` before it reads or
writes anything (it would otherwise re-queue, and run again, the batch the first one
is running). The operating system releases the lock when the process ends, however it
ends. Readers (:func:`read_batches`, ``python -m backends.vqpu report``) take no lock.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import sqlite3
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeVar

from backends.errors import BackendError

__all__ = [
    "Batch",
    "DatabaseInUseError",
    "DatabaseLockError",
    "ForeignDatabaseError",
    "KeyReusedError",
    "QueueFullError",
    "Queued",
    "Store",
    "read_batches",
]

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    job TEXT NOT NULL,
    key TEXT NOT NULL,
    payload BLOB NOT NULL,
    circuits INTEGER NOT NULL,
    qubits INTEGER NOT NULL,
    shots INTEGER NOT NULL,
    seed INTEGER,
    status TEXT NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'running', 'done', 'failed')),
    submitted REAL NOT NULL,
    started REAL,
    ended REAL,
    quantum_seconds REAL,
    runs INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    error TEXT,
    fetched INTEGER NOT NULL DEFAULT 0,
    user TEXT NOT NULL DEFAULT '',
    transpile_seconds REAL,
    UNIQUE (job, key)
);
CREATE INDEX IF NOT EXISTS batches_status ON batches (status, id);
"""

#: Columns added since the first schema, with their definitions, for opening older databases.
_ADDED_COLUMNS = {"user": "TEXT NOT NULL DEFAULT ''", "transpile_seconds": "REAL"}

#: A queued write: the function to run on the write connection and the future of its result.
_Write = tuple[Callable[[sqlite3.Connection], T], Future[T]]

_COLUMNS = (
    "id, job, key, circuits, qubits, shots, seed, status, submitted, started, ended, "
    "quantum_seconds, runs, result, error, fetched, user, transpile_seconds"
)

#: Columns every vQPU ``batches`` table has (the first schema's); others are added when missing.
_REQUIRED_COLUMNS = frozenset({"payload", *_COLUMNS.replace(" ", "").split(",")} - set(_ADDED_COLUMNS))


@dataclass(frozen=True)
class Batch:
    """One accepted batch as stored (without its QPY payload).

    Attributes
    ----------
    id : int
        Server-assigned batch id, increasing in arrival order.
    job : str
        Name of the job (token name, or the client's job label in open mode).
    key : str
        Client-generated idempotency key, unique per job.
    circuits, qubits, shots : int
        Number of circuits, widest circuit, shots per circuit.
    seed : int or None
        Simulator seed passed by the client.
    status : {"queued", "running", "done", "failed"}
        Life-cycle state.
    submitted, started, ended : float or None
        Epoch seconds of acceptance, start and end of the execution.
    quantum_seconds : float or None
        Seconds the device was busy with this batch.
    runs : int
        How often the execution was started.
    counts : list of dict or None
        Counts per circuit once done (qiskit bit order).
    error : str or None
        Reason of a failed execution.
    fetched : int
        How often the finished result was read by its job.
    user : str
        Who is billed for the job.
    transpile_seconds : float or None
        Server seconds spent decoding and transpiling the batch (not device time).

    Examples
    --------
    >>> batch = Batch(1, "j", "k", 2, 3, 100, None, "done", 10.0, 12.5, 13.0, 0.5, 1, None, None, 0)
    >>> batch.queue_seconds, batch.status
    (2.5, 'done')
    """

    id: int
    job: str
    key: str
    circuits: int
    qubits: int
    shots: int
    seed: int | None
    status: str
    submitted: float
    started: float | None
    ended: float | None
    quantum_seconds: float | None
    runs: int
    counts: list[dict[str, int]] | None
    error: str | None
    fetched: int
    user: str = ""
    transpile_seconds: float | None = None

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Batch:
        """Build a batch from a row selected with the store's column list.

        Examples
        --------
        >>> row = (1, "j", "k", 1, 2, 10, 7, "done", 1.0, 2.0, 3.0, 0.5, 1, '[{"00": 10}]', None, 0)
        >>> Batch.from_row(row).counts
        [{'00': 10}]
        """
        values = list(row)
        values[13] = None if values[13] is None else json.loads(values[13])
        return cls(*values)

    @property
    def queue_seconds(self) -> float | None:
        """Seconds between acceptance and start, or None before the start."""
        return None if self.started is None else self.started - self.submitted

    def to_json(self) -> dict[str, Any]:
        """Return the public view sent to clients.

        Examples
        --------
        >>> batch = Batch(4, "j", "k", 1, 2, 10, None, "queued", 1.0, None, None, None, 0, None, None, 0)
        >>> view = batch.to_json()
        >>> view["id"], view["status"], view["queue_seconds"], "job" in view
        (4, 'queued', None, False)
        """
        return {
            "id": self.id,
            "key": self.key,
            "status": self.status,
            "submitted": self.submitted,
            "started": self.started,
            "ended": self.ended,
            "quantum_seconds": self.quantum_seconds,
            "queue_seconds": self.queue_seconds,
            "circuits": self.circuits,
            "shots": self.shots,
            "counts": self.counts,
            "error": self.error,
        }


class Store:
    """SQLite store with one writer thread and read-only per-thread readers.

    The store is the only writer of its database: it holds the lock ``<path>.lock``
    from before it opens the database until :meth:`close` (see the module's notes).

    Parameters
    ----------
    path : str or Path
        Database file; created with its schema when missing. ``:memory:`` is not
        supported (readers need a file).

    Raises
    ------
    DatabaseInUseError
        If another store, in this process or another, holds the database's lock.
    DatabaseLockError
        If the lock file cannot be created (a missing folder, no permission).
    IsADirectoryError
        If ``path`` is a directory.
    ForeignDatabaseError
        If ``path`` is not a vQPU database (the lock is released again).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = Store(Path(folder.name) / "vqpu.db")
    >>> batch, created = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=1,
    ...                               qubits=2, shots=10, seed=None, submitted=1.0)
    >>> store.start(batch.id, started=2.0)
    b'qpy'
    >>> store.finish(batch.id, ended=3.0, quantum_seconds=0.5, counts=[{"00": 10}])
    >>> done = store.get(batch.id)
    >>> done.status, done.counts, done.queue_seconds
    ('done', [{'00': 10}], 1.0)
    >>> try:
    ...     Store(Path(folder.name) / "vqpu.db")  # a second writer
    ... except DatabaseInUseError as error:
    ...     print(error.lock_path.endswith("vqpu.db.lock"))
    True
    >>> store.close(); folder.cleanup()
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._read_only = _read_only_uri(self.path)
        self._lock_file = _writer_lock(os.fspath(path))
        self._writes: queue.Queue[_Write[Any] | None] = queue.Queue()
        self._closing = threading.Lock()
        self._closed = False
        self._local = threading.local()
        ready: Future[None] = Future()
        self._writer = threading.Thread(
            target=self._write_loop, args=(ready,), name="vqpu-db-writer", daemon=True
        )
        self._writer.start()
        try:
            ready.result()
        except BaseException:
            self._lock_file.close()  # the writer has stopped: nothing was written
            raise

    # -- writer ---------------------------------------------------------------------------------
    def _write_loop(self, ready: Future[None]) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            _check_schema(conn, self.path, empty_ok=True)  # before WAL mode changes the file
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(_SCHEMA)
            _add_missing_columns(conn)
        except Exception as exc:  # noqa: BLE001 - handed to the constructor
            if conn is not None:
                conn.close()
            ready.set_exception(exc)
            return
        ready.set_result(None)
        while (task := self._writes.get()) is not None:
            fn, future = task
            if not future.set_running_or_notify_cancel():  # cancelled while queued: not written
                continue
            try:
                conn.execute("BEGIN IMMEDIATE")
                result = fn(conn)
                conn.execute("COMMIT")
            except BaseException as exc:  # noqa: BLE001 - the caller gets it, the writer goes on
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):  # the caller gets the write's own error
                        conn.execute("ROLLBACK")
                future.set_exception(exc)
            else:
                future.set_result(result)
        conn.close()

    def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` in one ``BEGIN IMMEDIATE`` transaction on the writer thread.

        Returns
        -------
        object
            What ``fn`` returned.

        Raises
        ------
        Exception
            Whatever ``fn`` raised; the transaction is rolled back and the writer keeps running.
        sqlite3.ProgrammingError
            If the store is closed.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> store.write(lambda conn: conn.execute("SELECT count(*) FROM batches").fetchone())
        (0,)
        >>> store.close(); folder.cleanup()
        """
        return self.write_soon(fn).result()

    def write_soon(self, fn: Callable[[sqlite3.Connection], T]) -> Future[T]:
        """Queue ``fn(connection)`` for the writer thread, as :meth:`write` runs it, without waiting.

        Returns
        -------
        concurrent.futures.Future
            Done when the transaction is committed (its result is what ``fn``
            returned) or rolled back (its exception is what ``fn`` raised). Cancelling
            it before the writer reaches it leaves the write out.

        Raises
        ------
        sqlite3.ProgrammingError
            If the store is closed.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> future = store.write_soon(lambda conn: conn.execute("SELECT count(*) FROM batches").fetchone())
        >>> future.result(timeout=30)
        (0,)
        >>> store.close(); folder.cleanup()
        """
        future: Future[T] = Future()
        with self._closing:  # nothing is queued behind the writer's stop
            if self._closed:
                raise sqlite3.ProgrammingError(f"the store {self.path} is closed")
            self._writes.put((fn, future))
        return future

    def close(self) -> None:
        """Stop the writer thread after the queued writes, then release the lock; safe to call twice.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> store.close()
        >>> store.close(); folder.cleanup()  # a second close is harmless
        """
        with self._closing:
            if not self._closed:
                self._closed = True
                self._writes.put(None)
        self._writer.join()
        self._lock_file.close()  # closing the lock file releases the lock

    # -- readers --------------------------------------------------------------------------------
    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self._read_only, uri=True, check_same_thread=False)
            self._local.conn = conn
        return conn

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run a read-only query on this thread's reader connection.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.query("SELECT job, shots FROM batches")
        [('j', 100)]
        >>> store.close(); folder.cleanup()
        """
        return self._reader().execute(sql, params).fetchall()

    def get(self, batch_id: int) -> Batch | None:
        """Return one batch by id, or None.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.get(batch.id).key, store.get(batch.id + 1)
        ('k', None)
        >>> store.close(); folder.cleanup()
        """
        rows = self.query(f"SELECT {_COLUMNS} FROM batches WHERE id = ?", (batch_id,))
        return Batch.from_row(rows[0]) if rows else None

    def find(self, *, job: str, key: str, payload: bytes, shots: int, seed: int | None) -> Batch | None:
        """Return the batch ``job`` sent under ``key`` before, or None for a new key.

        Parameters
        ----------
        job, key : str
            The job and its idempotency key.
        payload : bytes
            The circuits sent again; with ``shots`` and ``seed`` they must be those
            the batch was accepted with.

        Raises
        ------
        KeyReusedError
            If the known key was sent with another payload, shots or seed.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.find(job="j", key="k", payload=b"qpy", shots=100, seed=None) == batch
        True
        >>> store.find(job="j", key="new", payload=b"qpy", shots=100, seed=None) is None
        True
        >>> try:
        ...     store.find(job="j", key="k", payload=b"qpy", shots=5, seed=1)
        ... except KeyReusedError as error:
        ...     print(error.differ, str(error).split(";")[0])
        ['shots', 'seed'] key 'k' of job 'j' was used for batch 1 with other shots and seed
        >>> store.close(); folder.cleanup()
        """
        return _known(self._reader(), job=job, key=key, payload=payload, shots=shots, seed=seed)

    # -- life cycle of a batch ------------------------------------------------------------------
    def accept(
        self,
        *,
        job: str,
        user: str,
        key: str,
        payload: bytes,
        circuits: int,
        qubits: int,
        shots: int,
        seed: int | None,
        submitted: float,
        max_queue: int | None = None,
    ) -> tuple[Batch, bool]:
        """Insert a batch, or return the one already accepted under ``(job, key)``.

        Parameters
        ----------
        max_queue : int, optional
            Refuse a new batch (raise :class:`QueueFullError`) when this many are
            queued or running; a known key is always answered.

        Returns
        -------
        batch : Batch
            The stored batch.
        created : bool
            False when the key was known (idempotent resubmission).

        Raises
        ------
        QueueFullError
            If the batch is new and ``max_queue`` batches are queued or running.
        KeyReusedError
            If the key is known with another payload, shots or seed (see :meth:`find`).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> again, created = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                               qubits=3, shots=100, seed=None, submitted=11.0)
        >>> again.id == batch.id, created, again.submitted
        (True, False, 10.0)
        >>> store.accept(job="j", user="u", key="other", payload=b"qpy", circuits=1, qubits=1,
        ...              shots=1, seed=None, submitted=12.0, max_queue=1)
        Traceback (most recent call last):
        ...
        backends.vqpu.server.store.QueueFullError: queue is full: 1 batches waiting, limit 1; retry later
        >>> store.close(); folder.cleanup()
        """

        def insert(conn: sqlite3.Connection) -> tuple[Batch, bool]:
            if (known := _known(conn, job=job, key=key, payload=payload, shots=shots, seed=seed)) is not None:
                return known, False
            if max_queue is not None:
                (pending,) = conn.execute(
                    "SELECT count(*) FROM batches WHERE status IN ('queued', 'running')"
                ).fetchone()
                if pending >= max_queue:
                    raise QueueFullError(pending, max_queue)
            conn.execute(
                "INSERT INTO batches (job, user, key, payload, circuits, qubits, shots, seed, submitted) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job, user, key, payload, circuits, qubits, shots, seed, submitted),
            )
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM batches WHERE job = ? AND key = ?", (job, key)
            ).fetchone()
            return Batch.from_row(row), True

        return self.write(insert)

    def requeue_interrupted(self) -> int:
        """Put batches left ``running`` by a dead server back in the queue; return how many.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> _ = store.start(batch.id, started=11.0)
        >>> store.requeue_interrupted(), store.get(batch.id).status
        (1, 'queued')
        >>> store.close(); folder.cleanup()
        """
        return self.write(
            lambda conn: (
                conn.execute("UPDATE batches SET status = 'queued' WHERE status = 'running'").rowcount
            )
        )

    def queued(self) -> list[Queued]:
        """The queued batches in arrival order (id order).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.queued()
        [Queued(id=1, job='j', submitted=10.0)]
        >>> store.close(); folder.cleanup()
        """
        rows = self.query("SELECT id, job, submitted FROM batches WHERE status = 'queued' ORDER BY id")
        return [Queued(*row) for row in rows]

    def status_counts(self) -> dict[str, int]:
        """Number of batches per status (statuses without batches are left out).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> _ = store.start(batch.id, started=11.0)
        >>> store.status_counts()
        {'running': 1}
        >>> store.close(); folder.cleanup()
        """
        return dict(self.query("SELECT status, count(*) FROM batches GROUP BY status"))

    def batches(self, *, with_counts: bool = False) -> list[Batch]:
        """Every batch in arrival order; ``counts`` stays None unless ``with_counts``.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.finish(batch.id, ended=11.0, quantum_seconds=0.1, counts=[{"0": 100}, {"1": 100}])
        >>> store.batches()[0].counts, store.batches(with_counts=True)[0].counts
        (None, [{'0': 100}, {'1': 100}])
        >>> store.close(); folder.cleanup()
        """
        columns = _COLUMNS if with_counts else _COLUMNS.replace("result", "NULL")
        return [Batch.from_row(r) for r in self.query(f"SELECT {columns} FROM batches ORDER BY id")]

    def start(self, batch_id: int, started: float) -> bytes:
        """Mark a batch running and return its QPY payload.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.start(batch.id, started=11.0)
        b'qpy'
        >>> running = store.get(batch.id)
        >>> running.status, running.runs, running.queue_seconds
        ('running', 1, 1.0)
        >>> store.close(); folder.cleanup()
        """

        def mark(conn: sqlite3.Connection) -> bytes:
            conn.execute(
                "UPDATE batches SET status = 'running', started = ?, runs = runs + 1 WHERE id = ?",
                (started, batch_id),
            )
            return conn.execute("SELECT payload FROM batches WHERE id = ?", (batch_id,)).fetchone()[0]

        return self.write(mark)

    def finish(
        self,
        batch_id: int,
        *,
        ended: float,
        quantum_seconds: float,
        transpile_seconds: float = 0.0,
        counts: list[dict[str, int]] | None = None,
        error: str | None = None,
    ) -> None:
        """Store the outcome of an execution: counts (status ``done``) or an error (``failed``).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.finish(batch.id, ended=12.0, quantum_seconds=0.0, error="device offline")
        >>> failed = store.get(batch.id)
        >>> failed.status, failed.error, failed.counts
        ('failed', 'device offline', None)
        >>> store.close(); folder.cleanup()
        """
        status = "failed" if error is not None else "done"
        result = None if counts is None else json.dumps(counts, separators=(",", ":"))
        self.write(
            lambda conn: conn.execute(
                "UPDATE batches SET status = ?, ended = ?, quantum_seconds = ?, transpile_seconds = ?, "
                "result = ?, error = ? WHERE id = ?",
                (status, ended, quantum_seconds, transpile_seconds, result, error, batch_id),
            )
        )

    def mark_fetched(self, batch_id: int) -> Future[None]:
        """Count one delivery of a finished result, without waiting for the writer.

        Returns
        -------
        concurrent.futures.Future
            Done once the count is stored (see :meth:`write_soon`).

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> _ = store.mark_fetched(batch.id), store.mark_fetched(batch.id).result(timeout=30)
        >>> store.get(batch.id).fetched  # writes are committed in the order they were queued
        2
        >>> store.close(); folder.cleanup()
        """

        def count(conn: sqlite3.Connection) -> None:
            conn.execute("UPDATE batches SET fetched = fetched + 1 WHERE id = ?", (batch_id,))

        return self.write_soon(count)


class Queued(NamedTuple):
    """A queued batch as the scheduler sees it: id, job, and acceptance time (epoch seconds).

    Examples
    --------
    >>> Queued(3, "job-a", 1.5).job
    'job-a'
    """

    id: int
    job: str
    submitted: float


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    """Add the columns of :data:`_ADDED_COLUMNS` that a database of an earlier version lacks."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(batches)")}
    for name, definition in _ADDED_COLUMNS.items():
        if name not in present:
            conn.execute(f"ALTER TABLE batches ADD COLUMN {name} {definition}")
    if "user" not in present:  # jobs of earlier versions are billed as their own users
        conn.execute("UPDATE batches SET user = job")


def _known(
    conn: sqlite3.Connection, *, job: str, key: str, payload: bytes, shots: int, seed: int | None
) -> Batch | None:
    """The batch of ``(job, key)``, or None; KeyReusedError if it was sent with another body.

    SQLite compares the payloads, so the stored one is not copied out.
    """
    row = conn.execute(
        f"SELECT {_COLUMNS}, payload = ?, shots = ?, seed IS ? FROM batches WHERE job = ? AND key = ?",
        (payload, shots, seed, job, key),
    ).fetchone()
    if row is None:
        return None
    batch = Batch.from_row(row[:-3])
    if differ := [
        name for name, same in zip(("circuits", "shots", "seed"), row[-3:], strict=True) if not same
    ]:
        raise KeyReusedError(job, key, batch.id, differ)
    return batch


def _writer_lock(db: str) -> IO[bytes]:
    """The open file ``<db>.lock``, locked exclusively; closing it releases the lock.

    Raises
    ------
    IsADirectoryError
        If ``db`` is a directory (no lock file is made beside it).
    DatabaseLockError
        If the lock file cannot be created or opened.
    DatabaseInUseError
        If another open file (another store, in any process) holds the lock.
    """
    if os.path.isdir(db):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), db)
    lock_path = f"{db}.lock"
    try:
        lock_file = open(lock_path, "a+b")  # noqa: SIM115 - held open until the store closes
    except OSError as exc:
        raise DatabaseLockError(
            f"{db}: cannot create the lock file {lock_path}: {exc.strerror or exc}", db, lock_path
        ) from exc
    try:
        _lock_exclusive(lock_file.fileno())
    except OSError as exc:
        lock_file.close()
        raise DatabaseInUseError(
            f"{db}: another server uses this database (its lock file {lock_path} is held)", db, lock_path
        ) from exc
    return lock_file


def _lock_exclusive(fd: int) -> None:
    """Lock the open file ``fd`` exclusively without waiting; OSError if another open file holds it.

    ``flock`` locks belong to the open file, so a second store of the same process is
    refused as well as one of another process.
    """
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _read_only_uri(path: Path) -> str:
    """The SQLite URI opening ``path`` read-only; ``#``, ``?`` and ``%`` in it are percent-encoded.

    >>> _read_only_uri(Path("/tmp/a#b/c?d%e.db"))
    'file:///tmp/a%23b/c%3Fd%25e.db?mode=ro'
    """
    return f"{path.absolute().as_uri()}?mode=ro"


def _check_schema(conn: sqlite3.Connection, path: Path, *, empty_ok: bool) -> None:
    """Refuse a database that is not a vQPU one: other tables only, or a ``batches`` table lacking columns.

    A database without any table (a new file) passes when ``empty_ok``.
    """
    try:
        tables = dict(
            conn.execute(
                "SELECT name, type FROM sqlite_master "
                "WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite!_%' ESCAPE '!'"
            )
        )
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode == sqlite3.SQLITE_NOTADB:
            raise ForeignDatabaseError(f"{path} is not an SQLite database") from None
        raise
    if not tables and empty_ok:
        return
    if tables.get("batches") != "table":
        held = f"other tables ({', '.join(sorted(tables))})" if tables else "no table"
        raise ForeignDatabaseError(f"{path} is not a vQPU database: it holds {held} and no 'batches' table")
    present = {row[1] for row in conn.execute("PRAGMA table_info(batches)")}
    if missing := sorted(_REQUIRED_COLUMNS - present):
        raise ForeignDatabaseError(
            f"{path} is not a vQPU database: its 'batches' table lacks the columns {', '.join(missing)}"
        )


class QueueFullError(RuntimeError):
    """The queue already holds ``max_queue`` unfinished batches.

    Examples
    --------
    >>> str(QueueFullError(3, 3))
    'queue is full: 3 batches waiting, limit 3; retry later'
    """

    def __init__(self, pending: int, max_queue: int) -> None:
        super().__init__(f"queue is full: {pending} batches waiting, limit {max_queue}; retry later")


class KeyReusedError(ValueError):
    """A job sent a known idempotency key with other circuits, shots or seed than its batch.

    Parameters
    ----------
    job, key : str
        The job and the key it reused.
    batch_id : int
        The batch accepted under the key.
    differ : list of str
        What differs: ``"circuits"``, ``"shots"`` or ``"seed"``.

    Examples
    --------
    >>> error = KeyReusedError("job-a", "k1", 4, ["circuits"])
    >>> error.batch_id, str(error)
    (4, "key 'k1' of job 'job-a' was used for batch 4 with other circuits; send a new key for a new batch")
    """

    def __init__(self, job: str, key: str, batch_id: int, differ: list[str]) -> None:
        what = " and ".join(differ) if len(differ) < 3 else "circuits, shots and seed"
        super().__init__(
            f"key {key!r} of job {job!r} was used for batch {batch_id} with other {what}; "
            "send a new key for a new batch"
        )
        self.job, self.key, self.batch_id, self.differ = job, key, batch_id, differ


class ForeignDatabaseError(BackendError, ValueError):
    """A database file is not a vQPU accounting database (another application's, or not SQLite).

    Examples
    --------
    >>> import sqlite3, tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> other = Path(folder.name) / "shop.db"
    >>> with sqlite3.connect(other) as conn:
    ...     _ = conn.execute("CREATE TABLE invoices (id INTEGER)")
    >>> conn.close()
    >>> try:
    ...     Store(other)
    ... except ForeignDatabaseError as error:
    ...     print(str(error).removeprefix(str(other)))
     is not a vQPU database: it holds other tables (invoices) and no 'batches' table
    >>> folder.cleanup()
    """


class DatabaseLockError(BackendError, ValueError):
    """The writer lock of a database, ``<db>.lock``, cannot be taken.

    Raised as such when the lock file cannot be created (a missing folder, no
    permission), and as :class:`DatabaseInUseError` when another store holds it.

    Parameters
    ----------
    message : str
        What went wrong, starting with the database path.
    path : str
        The database file.
    lock_path : str
        Its lock file, ``<path>.lock``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> db = Path(folder.name) / "missing" / "vqpu.db"
    >>> try:
    ...     Store(db)
    ... except DatabaseLockError as error:
    ...     print(str(error).removeprefix(str(db)))  # doctest: +ELLIPSIS
    : cannot create the lock file ...: No such file or directory
    >>> folder.cleanup()
    """

    def __init__(self, message: str, path: str, lock_path: str) -> None:
        super().__init__(message)
        self.path, self.lock_path = path, lock_path


class DatabaseInUseError(DatabaseLockError):
    """Another store - in practice a live vQPU server - writes to the database: it holds ``<db>.lock``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> db = Path(folder.name) / "vqpu.db"
    >>> first = Store(db)
    >>> try:
    ...     Store(db)
    ... except DatabaseInUseError as error:
    ...     print(str(error).removeprefix(str(db)).replace(str(db), "DB"))
    : another server uses this database (its lock file DB.lock is held)
    >>> first.close()
    >>> Store(db).close()  # free again once the first store is closed
    >>> folder.cleanup()
    """


def read_batches(path: str | Path) -> list[Batch]:
    """Read every batch of a database file (read-only), in arrival order.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    ForeignDatabaseError
        If ``path`` is not SQLite, or holds no vQPU ``batches`` table.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> store = Store(Path(folder.name) / "vqpu.db")
    >>> _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=1, qubits=1,
    ...                  shots=5, seed=None, submitted=1.0)
    >>> store.close()
    >>> [(b.id, b.job, b.user, b.status) for b in read_batches(Path(folder.name) / "vqpu.db")]
    [(1, 'j', 'u', 'queued')]
    >>> folder.cleanup()
    >>> read_batches(Path(folder.name) / "vqpu.db")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: no accounting database at ...
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no accounting database at {path}")
    conn = sqlite3.connect(_read_only_uri(path), uri=True)
    try:
        _check_schema(conn, path, empty_ok=False)
        present = {row[1] for row in conn.execute("PRAGMA table_info(batches)")}
        columns = _COLUMNS.replace("user", "user" if "user" in present else "job")
        if "transpile_seconds" not in present:  # a database of an earlier version
            columns = columns.replace("transpile_seconds", "NULL")
        return [Batch.from_row(r) for r in conn.execute(f"SELECT {columns} FROM batches ORDER BY id")]
    finally:
        conn.close()
