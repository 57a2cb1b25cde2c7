"""The SQLite store: life cycle of a batch, idempotent acceptance, writes that survive errors."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import threading

import pytest
from vqpu_helpers import subprocess_env

from backends.errors import BackendError
from backends.vqpu.server.store import (
    DatabaseInUseError,
    DatabaseLockError,
    ForeignDatabaseError,
    QueueFullError,
    Store,
    read_batches,
)


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    yield store
    store.close()


def accept(store, key, job="j", *, submitted=1.0, max_queue=None, payload=b"qpy"):
    return store.accept(
        job=job,
        user="u",
        key=key,
        payload=payload,
        circuits=2,
        qubits=3,
        shots=10,
        seed=5,
        submitted=submitted,
        max_queue=max_queue,
    )


def test_accept_is_idempotent_per_job_and_key(store):
    batch, created = accept(store, "k")
    same, again = accept(store, "k", submitted=2.0)
    other_job, other_created = accept(store, "k", job="other")

    assert created and not again and other_created
    assert same == batch and other_job.id == batch.id + 1
    assert (batch.job, batch.key, batch.circuits, batch.qubits, batch.shots, batch.seed) == (
        "j",
        "k",
        2,
        3,
        10,
        5,
    )
    assert (batch.status, batch.submitted, batch.started, batch.runs, batch.fetched) == (
        "queued",
        1.0,
        None,
        0,
        0,
    )


def test_queue_limit_refuses_new_keys_but_answers_known_ones(store):
    first, _ = accept(store, "a", max_queue=2)
    accept(store, "b", max_queue=2)
    with pytest.raises(QueueFullError) as info:
        accept(store, "c", max_queue=2)
    assert str(info.value) == "queue is full: 2 batches waiting, limit 2; retry later"
    assert accept(store, "a", max_queue=2) == (first, False)

    store.start(first.id, 3.0)
    store.finish(first.id, ended=4.0, quantum_seconds=1.0, counts=[{"0": 10}])
    assert accept(store, "c", max_queue=2)[1]  # a finished batch makes room


def test_life_cycle_of_a_batch(store):
    batch, _ = accept(store, "k", payload=b"the circuits")
    assert [q.id for q in store.queued()] == [batch.id]

    assert store.start(batch.id, 3.0) == b"the circuits"
    running = store.get(batch.id)
    assert (running.status, running.started, running.runs, running.queue_seconds) == ("running", 3.0, 1, 2.0)
    assert store.queued() == []

    store.finish(batch.id, ended=4.5, quantum_seconds=1.5, counts=[{"00": 6, "11": 4}])
    store.mark_fetched(batch.id).result(timeout=30)
    done = store.get(batch.id)
    assert (done.status, done.ended, done.quantum_seconds, done.error, done.fetched) == (
        "done",
        4.5,
        1.5,
        None,
        1,
    )
    assert done.counts == [{"00": 6, "11": 4}]
    assert done.to_json() == {
        "id": batch.id,
        "key": "k",
        "status": "done",
        "submitted": 1.0,
        "started": 3.0,
        "ended": 4.5,
        "quantum_seconds": 1.5,
        "queue_seconds": 2.0,
        "circuits": 2,
        "shots": 10,
        "counts": [{"00": 6, "11": 4}],
        "error": None,
    }


def test_a_failed_execution_keeps_its_reason(store):
    batch, _ = accept(store, "k")
    store.start(batch.id, 2.0)
    store.finish(batch.id, ended=2.5, quantum_seconds=0.5, error="RuntimeError: boom")
    failed = store.get(batch.id)
    assert (failed.status, failed.counts, failed.error) == ("failed", None, "RuntimeError: boom")


def test_interrupted_batches_are_requeued_in_arrival_order(store):
    ids = [accept(store, key)[0].id for key in "abc"]
    store.start(ids[0], 2.0)
    store.start(ids[1], 2.0)  # as if the server died with two marked running

    assert store.requeue_interrupted() == 2
    assert [b.status for b in store.batches()] == ["queued"] * 3
    assert store.queued()[0].id == ids[0]
    assert store.requeue_interrupted() == 0


def test_batches_leave_out_counts_unless_asked(store):
    batch, _ = accept(store, "k")
    store.start(batch.id, 2.0)
    store.finish(batch.id, ended=3.0, quantum_seconds=1.0, counts=[{"1": 10}])
    assert store.batches()[0].counts is None
    assert store.batches(with_counts=True)[0].counts == [{"1": 10}]
    assert store.get(batch.id + 1) is None


def test_the_store_survives_a_failed_write(store):
    with pytest.raises(sqlite3.OperationalError):
        store.write(lambda conn: conn.execute("INSERT INTO nowhere VALUES (1)"))
    first, _ = accept(store, "x")
    with pytest.raises(sqlite3.IntegrityError):  # the schema refuses unknown states ...
        store.write(lambda conn: conn.execute("UPDATE batches SET status = 'lost'"))
    assert [b.status for b in store.batches()] == ["queued"]
    batch, created = accept(store, "k")  # ... and the store goes on
    assert created and batch.id == first.id + 1 and store.queued()[0].id == first.id


def test_a_failed_write_is_rolled_back(store):
    def half_then_fail(conn):
        conn.execute(
            "INSERT INTO batches (job, key, payload, circuits, qubits, shots, submitted) "
            "VALUES ('j', 'half', x'00', 1, 1, 1, 0)"
        )
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError, match="changed my mind"):
        store.write(half_then_fail)
    assert store.batches() == []


def test_writes_from_many_threads_are_serialised(store):
    threads = [threading.Thread(target=accept, args=(store, f"k{i}")) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(b.key for b in store.batches()) == sorted(f"k{i}" for i in range(20))
    assert [b.id for b in store.batches()] == list(range(1, 21))


def _hold_the_writer(store: Store) -> threading.Event:
    """Keep the writer thread busy until the returned event is set (once it is busy)."""
    busy, release = threading.Event(), threading.Event()

    def hold(conn):
        busy.set()
        release.wait(30)

    store.write_soon(hold)
    assert busy.wait(30)
    return release


def test_write_soon_does_not_wait_and_writes_in_order(store):
    batch, _ = accept(store, "k")
    release = _hold_the_writer(store)
    fetched = [store.mark_fetched(batch.id) for _ in range(3)]  # returns while the writer is held
    assert not any(future.done() for future in fetched) and store.get(batch.id).fetched == 0
    release.set()
    last = store.write_soon(lambda conn: conn.execute("SELECT fetched FROM batches").fetchone())
    assert last.result(timeout=30) == (3,)  # queued after the three, so it sees them


def test_a_write_cancelled_while_queued_is_left_out(store):
    batch, _ = accept(store, "k")
    release = _hold_the_writer(store)
    cancelled, kept = store.mark_fetched(batch.id), store.mark_fetched(batch.id)
    assert cancelled.cancel()
    release.set()
    kept.result(timeout=30)
    assert store.get(batch.id).fetched == 1
    assert accept(store, "next")[1]  # the writer goes on


def test_a_write_after_close_is_refused(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    store.close()
    with pytest.raises(sqlite3.ProgrammingError) as info:
        accept(store, "k")
    assert str(info.value) == f"the store {tmp_path / 's.sqlite'} is closed"


def test_close_is_safe_twice(tmp_path):
    store = Store(tmp_path / "s.sqlite")
    accept(store, "k")
    store.close()
    store.close()
    assert [b.key for b in read_batches(tmp_path / "s.sqlite")] == ["k"]


# -- one writer per database: the lock on <db>.lock ----------------------------------------------------
def in_use(db) -> str:
    return f"{db}: another server uses this database (its lock file {db}.lock is held)"


@pytest.mark.timeout(60)
def test_a_second_store_on_the_same_database_is_refused(tmp_path):
    db = tmp_path / "s.sqlite"
    first = Store(db)
    try:
        accept(first, "k1")
        with pytest.raises(DatabaseInUseError) as info:
            Store(db)
        assert str(info.value) == in_use(db)
        assert (info.value.path, info.value.lock_path) == (str(db), f"{db}.lock")
        assert isinstance(info.value, DatabaseLockError | BackendError | ValueError)
        accept(first, "k2")  # the first store goes on writing
        assert [b.key for b in read_batches(db)] == ["k1", "k2"]  # readers take no lock
    finally:
        first.close()
    again = Store(db)  # closing released the lock
    try:
        assert [b.key for b in again.batches()] == ["k1", "k2"]
    finally:
        again.close()


@pytest.mark.timeout(120)
def test_a_store_of_another_process_holds_the_lock(tmp_path):
    db = tmp_path / "s.sqlite"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from backends.vqpu.server.store import Store; "
            f"store = Store({str(db)!r}); print('ready', flush=True); sys.stdin.read(); store.close()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    try:
        assert holder.stdout.readline() == "ready\n"
        with pytest.raises(DatabaseInUseError, match="another server uses this database"):
            Store(db)
    finally:
        holder.communicate(timeout=60)  # closes its stdin: the holder closes its store and exits
    assert holder.returncode == 0
    Store(db).close()


@pytest.mark.timeout(60)
def test_a_store_whose_lock_file_cannot_be_created(tmp_path):
    db = tmp_path / "missing" / "s.sqlite"
    with pytest.raises(DatabaseLockError) as info:
        Store(db)
    assert type(info.value) is DatabaseLockError  # not "in use"
    assert str(info.value) == f"{db}: cannot create the lock file {db}.lock: No such file or directory"


@pytest.mark.timeout(60)
def test_a_directory_is_refused_without_a_lock_file_beside_it(tmp_path):
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(IsADirectoryError):
        Store(tmp_path / "dir.db")
    assert [path.name for path in tmp_path.iterdir()] == ["dir.db"]


@pytest.mark.timeout(60)
def test_a_refused_foreign_database_releases_its_lock(tmp_path):
    db = tmp_path / "shop.db"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
        conn.commit()
    for _ in range(2):  # the second attempt is refused for the same reason, not as "in use"
        with pytest.raises(ForeignDatabaseError):
            Store(db)
