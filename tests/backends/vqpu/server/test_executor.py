"""The executor on a real store with a recording backend: order, policies, quotas, failures, latency."""

from __future__ import annotations

import itertools
import logging
import threading
import time
import types

import pytest
from vqpu_helpers import blocked_in, ghz

from backends import InvalidParameterError
from backends.vqpu.server.accounting import Ledger, Quotas, Usage
from backends.vqpu.server.executor import BatchExecutor
from backends.vqpu.server.policies import Policy
from backends.vqpu.server.store import Store
from backends.vqpu.server.tokens import Caller
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)]).encode("ascii")


class Recorder:
    """A backend that records its calls, never overlapping ones, and fails on 13 shots."""

    name, num_qubits = "recorder", 5

    def __init__(self):
        self.calls = []
        self._busy = threading.Lock()

    def run(self, circuits, shots, seed=None):
        assert self._busy.acquire(blocking=False), "two batches ran at once"
        try:
            time.sleep(0.01)
            if shots == 13:
                raise RuntimeError("unlucky shots")
            self.calls.append((len(circuits), shots, seed))
            return [{"0" * c.num_clbits: shots} for c in circuits]
        finally:
            self._busy.release()


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    yield store
    store.close()


def queue(store, shots, key=None, payload=PAYLOAD, job="j", user="u", submitted=None):
    batch, _ = store.accept(
        job=job,
        user=user,
        key=key or f"k{shots}",
        payload=payload,
        circuits=1,
        qubits=2,
        shots=shots,
        seed=shots,
        submitted=time.time() if submitted is None else submitted,
    )
    return batch.id


def run_until(executor, finished, count, timeout=30.0):
    """Start ``executor`` and wait until ``count`` batches reported finishing."""
    executor.start()
    deadline = time.monotonic() + timeout
    while len(finished) < count:
        assert time.monotonic() < deadline, f"only {finished} finished"
        time.sleep(0.01)
    executor.stop()


def wait_for(condition, what, timeout=30.0):
    """Wait until ``condition()`` is true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.01)


def wait_until_idle(executor):
    """Wait until the executor's loop found no batch and sleeps until one is queued."""
    wait_for(lambda: blocked_in(executor._thread, "_loop"), "the executor did not go idle")


def test_batches_run_one_at_a_time_in_arrival_order(store):
    backend, finished = Recorder(), []
    ids = [queue(store, shots) for shots in (30, 10, 20)]
    executor = BatchExecutor(backend, store, on_finish=finished.append)

    run_until(executor, finished, 3)

    assert finished == ids
    assert backend.calls == [(1, 30, 30), (1, 10, 10), (1, 20, 20)]
    batches = store.batches(with_counts=True)
    assert [(b.status, b.runs, b.counts) for b in batches] == [
        ("done", 1, [{"00": shots}]) for shots in (30, 10, 20)
    ]
    assert all(a.ended <= b.started for a, b in itertools.pairwise(batches))


def test_a_failing_batch_is_stored_as_failed_and_the_next_one_runs(store):
    backend, finished = Recorder(), []
    bad, bad_payload, good = queue(store, 13), queue(store, 7, payload=b"not qpy"), queue(store, 5)

    run_until(BatchExecutor(backend, store, on_finish=finished.append), finished, 3)

    results = {b.id: b for b in store.batches(with_counts=True)}
    assert (results[bad].status, results[bad].error) == ("failed", "RuntimeError: unlucky shots")
    assert results[bad_payload].status == "failed"
    assert results[bad_payload].error.startswith("ValueError: circuits are not base64-encoded QPY")
    assert (results[good].status, results[good].counts) == ("done", [{"00": 5}])


def test_latency_is_added_per_circuit(store):
    finished = []
    batch = store.accept(
        job="j",
        user="u",
        key="two",
        payload=encode_circuits([ghz(1), ghz(2)]).encode("ascii"),
        circuits=2,
        qubits=2,
        shots=4,
        seed=None,
        submitted=time.time(),
    )[0]

    run_until(BatchExecutor(Recorder(), store, latency=0.05, on_finish=finished.append), finished, 1)

    done = store.get(batch.id)
    assert done.quantum_seconds >= 0.1
    assert done.ended >= done.started + done.quantum_seconds + done.transpile_seconds - 1e-6


