"""SQLite store of the vQPU server: accepted batches, their timestamps and results.

The datasette way: one writer thread owns the only write connection and runs each
queued write inside ``BEGIN IMMEDIATE`` (:class:`~backends.vqpu.server.writer.Writer`,
which a :class:`Store` is); reads use read-only per-thread connections; every value is
a bound parameter. A write that fails raises in its caller and the writer keeps running.

The schema, the columns added since the first version and the refusal of a foreign
database are those of :mod:`backends.vqpu.server.database`; the records read back are
:class:`~backends.vqpu.server.records.Batch` and
:class:`~backends.vqpu.server.records.Queued`.

One writer per database: a :class:`Store` holds an exclusive lock on ``<db>.lock``
(created if missing, never removed) from before it opens the database until it is
closed, so a second store on the same file - another server, or a script opening one
beside a live server - is refused with :class:`DatabaseInUseError` before it reads or
writes anything (it would otherwise re-queue, and run again, the batch the first one
is running). The operating system releases the lock when the process ends, however it
ends. Readers (:func:`read_batches`, ``python -m backends.vqpu report``) take no lock.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from backends.vqpu.server.database import (
    COLUMNS,
    ForeignDatabaseError,
    prepare_database,
    read_batches,
    read_only_uri,
)
from backends.vqpu.server.records import Batch, Queued
from backends.vqpu.server.writer import DatabaseInUseError, DatabaseLockError, Writer

__all__ = [
    "Batch",
    "DatabaseInUseError",
    "DatabaseLockError",
    "ForeignDatabaseError",
    "KeyReusedError",
    "QueueFullError",
    "JobBusyError",
    "Queued",
    "Store",
    "read_batches",
]


class Store(Writer):
    """SQLite store with one writer thread and read-only per-thread readers.

    The store is the only writer of its database: it holds the lock ``<path>.lock``
    from before it opens the database until :meth:`close` (see the module's notes).
    Its writes run on the writer thread it inherits,
    :meth:`~backends.vqpu.server.writer.Writer.write` and
    :meth:`~backends.vqpu.server.writer.Writer.write_soon`.

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
        self._read_only = read_only_uri(Path(path))
        self._local = threading.local()
        super().__init__(path, setup=functools.partial(prepare_database, path=Path(path)))

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
        rows = self.query(f"SELECT {COLUMNS} FROM batches WHERE id = ?", (batch_id,))
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
        max_job_pending: int | None = None,
        account: str = "",
    ) -> tuple[Batch, bool]:
        """Insert a batch, or return the one already accepted under ``(job, key)``.

        Parameters
        ----------
        job, user, key : str
            The job, the user billed for it and the batch's idempotency key.
        payload : bytes
            The batch's circuits (base64 QPY).
        circuits, qubits, shots : int
            Number of circuits, widest circuit, shots per circuit.
        seed : int or None
            Simulator seed.
        submitted : float
            Acceptance time, epoch seconds.
        max_queue : int, optional
            Refuse a new batch (raise :class:`QueueFullError`) when this many are
            queued or running; a known key is always answered.
        max_job_pending : int, optional
            Refuse a new batch of ``job`` (raise :class:`JobBusyError`) when this many of
            its own are queued or running.
        account : str, optional
            The Slurm account billed for the job (empty without Slurm).

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
        JobBusyError
            If the batch is new and ``max_job_pending`` of the job's are queued or running.
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
            if max_job_pending is not None:
                (own,) = conn.execute(
                    "SELECT count(*) FROM batches WHERE job = ? AND status IN ('queued', 'running')", (job,)
                ).fetchone()
                if own >= max_job_pending:
                    raise JobBusyError(job, own, max_job_pending)
            conn.execute(
                "INSERT INTO batches (job, user, key, payload, circuits, qubits, shots, seed, submitted, "
                "account) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job, user, key, payload, circuits, qubits, shots, seed, submitted, account),
            )
            row = conn.execute(
                f"SELECT {COLUMNS} FROM batches WHERE job = ? AND key = ?", (job, key)
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
        """The queued batches in arrival order (id order), with their accounts.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="u", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=3, shots=100, seed=None, submitted=10.0)
        >>> store.queued()
        [Queued(id=1, job='j', submitted=10.0, account='')]
        >>> store.close(); folder.cleanup()
        """
        rows = self.query(
            "SELECT id, job, submitted, account FROM batches WHERE status = 'queued' ORDER BY id"
        )
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
        columns = COLUMNS if with_counts else COLUMNS.replace("result", "NULL")
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


def _known(
    conn: sqlite3.Connection, *, job: str, key: str, payload: bytes, shots: int, seed: int | None
) -> Batch | None:
    """The batch of ``(job, key)``, or None; KeyReusedError if it was sent with another body.

    SQLite compares the payloads, so the stored one is not copied out.
    """
    row = conn.execute(
        f"SELECT {COLUMNS}, payload = ?, shots = ?, seed IS ? FROM batches WHERE job = ? AND key = ?",
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


class QueueFullError(RuntimeError):
    """The queue already holds ``max_queue`` unfinished batches.

    Examples
    --------
    >>> str(QueueFullError(3, 3))
    'queue is full: 3 batches waiting, limit 3; retry later'
    """

    def __init__(self, pending: int, max_queue: int) -> None:
        super().__init__(f"queue is full: {pending} batches waiting, limit {max_queue}; retry later")


class JobBusyError(RuntimeError):
    """A job has as many batches queued or running as its shares allow (answered 429 ``job_busy``).

    Examples
    --------
    >>> print(JobBusyError("41", 8, 8))
    job '41' has 8 batches queued or running, its limit is 8; retry when one has finished
    """

    def __init__(self, job: str, pending: int, limit: int) -> None:
        super().__init__(
            f"job {job!r} has {pending} batches queued or running, its limit is {limit}; "
            "retry when one has finished"
        )


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
