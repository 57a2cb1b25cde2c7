"""Scheduling policies without a server: the order they pick and the checks of their parameters."""

import importlib.util
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends import InvalidParameterError
from backends.vqpu.server.accounting import Ledger, Quotas, Usage
from backends.vqpu.server.policies import Policy, RunQueue
from backends.vqpu.server.store import Queued
from backends.vqpu.server.tokens import Caller


def drain(policy, queue, now=0.0):
    """Ids in the order ``policy`` runs the whole ``queue`` (no arrivals meanwhile)."""
    run_queue = RunQueue(policy)
    for batch in queue:
        run_queue.add(batch)
    return [run_queue.take(now=now) for _ in queue]


QUEUE = [
    Queued(1, "a", 0.0),
    Queued(2, "a", 0.0),
    Queued(3, "a", 0.0),
    Queued(4, "b", 1.0),
    Queued(5, "c", 2.0),
]


def test_fifo_is_arrival_order():
    assert drain(Policy("fifo"), QUEUE) == [1, 2, 3, 4, 5]


def test_round_robin_serves_each_job_in_turn():
    assert drain(Policy("round-robin"), QUEUE) == [1, 4, 5, 2, 3]


def test_the_bound_puts_the_longest_waiting_first():
    late = [Queued(1, "a", 9.0), Queued(2, "b", 9.5), Queued(3, "c", 0.0)]
    assert drain(Policy("round-robin", max_wait=5.0), late, now=10.0) == [3, 1, 2]
    assert drain(Policy("round-robin"), late, now=10.0) == [1, 2, 3]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: Policy("lifo"), "policy"),
        (lambda: Policy("fifo", max_wait=-1.0), "max_wait"),
        (lambda: Quotas(job_seconds=-1.0), "job_seconds"),
        (lambda: Quotas(user_seconds=float("nan")), "user_seconds"),
    ],
)
def test_bad_parameters_name_the_parameter(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call()


def test_a_user_quota_counts_every_job_of_the_user():
    ledger, quotas = Ledger(), Quotas(user_seconds=1.0)
    ledger.charge(Caller("j1", "ann"), Usage(quantum_seconds=0.6))
    assert quotas.refusal(Caller("j2", "ann"), ledger) is None
    ledger.charge(Caller("j2", "ann"), Usage(quantum_seconds=0.4))
    assert (
        quotas.refusal(Caller("j3", "ann"), ledger) == "user 'ann' used 1 quantum seconds, the quota is 1 s"
    )
    assert quotas.refusal(Caller("j4", "bob"), ledger) is None


def load_peer():
    """``benchmarks/vqpu_scheduling.py``: its ``ScanningQueue`` states the policies as one scan per pick."""
    path = Path(__file__).resolve().parents[4] / "benchmarks" / "vqpu_scheduling.py"
    spec = importlib.util.spec_from_file_location("vqpu_scheduling", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ScanningQueue = load_peer().ScanningQueue


#: An arrival (id, job, submitted) or a take at a time; ids may repeat and arrive out of order.
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 40), st.sampled_from("abcd"), st.integers(0, 20)),
        st.tuples(st.just("take"), st.integers(0, 30)),
    ),
    max_size=80,
)


@pytest.mark.timeout(120)
@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(["fifo", "round-robin"]),
    max_wait=st.one_of(st.none(), st.integers(0, 10)),
    steps=STEPS,
)
def test_the_run_queue_picks_what_a_scan_of_the_queue_picks(name, max_wait, steps):
    policy = Policy(name, max_wait=max_wait)
    fast, scan = RunQueue(policy), ScanningQueue(policy)
    for step in steps:
        if step[0] == "add":
            batch = Queued(step[1], step[2], float(step[3]))
            assert fast.add(batch) == scan.add(batch)
        else:
            assert fast.take(now=float(step[1])) == scan.take(now=float(step[1]))
        assert len(fast) == len(scan)


def bytes_kept(queue, arrivals):
    """Memory ``queue`` keeps while one pick and one arrival per batch of ``arrivals`` pass through it.

    The first 10 arrivals are queued before the count starts, so the queue holds 10 throughout.
    """
    for batch in arrivals[:10]:
        queue.add(batch)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for now, batch in enumerate(arrivals[10:], start=10):
            queue.take(now=float(now))
            queue.add(batch)
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "max_wait"), [("fifo", None), ("fifo", 5.0), ("round-robin", None), ("round-robin", 5.0)]
)
def test_memory_stays_bounded_however_many_batches_pass_through(name, max_wait):
    # a server runs for months: the queue holds 10 batches while 60,000 pass through it
    queue = RunQueue(Policy(name, max_wait=max_wait))
    grown = bytes_kept(queue, [Queued(i, f"job-{i % 7}", float(i)) for i in range(60_010)])
    assert len(queue) == 10
    assert grown < 100_000, f"{grown} bytes kept for a queue of 10 batches"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("max_wait", [None, 5.0])
def test_fifo_keeps_nothing_per_job_once_its_batches_are_gone(max_wait):
    # one job per batch, as with one Slurm job per batch: fifo needs no memory of jobs
    queue = RunQueue(Policy("fifo", max_wait=max_wait))
    grown = bytes_kept(queue, [Queued(i, f"job-{i}", float(i)) for i in range(30_010)])
    assert len(queue) == 10
    assert grown < 100_000, f"{grown} bytes kept for a queue of 10 batches"
