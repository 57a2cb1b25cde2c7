"""The database file: schema checks, older versions brought up to date, read-only reading."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from backends.errors import BackendError
from backends.vqpu.server.database import (
    REQUIRED_COLUMNS,
    ForeignDatabaseError,
    add_missing_columns,
    check_schema,
    prepare_database,
    read_batches,
    read_only_uri,
)
from backends.vqpu.server.store import Store

OLD_SCHEMA = (
    "CREATE TABLE batches (id INTEGER PRIMARY KEY AUTOINCREMENT, job TEXT NOT NULL, key TEXT NOT NULL, "
    "payload BLOB NOT NULL, circuits INTEGER NOT NULL, qubits INTEGER NOT NULL, shots INTEGER NOT NULL, "
    "seed INTEGER, status TEXT NOT NULL DEFAULT 'queued', submitted REAL NOT NULL, started REAL, "
    "ended REAL, quantum_seconds REAL, runs INTEGER NOT NULL DEFAULT 0, result TEXT, error TEXT, "
    "fetched INTEGER NOT NULL DEFAULT 0, UNIQUE (job, key))"
)


def make_old(path):
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.executescript(OLD_SCHEMA)
        conn.execute(
            "INSERT INTO batches (job, key, payload, circuits, qubits, shots, submitted) "
            "VALUES ('old-job', 'k', x'00', 1, 2, 10, 1.0)"
        )
        conn.commit()


def test_read_batches_of_a_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        read_batches(tmp_path / "none.sqlite")
    assert str(info.value) == f"no accounting database at {tmp_path / 'none.sqlite'}"


def test_a_database_of_an_earlier_version_gets_the_new_columns(tmp_path):
    path = tmp_path / "old.sqlite"
    make_old(path)
    [old] = read_batches(path)  # read-only: the missing columns read as the job and NULL
    assert (old.job, old.user, old.transpile_seconds, old.account) == ("old-job", "old-job", None, "")
    store = Store(path)
    try:
        assert [(b.user, b.account) for b in store.batches()] == [("old-job", "")]
        assert store.queued()[0].account == ""
        assert store.status_counts() == {"queued": 1}
    finally:
        store.close()


def test_added_columns_are_added_once(tmp_path):
    make_old(tmp_path / "old.sqlite")
    with contextlib.closing(sqlite3.connect(tmp_path / "old.sqlite")) as conn:
        add_missing_columns(conn)
        add_missing_columns(conn)  # a second time: nothing left to add
        columns = [row[1] for row in conn.execute("PRAGMA table_info(batches)")]
        assert columns[-3:] == ["user", "transpile_seconds", "account"]
        assert conn.execute("SELECT user, transpile_seconds, account FROM batches").fetchall() == [
            ("old-job", None, "")
        ]


def test_the_schema_check_names_what_is_wrong(tmp_path):
    with contextlib.closing(sqlite3.connect(":memory:")) as conn:
        check_schema(conn, tmp_path / "new.db", empty_ok=True)
        with pytest.raises(ForeignDatabaseError) as info:
            check_schema(conn, tmp_path / "new.db", empty_ok=False)
        assert (
            str(info.value)
            == f"{tmp_path / 'new.db'} is not a vQPU database: it holds no table and no 'batches' table"
        )
        conn.execute("CREATE TABLE batches (id INTEGER, job TEXT)")
        with pytest.raises(ForeignDatabaseError) as info:
            check_schema(conn, tmp_path / "x.db", empty_ok=True)
        missing = ", ".join(sorted(REQUIRED_COLUMNS - {"id", "job"}))
        assert (
            str(info.value)
            == f"{tmp_path / 'x.db'} is not a vQPU database: its 'batches' table lacks the columns {missing}"
        )
    assert isinstance(info.value, BackendError | ValueError)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"not a database at all, " * 100)
    with contextlib.closing(sqlite3.connect(read_only_uri(path), uri=True)) as conn:
        with pytest.raises(ForeignDatabaseError, match="is not an SQLite database"):
            check_schema(conn, path, empty_ok=True)


def test_prepare_database_makes_a_new_file_a_vqpu_database_in_wal_mode(tmp_path):
    path = tmp_path / "vqpu.db"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        prepare_database(conn, path)
        prepare_database(conn, path)  # a vQPU database is opened again unchanged
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert read_batches(path) == []


def test_the_read_only_uri_does_not_write(tmp_path):
    path = tmp_path / "a#b?c%d.db"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
    with contextlib.closing(sqlite3.connect(read_only_uri(path), uri=True)) as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            conn.execute("INSERT INTO t VALUES (1)")
