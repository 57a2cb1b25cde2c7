"""Tests of backends.vqpu.accounting: usage per batch, job and user; the ledger; quotas."""

import threading

import pytest

from backends.errors import InvalidParameterError
from backends.vqpu.accounting import Ledger, Quotas, Usage, usage_by, usage_of
from backends.vqpu.store import Batch
from backends.vqpu.tokens import Caller


def batch(
    job="j", user="u", status="done", submitted=10.0, started=12.5, quantum=0.75, circuits=3, shots=100
):
    return Batch(
        id=1,
        job=job,
        key="k",
        circuits=circuits,
        qubits=2,
        shots=shots,
        seed=None,
        status=status,
        submitted=submitted,
        started=started,
        ended=None if started is None else started + 1.0,
        quantum_seconds=None if started is None else quantum,
        runs=1,
        counts=None,
        error=None,
        fetched=0,
        user=user,
        transpile_seconds=None if started is None else 0.25,
    )


def test_a_finished_batch_counts_its_circuits_shots_and_seconds():
    assert usage_of(batch()) == Usage(
        batches=1, circuits=3, shots=300, quantum_seconds=0.75, transpile_seconds=0.25, queue_seconds=2.5
    )


def test_a_failed_batch_bills_its_device_time_but_no_circuits():
    usage = usage_of(batch(status="failed"))
    assert (usage.batches, usage.circuits, usage.shots, usage.quantum_seconds) == (1, 0, 0, 0.75)


def test_a_batch_that_never_started_costs_nothing():
    assert usage_of(batch(status="queued", started=None)) == Usage()


def test_usage_by_sums_per_key_and_keeps_keys_with_zero_usage():
    batches = [batch(job="a"), batch(job="b"), batch(job="a"), batch(job="c", status="queued", started=None)]
    totals = usage_by(batches, key=lambda b: b.job)
    assert list(totals) == ["a", "b", "c"]
    assert totals["a"].shots == 600 and totals["a"].quantum_seconds == pytest.approx(1.5)
    assert totals["c"] == Usage()


def test_the_ledger_charges_job_and_user_and_resumes_from_stored_batches():
    ledger = Ledger([batch(job="a", user="alice"), batch(job="b", user="alice", status="running")])
    assert ledger.quantum_seconds(Caller("a", "alice")) == (0.75, 0.75)  # the running batch is not billed yet
    ledger.charge(Caller("b", "alice"), Usage(quantum_seconds=2.0))
    assert ledger.quantum_seconds(Caller("b", "alice")) == (2.0, 2.75)
    jobs, users = ledger.snapshot()
    jobs["a"].quantum_seconds = 99.0  # a copy
    assert ledger.jobs["a"].quantum_seconds == 0.75 and users["alice"].quantum_seconds == 2.75


def test_the_ledger_loses_no_charge_under_concurrent_threads():
    ledger = Ledger()

    def charge():
        for _ in range(1000):
            ledger.charge(Caller("j", "u"), Usage(batches=1, quantum_seconds=0.001))

    threads = [threading.Thread(target=charge) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ledger.jobs["j"].batches == 8000 and ledger.users["u"].batches == 8000


def test_quotas_refuse_a_job_or_user_that_used_its_seconds_and_name_them():
    ledger = Ledger()
    quotas = Quotas(job_seconds=1.0, user_seconds=1.5)
    assert quotas.refusal(Caller("a", "alice"), ledger) is None
    ledger.charge(Caller("a", "alice"), Usage(quantum_seconds=1.0))
    assert quotas.refusal(Caller("a", "alice"), ledger) == "job 'a' used 1 quantum seconds, its quota is 1 s"
    assert quotas.refusal(Caller("b", "alice"), ledger) is None
    ledger.charge(Caller("b", "alice"), Usage(quantum_seconds=0.5))
    assert (
        quotas.refusal(Caller("c", "alice"), ledger)
        == "user 'alice' used 1.5 quantum seconds, the quota is 1.5 s"
    )
    assert Quotas().refusal(Caller("a", "alice"), ledger) is None


def test_a_negative_quota_names_the_parameter():
    with pytest.raises(InvalidParameterError, match="job_seconds"):
        Quotas(job_seconds=-1.0)
