"""Tests of backends.vqpu.server.accounting: usage per batch, job and user; the ledger; quotas."""

import random
import threading

import pytest

from backends.utils.errors import InvalidParameterError
from backends.vqpu.server.accounting import Ledger, Quotas, Usage, usage_by, usage_of
from backends.vqpu.server.store import Batch, Store
from backends.vqpu.server.tokens import Caller


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


def stored(path, seed: int, count: int) -> Store:
    """A store of ``count`` batches of 7 jobs and 3 users, queued, running, done or failed at random."""
    rng = random.Random(seed)
    store = Store(path)
    for i in range(count):
        circuits = rng.randint(1, 4)
        accepted, _ = store.accept(
            job=f"job-{rng.randrange(7)}",
            user=f"user-{rng.randrange(3)}",
            key=f"k{i}",
            payload=b"qpy",
            circuits=circuits,
            qubits=2,
            shots=rng.randint(1, 1000),
            seed=None,
            submitted=float(i),
        )
        status = rng.choice(["queued", "running", "done", "failed"])
        if status != "queued":
            store.start(accepted.id, started=i + 10 * rng.random())
        if status == "done":
            counts = [{"0": 1}] * circuits
            store.finish(
                accepted.id,
                ended=i + 11.0,
                quantum_seconds=rng.random(),
                transpile_seconds=0.1,
                counts=counts,
            )
        elif status == "failed":
            store.finish(
                accepted.id, ended=i + 11.0, quantum_seconds=rng.random() / 10, error="RuntimeError: x"
            )
    return store


@pytest.mark.parametrize("seed", range(5))
def test_the_ledger_of_a_store_sums_what_each_finished_batch_is_charged(tmp_path, seed):
    store = stored(tmp_path / "vqpu.db", seed, 200)
    try:
        expected = Ledger()
        for each in store.batches():
            if each.status in ("done", "failed"):  # queued and running batches are charged when they end
                expected.charge(Caller(each.job, each.user), usage_of(each))
        for got, want in zip(Ledger.of_store(store).snapshot(), expected.snapshot(), strict=True):
            assert sorted(got) == sorted(want)
            for name, usage in want.items():
                assert (got[name].batches, got[name].circuits, got[name].shots) == (
                    usage.batches,
                    usage.circuits,
                    usage.shots,
                )
                for field in ("quantum_seconds", "transpile_seconds", "queue_seconds"):
                    assert getattr(got[name], field) == pytest.approx(getattr(usage, field), rel=1e-12)
    finally:
        store.close()


def test_the_ledger_charges_job_and_user_from_the_usage_it_starts_with():
    ledger = Ledger([(Caller("a", "alice"), usage_of(batch(job="a", user="alice")))])
    assert ledger.quantum_seconds(Caller("a", "alice")) == (0.75, 0.75)
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
