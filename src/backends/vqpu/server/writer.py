"""The one writer of a vQPU database: the thread owning the write connection, the lock keeping it alone.

The datasette way: one writer thread owns the only write connection and runs each
queued write inside ``BEGIN IMMEDIATE``. A write that fails raises in its caller and
the writer keeps running.

One writer per database: a :class:`Writer` holds an exclusive lock on ``<db>.lock``
(created if missing, never removed) from before it opens the database until it is
closed, so a second writer on the same file - another server, or a script opening a
store beside a live server - is refused with :class:`DatabaseInUseError` before it
reads or writes anything (it would otherwise re-queue, and run again, the batch the
first one is running). The operating system releases the lock when the process ends,
however it ends. Readers take no lock.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import sqlite3
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any, TypeVar

from backends.errors import BackendError

__all__ = ["DatabaseInUseError", "DatabaseLockError", "Writer", "writer_lock"]

T = TypeVar("T")

#: A queued write: the function to run on the write connection and the future of its result.
_Write = tuple[Callable[[sqlite3.Connection], T], Future[T]]


class Writer:
    """The writer thread of a database: each queued write runs in one ``BEGIN IMMEDIATE`` transaction.

    The writer is the only one of its database: it holds the lock ``<path>.lock``
    from before it opens the database until :meth:`close` (see the module's notes).

    Parameters
    ----------
    path : str or Path
        Database file; created when missing.
    setup : callable, optional
        ``setup(connection)`` runs on the write connection before any write (outside
        a transaction), e.g. to create the schema; what it raises is raised here.

    Raises
    ------
    DatabaseInUseError
        If another writer, in this process or another, holds the database's lock.
    DatabaseLockError
        If the lock file cannot be created (a missing folder, no permission).
    IsADirectoryError
        If ``path`` is a directory.
    Exception
        Whatever ``setup`` raised (the lock is released again).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> writer = Writer(Path(folder.name) / "t.db", setup=lambda conn: conn.execute("CREATE TABLE t (x)"))
    >>> writer.write(lambda conn: conn.execute("INSERT INTO t VALUES (1)").rowcount)
    1
    >>> try:
    ...     Writer(Path(folder.name) / "t.db")  # a second writer
    ... except DatabaseInUseError as error:
    ...     print(error.lock_path.endswith("t.db.lock"))
    True
    >>> writer.close(); folder.cleanup()
    """

    def __init__(self, path: str | Path, setup: Callable[[sqlite3.Connection], object] | None = None) -> None:
        self.path = Path(path)
        self._lock_file = writer_lock(os.fspath(path))
        self._writes: queue.Queue[_Write[Any] | None] = queue.Queue()
        self._closing = threading.Lock()
        self._closed = False
        ready: Future[None] = Future()
        self._writer = threading.Thread(
            target=self._write_loop, args=(ready, setup), name="vqpu-db-writer", daemon=True
        )
        self._writer.start()
        try:
            ready.result()
        except BaseException:
            self._lock_file.close()  # the writer has stopped: nothing was written
            raise

    def _write_loop(self, ready: Future[None], setup: Callable[[sqlite3.Connection], object] | None) -> None:
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            if setup is not None:
                setup(conn)
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
            If the writer is closed.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> writer = Writer(Path(folder.name) / "t.db")
        >>> writer.write(lambda conn: conn.execute("SELECT 1 + 1").fetchone())
        (2,)
        >>> writer.close(); folder.cleanup()
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
            If the writer is closed.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> writer = Writer(Path(folder.name) / "t.db")
        >>> future = writer.write_soon(lambda conn: conn.execute("SELECT 1 + 1").fetchone())
        >>> future.result(timeout=30)
        (2,)
        >>> writer.close(); folder.cleanup()
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
        >>> folder = tempfile.TemporaryDirectory()
        >>> writer = Writer(Path(folder.name) / "t.db")
        >>> writer.close()
        >>> writer.close(); folder.cleanup()  # a second close is harmless
        """
        with self._closing:
            if not self._closed:
                self._closed = True
                self._writes.put(None)
        self._writer.join()
        self._lock_file.close()  # closing the lock file releases the lock


def writer_lock(db: str) -> IO[bytes]:
    """The open file ``<db>.lock``, locked exclusively; closing it releases the lock.

    Raises
    ------
    IsADirectoryError
        If ``db`` is a directory (no lock file is made beside it).
    DatabaseLockError
        If the lock file cannot be created or opened.
    DatabaseInUseError
        If another open file (another writer, in any process) holds the lock.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> lock = writer_lock(os.path.join(folder.name, "vqpu.db"))
    >>> try:
    ...     writer_lock(os.path.join(folder.name, "vqpu.db"))
    ... except DatabaseInUseError:
    ...     print("in use")
    in use
    >>> lock.close()
    >>> writer_lock(os.path.join(folder.name, "vqpu.db")).close()  # free again
    >>> folder.cleanup()
    """
    if os.path.isdir(db):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), db)
    lock_path = f"{db}.lock"
    try:
        lock_file = open(lock_path, "a+b")  # noqa: SIM115 - held open until the writer closes
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

    ``flock`` locks belong to the open file, so a second writer of the same process is
    refused as well as one of another process.
    """
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


class DatabaseLockError(BackendError, ValueError):
    """The writer lock of a database, ``<db>.lock``, cannot be taken.

    Raised as such when the lock file cannot be created (a missing folder, no
    permission), and as :class:`DatabaseInUseError` when another writer holds it.

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
    >>> folder = tempfile.TemporaryDirectory()
    >>> db = Path(folder.name) / "missing" / "vqpu.db"
    >>> try:
    ...     Writer(db)
    ... except DatabaseLockError as error:
    ...     print(str(error).removeprefix(str(db)))  # doctest: +ELLIPSIS
    : cannot create the lock file ...: No such file or directory
    >>> folder.cleanup()
    """

    def __init__(self, message: str, path: str, lock_path: str) -> None:
        super().__init__(message)
        self.path, self.lock_path = path, lock_path


class DatabaseInUseError(DatabaseLockError):
    """Another writer - in practice a live vQPU server - writes to the database: it holds ``<db>.lock``.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> db = Path(folder.name) / "vqpu.db"
    >>> first = Writer(db)
    >>> try:
    ...     Writer(db)
    ... except DatabaseInUseError as error:
    ...     print(str(error).removeprefix(str(db)).replace(str(db), "DB"))
    : another server uses this database (its lock file DB.lock is held)
    >>> first.close()
    >>> Writer(db).close()  # free again once the first writer is closed
    >>> folder.cleanup()
    """