@pytest.mark.parametrize(("latency", "sleeps"), [(0.0, []), (0.01, [0.01])])
def test_the_executor_sleeps_only_for_a_latency(store, monkeypatch, latency, sleeps):
    # time.sleep(0) would give up the GIL and wait to get it back on every batch
    slept = []
    clock = types.SimpleNamespace(time=time.time, perf_counter=time.perf_counter, sleep=slept.append)
    monkeypatch.setattr("backends.vqpu.server.executor.time", clock)
    backend = types.SimpleNamespace(run=lambda circuits, shots, seed=None: [{"00": shots}])
    batch_id = queue(store, 3)

    BatchExecutor(backend, store, latency=latency).run_batch(batch_id)

    assert slept == sleeps
    done = store.get(batch_id)
    assert (done.status, done.counts) == ("done", [{"00": 3}])
    assert done.quantum_seconds >= latency


def test_start_requeues_what_a_dead_server_left_running(store):
    finished = []
    interrupted = queue(store, 3)
    store.start(interrupted, time.time())  # the previous server died here

    run_until(BatchExecutor(Recorder(), store, on_finish=finished.append), finished, 1)

    batch = store.get(interrupted)
    assert (batch.status, batch.runs) == ("done", 2)


def test_a_batch_queued_while_idle_starts_at_once(store):
    done = threading.Event()
    executor = BatchExecutor(Recorder(), store, on_finish=lambda batch_id: done.set())
    executor.start()
    try:
        wait_until_idle(executor)  # the loop found nothing and sleeps, without a timeout
        executor.enqueue(store.get(queue(store, 4)))
        assert done.wait(5), "the executor did not run the queued batch"
    finally:
        executor.stop()


def test_stop_returns_while_the_executor_is_idle(store):
    executor = BatchExecutor(Recorder(), store)
    executor.start()
    wait_until_idle(executor)
    stopper = threading.Thread(target=executor.stop, daemon=True)
    stopper.start()
    stopper.join(5)
    assert not stopper.is_alive(), "stop() hangs while the executor waits for a batch"


def test_a_finished_batch_queued_again_does_not_run_again(store, caplog):
    finished = []
    executor = BatchExecutor(Recorder(), store, on_finish=finished.append)
    batch_id = queue(store, 1)
    executor.start()  # finds the batch in the store and runs it
    try:
        wait_for(lambda: finished, "the stored batch did not finish")
        with caplog.at_level(logging.ERROR, logger="backends.vqpu"):
            executor.enqueue(store.get(batch_id))  # a submission that raced with start()
            later = queue(store, 2)
            executor.enqueue(store.get(later))  # FIFO: taken after the finished batch
            wait_for(lambda: len(finished) == 2, "the later batch did not finish")
    finally:
        executor.stop()
    # the executor has taken the finished batch again, refused it, and run the next one
    assert f"batch {batch_id} is not queued in the store (done)" in caplog.messages
    assert finished == [batch_id, later]
    assert [b.runs for b in store.batches()] == [1, 1]


def test_batches_queued_before_the_start_are_not_run_twice(store):
    finished = []
    executor = BatchExecutor(Recorder(), store, on_finish=finished.append)
    first = queue(store, 1)
    executor.enqueue(store.get(first))  # queued with the executor and in the store before the start
    second = queue(store, 2)
    run_until(executor, finished, 2)
    assert finished == [first, second] and store.get(first).runs == 1


def test_stop_is_safe_twice_and_before_start(store):
    executor = BatchExecutor(Recorder(), store)
    executor.stop()
    executor = BatchExecutor(Recorder(), store)
    executor.start()
    executor.stop()
    executor.stop()
    assert store.batches() == []


def test_a_batch_missing_from_the_store_is_skipped(store):
    finished = []
    BatchExecutor(Recorder(), store, on_finish=finished.append).run_batch(99)
    assert finished == [] and store.batches() == []


