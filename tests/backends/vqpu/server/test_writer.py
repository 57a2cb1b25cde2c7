"""The writer thread of a database: a transaction per write, failed ones rolled back, one writer per file."""

from __future__ import annotations

import sqlite3

import pytest

from backends.errors import BackendError
from backends.vqpu.server.writer import DatabaseInUseError, DatabaseLockError, Writer, writer_lock


def make_table(conn):
    conn.execute("CREATE TABLE IF NOT EXISTS t (x INTEGER NOT NULL)")


@pytest.fixture
def writer(tmp_path):
    writer = Writer(tmp_path / "w.db", setup=make_table)
    yield writer
    writer.close()


def rows(writer):
    return writer.write(lambda conn: conn.execute("SELECT x FROM t ORDER BY x").fetchall())


def test_a_failed_write_is_rolled_back_and_the_writer_goes_on(writer):
    def half_then_fail(conn):
        conn.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError, match="changed my mind"):
        writer.write(half_then_fail)
    with pytest.raises(sqlite3.IntegrityError):
        writer.write(lambda conn: conn.execute("INSERT INTO t VALUES (NULL)"))
    writer.write(lambda conn: conn.execute("INSERT INTO t VALUES (2)"))
    assert rows(writer) == [(2,)]


def test_writes_queued_without_waiting_run_in_order(writer):
    futures = [
        writer.write_soon(lambda conn, i=i: conn.execute("INSERT INTO t VALUES (?)", (i,))) for i in range(5)
    ]
    last = writer.write_soon(lambda conn: conn.execute("SELECT count(*) FROM t").fetchone())
    assert last.result(timeout=30) == (5,)
    assert all(future.done() for future in futures)


def test_a_closed_writer_refuses_writes_and_releases_its_lock(tmp_path):
    writer = Writer(tmp_path / "w.db")
    writer.close()
    writer.close()
    with pytest.raises(sqlite3.ProgrammingError) as info:
        writer.write(lambda conn: None)
    assert str(info.value) == f"the store {tmp_path / 'w.db'} is closed"
    Writer(tmp_path / "w.db").close()


def test_a_failing_setup_is_raised_and_releases_the_lock(tmp_path):
    def refuse(conn):
        raise ValueError("not mine")

    for _ in range(2):  # the second attempt fails the same way, not as "in use"
        with pytest.raises(ValueError, match="not mine"):
            Writer(tmp_path / "w.db", setup=refuse)


def test_one_writer_per_database(tmp_path):
    db = tmp_path / "w.db"
    first = Writer(db)
    try:
        with pytest.raises(DatabaseInUseError) as info:
            Writer(db)
        assert str(info.value) == f"{db}: another server uses this database (its lock file {db}.lock is held)"
        assert (info.value.path, info.value.lock_path) == (str(db), f"{db}.lock")
        assert isinstance(info.value, DatabaseLockError | BackendError | ValueError)
    finally:
        first.close()
    Writer(db).close()


def test_the_lock_of_a_missing_folder_or_a_directory(tmp_path):
    db = tmp_path / "missing" / "w.db"
    with pytest.raises(DatabaseLockError) as info:
        writer_lock(str(db))
    assert type(info.value) is DatabaseLockError
    assert str(info.value) == f"{db}: cannot create the lock file {db}.lock: No such file or directory"
    with pytest.raises(IsADirectoryError):
        writer_lock(str(tmp_path))
