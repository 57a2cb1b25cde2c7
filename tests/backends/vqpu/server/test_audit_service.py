"""Defects of the vQPU audit fixed in the service, the store and the decoder (REPORT.md 1, 4-7, 9, 11)."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest
from qiskit import QuantumCircuit
from vqpu_helpers import free_port, ghz, serve, subprocess_env

from backends.vqpu.server.accounting import Quotas
from backends.vqpu.server.limits import Limits, result_bytes_bound
from backends.vqpu.server.service import APIError, BatchIn, VQPUService
from backends.vqpu.server.store import ForeignDatabaseError, KeyReusedError, Store, read_batches
from backends.vqpu.server.tokens import Caller
from backends.vqpu.wire import encode_circuits

ALICE = Caller("job-a", "alice")


def wide(clbits: int = 1024) -> QuantumCircuit:
    """One qubit measured into the first of ``clbits`` classical bits: 2 outcomes, keys of ``clbits`` bits."""
    circuit = QuantumCircuit(1, clbits)
    circuit.h(0)
    circuit.measure(0, 0)
    return circuit


def body(circuits, key="k", shots=10, seed=None):
    return BatchIn(key=key, circuits=encode_circuits(circuits), shots=shots, seed=seed)


def refusal(call, *args):
    with pytest.raises(APIError) as info:
        call(*args)
    return info.value.status, info.value.code, info.value.detail


@pytest.fixture
def service(physical, tmp_path):
    service = VQPUService(physical, tmp_path / "db.sqlite")
    yield service
    service.stop()


def wait_until_finished(service, batch_id, timeout=30.0):
    deadline = time.monotonic() + timeout
    while service.store.get(batch_id).status not in ("done", "failed"):
        assert time.monotonic() < deadline, f"batch {batch_id} not finished in {timeout} s"
        time.sleep(0.02)


# -- 1. a few KB of circuits could ask for GBs of counts --------------------------------------------
def test_counts_that_could_exceed_the_result_limit_are_refused_at_submit(service):
    # the audit's request: 22 KB, within every other limit, 200 MB of counts
    detail = (
        "the counts of 2 circuits of 1024 clbits at shots=100000 may take 206800008 bytes, "
        f"the limit is {64 * 2**20}; send fewer circuits or shots, or measure fewer clbits"
    )
    assert refusal(service.submit, ALICE, body([wide(), wide()], shots=100_000)) == (
        422,
        "result_too_large",
        detail,
    )
    assert service.store.batches() == []
    # the QPY header already declares enough: refused before the decoder process is started
    assert service.decoder._process is None
    assert service.health()["limits"]["max_result_bytes"] == 64 * 2**20


def test_the_result_bound_uses_the_widest_circuit_of_the_batch(physical, tmp_path):
    limit = result_bytes_bound(2, 8, 1000)  # two circuits of 8 clbits at 1000 shots fit exactly
    service = VQPUService(physical, tmp_path / "db.sqlite", limits=Limits(max_result_bytes=limit))
    try:
        assert service.submit(ALICE, body([wide(8), wide(8)], key="fits", shots=1000))[1]
        # the first circuit passes the header's check; the decoder finds the second one wider
        status, code, detail = refusal(
            service.submit, ALICE, body([wide(8), wide(9)], key="wider", shots=1000)
        )
        assert (status, code) == (422, "result_too_large")
        assert detail.startswith("the counts of 2 circuits of 9 clbits at shots=1000 may take ")
        assert [batch.key for batch in service.store.batches()] == ["fits"]
    finally:
        service.stop()


def test_result_too_large_over_http(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        payload = {"key": "k", "circuits": encode_circuits([wide(), wide()]), "shots": 100_000}
        answer = httpx.post(f"{url}/batches", json=payload, timeout=30)
        assert answer.status_code == 422 and answer.json()["error"] == "result_too_large"
        assert answer.json()["detail"].startswith("the counts of 2 circuits of 1024 clbits at shots=100000 ")


# -- 4. a foreign 404 must not take the owner's wake-up ---------------------------------------------
def test_a_failed_lookup_does_not_remove_the_owners_wake_up(physical, tmp_path):
    service = VQPUService(physical, tmp_path / "db.sqlite", latency=1.0)

    async def poll_while_another_job_looks():
        service.start(asyncio.get_running_loop())
        view, _ = service.submit(ALICE, body([ghz(2)]))
        loop = asyncio.get_running_loop()
        tic = loop.time()
        owner = asyncio.create_task(service.result("job-a", view["id"], 10.0))
        while view["id"] not in service._waiters:  # until the owner waits on its event
            assert loop.time() - tic < 5, "the owner's poll did not start waiting"
            await asyncio.sleep(0.005)
        with pytest.raises(APIError) as info:
            await service.result("job-c", view["id"], 0.0)
        kept = view["id"] in service._waiters
        with pytest.raises(APIError):
            await service.result("job-a", view["id"] + 1, 5.0)  # no such batch: no event made
        made = view["id"] + 1 in service._waiters
        done = await owner
        return info.value.status, kept, made, done, loop.time() - tic

    try:
        status, kept, made, done, waited = asyncio.run(poll_while_another_job_looks())
    finally:
        service.stop()
    assert (status, kept, made, done["status"]) == (404, True, False, "done")
    assert waited < 5  # woken when the batch finished (about 1 s), not at the end of the poll (10 s)
    assert service._waiters == {}


# -- 5. a known key is answered before the quota ----------------------------------------------------
def test_a_known_key_is_answered_after_the_quota_is_used(physical, tmp_path):
    service = VQPUService(physical, tmp_path / "db.sqlite", latency=0.1, quotas=Quotas(job_seconds=0.05))
    try:
        service.start()
        first, created = service.submit(ALICE, body([ghz(2)], key="first", seed=3))
        assert created
        wait_until_finished(service, first["id"])
        status, code, _ = refusal(service.submit, ALICE, body([ghz(2)], key="second", seed=3))
        assert (status, code) == (403, "quota_exceeded")
        again, created_again = service.submit(ALICE, body([ghz(2)], key="first", seed=3))
        assert not created_again
        assert (again["id"], again["status"], again["counts"]) == (
            first["id"],
            "done",
            service.store.get(first["id"]).counts,
        )
        assert service.quota_refusals == 1
    finally:
        service.stop()


def test_a_known_key_is_answered_even_beyond_todays_limits(physical, tmp_path):
    db = tmp_path / "db.sqlite"
    service = VQPUService(physical, db)
    first, _ = service.submit(ALICE, body([ghz(2)], shots=50))
    service.stop()
    service = VQPUService(physical, db, limits=Limits(max_shots=10))  # restarted with a lower limit
    try:
        assert service.submit(ALICE, body([ghz(2)], shots=50)) == (first, False)
        assert refusal(service.submit, ALICE, body([ghz(2)], key="new", shots=50))[1] == "too_many_shots"
    finally:
        service.stop()


# -- 6. a known key with another body ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("changed", "what"),
    [
        ({"circuits": [ghz(3), ghz(3)]}, "circuits"),
        ({"shots": 5000}, "shots"),
        ({"seed": None}, "seed"),
        ({"seed": 8}, "seed"),
        ({"circuits": [ghz(3)], "shots": 5000, "seed": 8}, "circuits, shots and seed"),
    ],
)
def test_a_known_key_with_another_body_is_a_conflict(service, changed, what):
    first, _ = service.submit(ALICE, body([ghz(2)], key="k1", shots=10, seed=7))
    sent = {"circuits": [ghz(2)], "key": "k1", "shots": 10, "seed": 7, **changed}
    assert refusal(service.submit, ALICE, body(**sent)) == (
        409,
        "key_reused",
        f"key 'k1' of job 'job-a' was used for batch {first['id']} with other {what}; "
        "send a new key for a new batch",
    )
    assert service.submit(ALICE, body([ghz(2)], key="k1", shots=10, seed=7)) == (first, False)
    assert service.submit(Caller("job-b", "bob"), body(**sent))[1]  # keys are per job
    assert len(service.store.batches()) == 2


def test_the_writer_refuses_a_reused_key_sent_concurrently(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    try:
        sent = {"job": "j", "user": "u", "key": "k", "circuits": 1, "qubits": 1, "submitted": 1.0}
        store.accept(**sent, payload=b"a", shots=10, seed=None)
        with pytest.raises(
            KeyReusedError, match="^key 'k' of job 'j' was used for batch 1 with other circuits;"
        ):
            store.accept(**sent, payload=b"b", shots=10, seed=None)
        assert len(store.batches()) == 1
    finally:
        store.close()


def test_key_reused_over_http(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        sent = {"key": "k", "circuits": encode_circuits([ghz(1)]), "shots": 10}
        assert httpx.post(f"{url}/batches", json=sent, timeout=30).status_code == 202
        assert httpx.post(f"{url}/batches", json=sent, timeout=30).status_code == 200
        answer = httpx.post(f"{url}/batches", json={**sent, "shots": 5000}, timeout=30)
        assert (answer.status_code, answer.json()["error"]) == (409, "key_reused")


# -- 7. paths with URI characters -------------------------------------------------------------------
@pytest.mark.parametrize("folder", ["s5#x", "what?mode=rw", "per%41cent", "spa ce"])
def test_database_paths_with_uri_characters(physical, tmp_path, folder):
    (tmp_path / folder).mkdir()
    db = tmp_path / folder / "vq.db"
    service = VQPUService(physical, db)
    try:
        view, _ = service.submit(ALICE, body([ghz(2)]))
        assert service.store.get(view["id"]).key == "k"  # the reader opens the same file
        assert service.status()["queue_length"] == 1
    finally:
        service.stop()
    assert [batch.key for batch in read_batches(db)] == ["k"]
    assert sorted(path.name for path in tmp_path.iterdir()) == [folder]  # no stray file


def test_the_read_only_connection_cannot_write(tmp_path):
    (tmp_path / "a#b").mkdir()
    store = Store(tmp_path / "a#b" / "vq.db")
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._reader().execute("DELETE FROM batches")
    finally:
        store.close()


# -- 9. another application's database --------------------------------------------------------------
def make_foreign(path, schema="CREATE TABLE invoices (id INTEGER, amount REAL)"):
    conn = sqlite3.connect(path)
    conn.execute(schema)
    conn.commit()
    conn.close()
    return path


def journal_and_tables(path):
    conn = sqlite3.connect(path)
    try:
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        return mode, sorted(row[0] for row in conn.execute("SELECT name FROM sqlite_master"))
    finally:
        conn.close()


def test_a_foreign_database_is_refused_and_left_unchanged(physical, tmp_path):
    db = make_foreign(tmp_path / "shop.db")
    with pytest.raises(ForeignDatabaseError) as info:
        VQPUService(physical, db)
    assert str(info.value) == (
        f"{db} is not a vQPU database: it holds other tables (invoices) and no 'batches' table"
    )
    assert isinstance(info.value, ValueError)
    assert journal_and_tables(db) == ("delete", ["invoices"])
    with pytest.raises(ForeignDatabaseError, match="no 'batches' table$"):
        read_batches(db)


def test_a_batches_table_of_another_schema_is_refused(tmp_path):
    db = make_foreign(tmp_path / "other.db", "CREATE TABLE batches (id INTEGER, name TEXT)")
    with pytest.raises(ForeignDatabaseError) as info:
        Store(db)
    assert str(info.value) == (
        f"{db} is not a vQPU database: its 'batches' table lacks the columns circuits, ended, error, "
        "fetched, job, key, payload, quantum_seconds, qubits, result, runs, seed, shots, started, status, "
        "submitted"
    )
    assert journal_and_tables(db) == ("delete", ["batches"])


def test_new_empty_and_own_databases_are_opened(tmp_path):
    (tmp_path / "empty.db").touch()
    for db in (tmp_path / "new.db", tmp_path / "empty.db", tmp_path / "new.db"):
        Store(db).close()
    assert journal_and_tables(tmp_path / "new.db")[0] == "wal"
    assert read_batches(tmp_path / "new.db") == []


def test_a_file_that_is_not_sqlite_is_named(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database, " * 100)
    with pytest.raises(ForeignDatabaseError, match=f"^{text} is not an SQLite database$"):
        Store(text)


def test_serve_refuses_a_foreign_database_in_one_line(tmp_path):
    db = make_foreign(tmp_path / "shop.db")
    command = [
        sys.executable,
        "-m",
        "backends.vqpu",
        "serve",
        "--backend",
        "null",
        "--port",
        str(free_port()),
    ]
    done = subprocess.run(
        [*command, "--db", str(db)], capture_output=True, text=True, timeout=120, env=subprocess_env()
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    reason = f"{db} is not a vQPU database: it holds other tables (invoices) and no 'batches' table"
    assert line in (f"python -m backends.vqpu serve: error: {prefix}{reason}" for prefix in ("", "--db "))
    assert journal_and_tables(db) == ("delete", ["invoices"])


# -- 11. circuits without measurements --------------------------------------------------------------
def test_a_circuit_without_measurements_is_refused_at_submit(service):
    unmeasured = ghz(2)
    unmeasured.remove_final_measurements()
    assert refusal(service.submit, ALICE, body([ghz(2), unmeasured, unmeasured])) == (
        400,
        "no_measurements",
        "circuits[1] has no measurements; add measure() or measure_all() so that counts can be returned",
    )
    assert refusal(service.submit, ALICE, body([QuantumCircuit(1, 1024)]))[:2] == (400, "no_measurements")
    assert service.store.batches() == []
    assert service.ledger.snapshot() == ({}, {})  # nothing started, nothing billed
