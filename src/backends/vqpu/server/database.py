"""The vQPU database file: its schema, older versions brought up to date, foreign files refused.

Schema (one row per accepted batch)::

    batches(id, job, key, payload, circuits, qubits, shots, seed, status,
            submitted, started, ended, quantum_seconds, runs, result, error, fetched,
            user, transpile_seconds, account)

``status`` is ``queued``, ``running``, ``done`` or ``failed``; timestamps are epoch
seconds (``time.time()``); ``result`` is the JSON list of counts; ``runs`` counts how
often the batch was started (more than one only when the server died mid-execution);
``fetched`` counts how often its finished (done or failed) result was read by its job;
``user`` is who is billed for the job; ``quantum_seconds`` is device execution only,
``transpile_seconds`` the server's decoding and transpiling before it; ``account`` is
the Slurm account billed (empty without Slurm). Databases of earlier versions get the
last three columns added when opened for writing (:func:`prepare_database`; each job
its own user, no account), and read as if they had them (:func:`read_batches`). A
database holding other tables, or a ``batches`` table of another schema, is refused
with :class:`ForeignDatabaseError` before anything is written to it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from backends.errors import BackendError
from backends.vqpu.server.records import Batch

__all__ = [
    "ADDED_COLUMNS",
    "COLUMNS",
    "REQUIRED_COLUMNS",
    "SCHEMA",
    "ForeignDatabaseError",
    "add_missing_columns",
    "check_schema",
    "prepare_database",
    "read_batches",
    "read_only_uri",
]

SCHEMA = """
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
    account TEXT NOT NULL DEFAULT '',
    UNIQUE (job, key)
);
CREATE INDEX IF NOT EXISTS batches_status ON batches (status, id);
"""

#: Columns added since the first schema, with their definitions, for opening older databases.
ADDED_COLUMNS = {
    "user": "TEXT NOT NULL DEFAULT ''",
    "transpile_seconds": "REAL",
    "account": "TEXT NOT NULL DEFAULT ''",
}

#: The columns of a :class:`~backends.vqpu.server.records.Batch`, in the order of its fields.
COLUMNS = (
    "id, job, key, circuits, qubits, shots, seed, status, submitted, started, ended, "
    "quantum_seconds, runs, result, error, fetched, user, transpile_seconds, account"
)

#: Columns every vQPU ``batches`` table has (the first schema's); others are added when missing.
REQUIRED_COLUMNS = frozenset({"payload", *COLUMNS.replace(" ", "").split(",")} - set(ADDED_COLUMNS))


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
    ...     read_batches(other)
    ... except ForeignDatabaseError as error:
    ...     print(str(error).removeprefix(str(other)))
     is not a vQPU database: it holds other tables (invoices) and no 'batches' table
    >>> folder.cleanup()
    """


def read_only_uri(path: Path) -> str:
    """The SQLite URI opening ``path`` read-only; ``#``, ``?`` and ``%`` in it are percent-encoded.

    Examples
    --------
    >>> read_only_uri(Path("/tmp/a#b/c?d%e.db"))
    'file:///tmp/a%23b/c%3Fd%25e.db?mode=ro'
    """
    return f"{path.absolute().as_uri()}?mode=ro"


def check_schema(conn: sqlite3.Connection, path: Path, *, empty_ok: bool) -> None:
    """Refuse a database that is not a vQPU one: other tables only, or a ``batches`` table lacking columns.

    Parameters
    ----------
    conn : sqlite3.Connection
        A connection to the database.
    path : Path
        Its file, named in the messages.
    empty_ok : bool
        Whether a database without any table (a new file) passes.

    Raises
    ------
    ForeignDatabaseError
        If the file is not SQLite, holds no ``batches`` table, or one lacking columns.

    Examples
    --------
    >>> conn = sqlite3.connect(":memory:")
    >>> check_schema(conn, Path("new.db"), empty_ok=True)  # no table yet
    >>> _ = conn.execute("CREATE TABLE batches (id INTEGER)")
    >>> try:
    ...     check_schema(conn, Path("old.db"), empty_ok=True)
    ... except ForeignDatabaseError as error:
    ...     print(str(error)[:70])
    old.db is not a vQPU database: its 'batches' table lacks the columns c
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
    if missing := sorted(REQUIRED_COLUMNS - present):
        raise ForeignDatabaseError(
            f"{path} is not a vQPU database: its 'batches' table lacks the columns {', '.join(missing)}"
        )


def add_missing_columns(conn: sqlite3.Connection) -> None:
    """Add the columns of :data:`ADDED_COLUMNS` that a database of an earlier version lacks.

    Examples
    --------
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE batches (id INTEGER, job TEXT)")
    >>> _ = conn.execute("INSERT INTO batches VALUES (1, 'old-job')")
    >>> add_missing_columns(conn)
    >>> conn.execute("SELECT user, transpile_seconds, account FROM batches").fetchall()
    [('old-job', None, '')]
    """
    present = {row[1] for row in conn.execute("PRAGMA table_info(batches)")}
    for name, definition in ADDED_COLUMNS.items():
        if name not in present:
            conn.execute(f"ALTER TABLE batches ADD COLUMN {name} {definition}")
    if "user" not in present:  # jobs of earlier versions are billed as their own users
        conn.execute("UPDATE batches SET user = job")


def prepare_database(conn: sqlite3.Connection, path: Path) -> None:
    """Make the database of the write connection ``conn`` a vQPU one of this version.

    A foreign database is refused before anything is written to it (before WAL mode
    changes the file); then the schema is created where missing and a database of an
    earlier version gets its missing columns.

    Raises
    ------
    ForeignDatabaseError
        If ``path`` is not a vQPU database (see :func:`check_schema`).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> conn = sqlite3.connect(Path(folder.name) / "vqpu.db", isolation_level=None)
    >>> prepare_database(conn, Path(folder.name) / "vqpu.db")
    >>> conn.execute("SELECT count(*) FROM batches").fetchone()
    (0,)
    >>> conn.close(); folder.cleanup()
    """
    check_schema(conn, path, empty_ok=True)  # before WAL mode changes the file
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript(SCHEMA)
    add_missing_columns(conn)


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
    >>> from backends.vqpu.server.store import Store
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
    conn = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        check_schema(conn, path, empty_ok=False)
        present = {row[1] for row in conn.execute("PRAGMA table_info(batches)")}
        columns = COLUMNS.replace("user", "user" if "user" in present else "job")
        if "transpile_seconds" not in present:  # a database of an earlier version
            columns = columns.replace("transpile_seconds", "NULL")
        if "account" not in present:  # no account recorded before this version
            columns = columns.replace("account", "''")
        return [Batch.from_row(r) for r in conn.execute(f"SELECT {columns} FROM batches ORDER BY id")]
    finally:
        conn.close()
