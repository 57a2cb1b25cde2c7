"""Quotas per Slurm account through the service, and the accounts in the report."""

from __future__ import annotations

import csv
import json

import pytest
from vqpu_helpers import ghz

from backends.vqpu.cli import main
from backends.vqpu.server.accounting import Quotas
from backends.vqpu.server.service import APIError, BatchIn, VQPUService
from backends.vqpu.server.shares import AccountBook
from backends.vqpu.server.store import Store, read_batches
from backends.vqpu.server.tokens import Caller
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])


def finished(store, job, user, account, seconds, key):
    """A batch of ``job`` that ran ``seconds`` on the device, billed to ``account``."""
    batch, _ = store.accept(
        job=job,
        user=user,
        key=key,
        payload=b"qpy",
        circuits=1,
        qubits=2,
        shots=10,
        seed=None,
        submitted=1.0,
        account=account,
    )
    store.start(batch.id, started=2.0)
    store.finish(batch.id, ended=2.0 + seconds, quantum_seconds=seconds, counts=[{"00": 10}])


@pytest.fixture
def used_db(tmp_path):
    """A database where account 'phys' used 2.5 device seconds over two jobs, 'chem' 0.5."""
    store = Store(tmp_path / "vqpu.sqlite")
    try:
        finished(store, "41", "ann", "phys", 1.5, "a")
        finished(store, "42", "bob", "phys", 1.0, "b")
        finished(store, "43", "cy", "chem", 0.5, "c")
    finally:
        store.close()
    return tmp_path / "vqpu.sqlite"


def refusal(service, caller, key):
    with pytest.raises(APIError) as info:
        service.submit(caller, BatchIn(key=key, circuits=PAYLOAD, shots=10))
    return info.value.status, info.value.code, info.value.detail


def test_a_submission_over_the_account_quota_is_refused(physical, tmp_path, used_db):
    accounts = tmp_path / "accounts.txt"
    accounts.write_text("phys 2.5\nchem 10\n")
    service = VQPUService(physical, used_db, quotas=Quotas(accounts=AccountBook(accounts)))
    try:
        # a new job of the account, of another user: the account's sum counts (restarted from the store)
        assert refusal(service, Caller("44", "dee", "phys", 1), "k1") == (
            403,
            "quota_exceeded",
            "account 'phys' used 2.5 quantum seconds, the account's quota is 2.5 s",
        )
        assert service.quota_refusals == 1
        batch, created = service.submit(
            Caller("45", "dee", "chem", 1), BatchIn(key="k2", circuits=PAYLOAD, shots=10)
        )
        assert created and batch["status"] == "queued"
        accounts.write_text("phys 3\nchem 10\n")  # raised while the server runs: read again
        assert service.submit(Caller("44", "dee", "phys", 1), BatchIn(key="k1", circuits=PAYLOAD, shots=10))[
            1
        ]
        accounts.write_text("phys three\n")  # broken: every submission refused, fail closed
        status, code, detail = refusal(service, Caller("45", "dee", "chem", 1), "k3")
        assert (status, code) == (503, "quotas_unavailable")
        assert f"account file {accounts} unusable" in detail and "line 1" in detail
    finally:
        service.stop()
    stored = {b.key: (b.job, b.account) for b in read_batches(used_db)}
    assert stored["k1"] == ("44", "phys") and stored["k2"] == ("45", "chem")


def test_the_report_groups_by_account(used_db, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["report", "--db", str(used_db), "--csv", str(out), "--json", str(tmp_path / "r.json")]) == 0
    text = capsys.readouterr().out
    table = text[text.index("per account") : text.index("per user")].splitlines()
    assert [line.split()[:2] for line in table[2:5]] == [["chem", "1"], ["phys", "2"], ["all", "3"]]
    assert table[3].split()[4] == "2.500"
    rows = list(csv.DictReader(out.open()))
    assert [(r["job"], r["user"], r["account"], r["quantum_seconds"]) for r in rows] == [
        ("41", "ann", "phys", "1.500000"),
        ("42", "bob", "phys", "1.000000"),
        ("43", "cy", "chem", "0.500000"),
    ]
    data = json.loads((tmp_path / "r.json").read_text())
    assert {a: u["quantum_seconds"] for a, u in data["accounts"].items()} == {"chem": 0.5, "phys": 2.5}
    assert data["users"]["ann"]["batches"] == 1