def test_latency_must_be_non_negative(store):
    with pytest.raises(InvalidParameterError) as info:
        BatchExecutor(types.SimpleNamespace(), store, latency=-1)
    assert str(info.value) == "latency must be a finite number >= 0, got -1"


def test_round_robin_alternates_between_a_heavy_and_a_light_job(store):
    backend, finished = Recorder(), []
    heavy = [queue(store, shots, job="heavy") for shots in (1, 2, 3)]
    light = [queue(store, shots, job="light") for shots in (4, 5)]

    run_until(
        BatchExecutor(backend, store, policy=Policy("round-robin"), on_finish=finished.append),
        finished,
        5,
    )

    assert finished == [heavy[0], light[0], heavy[1], light[1], heavy[2]]


def test_fifo_keeps_arrival_order_and_the_bound_puts_overdue_batches_first(store):
    now = time.time()
    heavy = [queue(store, shots, job="heavy", submitted=now) for shots in (1, 2, 3)]
    late = queue(store, 4, job="light", submitted=now - 60)  # arrived last, accepted long ago
    backend, finished = Recorder(), []
    policy = Policy("round-robin", max_wait=30.0)

    run_until(BatchExecutor(backend, store, policy=policy, on_finish=finished.append), finished, 4)

    assert finished == [late, *heavy]


def test_a_job_over_its_quota_fails_without_touching_the_device(store):
    backend, finished = Recorder(), []
    ledger = Ledger()
    ledger.charge(Caller("spent", "alice"), Usage(quantum_seconds=5.0))
    over, other, same_user = (
        queue(store, 1, job="spent", user="alice"),
        queue(store, 2, job="fresh", user="bob"),
        queue(store, 3, job="other", user="alice"),
    )
    quotas = Quotas(job_seconds=5.0, user_seconds=100.0)

    run_until(
        BatchExecutor(backend, store, quotas=quotas, ledger=ledger, on_finish=finished.append), finished, 3
    )

    results = {b.id: b for b in store.batches()}
    assert results[over].status == "failed"
    assert results[over].error == "quota_exceeded: job 'spent' used 5 quantum seconds, its quota is 5 s"
    assert results[over].quantum_seconds == 0.0
    assert results[other].status == results[same_user].status == "done"
    assert backend.calls == [(1, 2, 2), (1, 3, 3)]
    assert ledger.jobs["spent"].batches == 1 and ledger.jobs["spent"].quantum_seconds == 5.0
    assert ledger.jobs["spent"].circuits == 0  # refused: only its queue time is billed
    assert ledger.users["alice"].circuits == 1 and ledger.users["alice"].batches == 2
    assert ledger.users["bob"].shots == 2


def test_transpilation_is_recorded_apart_from_device_time(store):
    from backends import get_backend

    device = get_backend("iqm-fake:adonis", seed=1)  # a coupling map: circuits are transpiled
    finished = []
    batch_id = queue(store, 50)

    run_until(BatchExecutor(device, store, on_finish=finished.append), finished, 1)

    done = store.get(batch_id)
    assert done.status == "done" and done.transpile_seconds > 0
    assert done.quantum_seconds == pytest.approx(device.timings[0].quantum_seconds)


def test_no_batch_starts_before_wait_turn_returns(store):
    backend, finished, turns = Recorder(), [], []
    hold = threading.Event()

    def wait_turn():
        turns.append(time.time())
        hold.wait(30.0)

    ids = [queue(store, shots) for shots in (30, 10)]
    executor = BatchExecutor(backend, store, on_finish=finished.append, wait_turn=wait_turn)
    executor.start()
    try:
        wait_for(lambda: blocked_in(executor._thread, "wait_turn"), "the executor did not wait for its turn")
        # held in its first turn: nothing ran before it
        assert len(turns) == 1 and backend.calls == []
        assert [b.status for b in store.batches()] == ["queued", "queued"]
        released = time.time()
        hold.set()
        wait_for(lambda: len(finished) == 2, f"only {finished} finished")
    finally:
        hold.set()
        executor.stop()

    assert finished == ids
    assert all(b.started >= released for b in store.batches())
    assert len(turns) >= 2  # asked before each batch
