"""The FIFO executor on a real store with a recording backend: order, failures, latency, restart."""

from __future__ import annotations

import itertools
import threading
import time
import types

import pytest
from vqpu_helpers import ghz

from backends import InvalidParameterError
from backends.vqpu.executor import FIFOExecutor
from backends.vqpu.store import Store
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


def queue(store, shots, key=None, payload=PAYLOAD):
    batch, _ = store.accept(
        job="j",
        key=key or f"k{shots}",
        payload=payload,
        circuits=1,
        qubits=2,
        shots=shots,
        seed=shots,
        submitted=time.time(),
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


def test_batches_run_one_at_a_time_in_arrival_order(store):
    backend, finished = Recorder(), []
    ids = [queue(store, shots) for shots in (30, 10, 20)]
    executor = FIFOExecutor(backend, store, on_finish=finished.append)

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

    run_until(FIFOExecutor(backend, store, on_finish=finished.append), finished, 3)

    results = {b.id: b for b in store.batches(with_counts=True)}
    assert (results[bad].status, results[bad].error) == ("failed", "RuntimeError: unlucky shots")
    assert results[bad_payload].status == "failed"
    assert results[bad_payload].error.startswith("ValueError: circuits are not base64-encoded QPY")
    assert (results[good].status, results[good].counts) == ("done", [{"00": 5}])


def test_latency_is_added_per_circuit(store):
    finished = []
    batch = store.accept(
        job="j",
        key="two",
        payload=encode_circuits([ghz(1), ghz(2)]).encode("ascii"),
        circuits=2,
        qubits=2,
        shots=4,
        seed=None,
        submitted=time.time(),
    )[0]

    run_until(FIFOExecutor(Recorder(), store, latency=0.05, on_finish=finished.append), finished, 1)

    done = store.get(batch.id)
    assert done.quantum_seconds >= 0.1
    assert done.ended == pytest.approx(done.started + done.quantum_seconds)


def test_start_requeues_what_a_dead_server_left_running(store):
    finished = []
    interrupted = queue(store, 3)
    store.start(interrupted, time.time())  # the previous server died here

    run_until(FIFOExecutor(Recorder(), store, on_finish=finished.append), finished, 1)

    batch = store.get(interrupted)
    assert (batch.status, batch.runs) == ("done", 2)


def test_wake_starts_a_new_batch_without_waiting_for_the_idle_poll(store, monkeypatch):
    monkeypatch.setattr("backends.vqpu.executor.IDLE_POLL", 30.0)
    done = threading.Event()
    executor = FIFOExecutor(Recorder(), store, on_finish=lambda batch_id: done.set())
    executor.start()
    try:
        time.sleep(0.05)  # the loop found nothing and sleeps
        queue(store, 4)
        executor.wake()
        assert done.wait(5), "the woken executor did not run the batch"
    finally:
        executor.stop()


def test_stop_is_safe_twice_and_before_start(store):
    executor = FIFOExecutor(Recorder(), store)
    executor.stop()
    executor = FIFOExecutor(Recorder(), store)
    executor.start()
    executor.stop()
    executor.stop()
    assert store.batches() == []


def test_a_batch_missing_from_the_store_is_skipped(store):
    finished = []
    FIFOExecutor(Recorder(), store, on_finish=finished.append).run_batch(99)
    assert finished == [] and store.batches() == []


def test_latency_must_be_non_negative(store):
    with pytest.raises(InvalidParameterError) as info:
        FIFOExecutor(types.SimpleNamespace(), store, latency=-1)
    assert str(info.value) == "latency must be a finite number >= 0, got -1"
