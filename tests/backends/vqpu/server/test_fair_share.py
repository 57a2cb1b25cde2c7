"""The fair-share policy without a server: a fake clock drives the run queue pick by pick."""

from __future__ import annotations

import itertools
import tracemalloc

import pytest

from backends import InvalidParameterError
from backends.vqpu.server.policies import HALF_LIFE, Policy, RunQueue
from backends.vqpu.server.store import Queued

SHARES = {"phys": 0.5, "chem": 0.3, "bio": 0.2}


def saturated(policy, *, picks, length=1.0, backlog=3, accounts=SHARES):
    """Device seconds per account over ``picks`` equal batches, every account keeping ``backlog`` queued."""
    queue, ids, now = RunQueue(policy), itertools.count(1), 0.0
    for account in accounts:
        for _ in range(backlog):
            queue.add(Queued(next(ids), f"job-{account}", now, account))
    by_id = {}
    used = dict.fromkeys(accounts, 0.0)
    for batch in list(queue._batches.values()):
        by_id[batch.id] = batch.account
    for _ in range(picks):
        account = by_id.pop(queue.take(now=now))
        used[account] += length
        now += length  # the batch runs; then its account queues another
        batch = Queued(next(ids), f"job-{account}", now, account)
        by_id[batch.id] = account
        queue.add(batch)
    queue.take(now=now)  # the last batch's time is charged at the next pick
    return used


@pytest.mark.parametrize("half_life", [60.0, HALF_LIFE, 3600.0])
def test_each_account_gets_its_configured_share_of_device_time(half_life):
    policy = Policy("fair-share", half_life=half_life, shares=SHARES.__getitem__)
    used = saturated(policy, picks=3000)
    total = sum(used.values())
    measured = {account: seconds / total for account, seconds in used.items()}
    for account, share in SHARES.items():
        assert abs(measured[account] - share) < 0.05, measured
    # and not just on average: the last 1000 picks too
    late = {a: s - e for (a, s), e in zip(used.items(), saturated(policy, picks=2000).values(), strict=True)}
    for account, share in SHARES.items():
        assert abs(late[account] / 1000.0 - share) < 0.05, late


def test_without_shares_the_accounts_share_equally_whatever_their_backlog():
    used = saturated(Policy("fair-share"), picks=900, accounts=["a", "b", "c"])
    assert used == {"a": 300.0, "b": 300.0, "c": 300.0}
    # under round-robin between jobs, an account with three jobs would get three turns
    queue = RunQueue(Policy("fair-share"))
    for number, (job, account) in enumerate([("j1", "a"), ("j2", "a"), ("j3", "a"), ("k1", "b")], 1):
        queue.add(Queued(number, job, 0.0, account))
        queue.add(Queued(number + 10, job, 0.0, account))
    order = [queue.take(now=float(t)) for t in range(4)]
    assert order == [1, 4, 2, 14]  # a, b, a, b: oldest first within each account


def test_the_account_with_the_highest_factor_goes_first_oldest_batch_first():
    queue = RunQueue(Policy("fair-share", shares={"a": 3.0, "b": 1.0}.__getitem__))
    for batch in [Queued(1, "x", 0.0, "a"), Queued(2, "y", 0.0, "b"), Queued(3, "x", 0.0, "a")]:
        queue.add(batch)
    queue.add(Queued(4, "y", 0.0, "b"))
    assert queue.take(now=0.0) == 1  # no usage: the oldest batch
    # a held the device 10 s: a's factor 2**(-1/0.75) = 0.40 < b's 1
    assert queue.take(now=10.0) == 2
    assert queue._fair.factors(now=10.0) == {"a": pytest.approx(2 ** (-1 / 0.75)), "b": 1.0}


def test_usage_decays_so_old_usage_weighs_less_than_new():
    policy = Policy("fair-share", half_life=10.0)
    queue = RunQueue(policy)
    queue.add(Queued(1, "x", 0.0, "old"))
    assert queue.take(now=0.0) == 1
    assert queue.take(now=40.0) is None  # 'old' held it 40 s; the queue is empty: the device is idle
    queue.add(Queued(2, "y", 100.0, "new"))
    assert queue.take(now=100.0) == 2
    queue.take(now=105.0)  # 'new' held it 5 s, 'old' 40 s but 65 s ago (6.5 half-lives)
    queue.add(Queued(3, "x", 105.0, "old"))
    queue.add(Queued(4, "y", 105.0, "new"))
    factors = queue._fair.factors(now=105.0)
    assert factors["old"] > factors["new"]
    old = 40 * 2**-6.5
    assert factors["old"] == pytest.approx(2 ** (-(old / (old + 5)) / 0.5))
    assert queue.take(now=105.0) == 3


def test_idle_time_and_a_batch_put_back_are_not_charged():
    queue = RunQueue(Policy("fair-share"))
    queue.add(Queued(1, "x", 0.0, "a"))
    assert queue.take(now=0.0) == 1
    assert queue.take(now=2.0) is None  # a ran 2 s, then the device idles until 1000
    queue.add(Queued(2, "y", 1000.0, "b"))
    assert queue.take(now=1000.0) == 2
    queue.add(Queued(2, "y", 1000.0, "b"))  # the device failed: batch 2 is put back, not run
    queue.add(Queued(3, "x", 1000.0, "a"))
    queue.take(now=1500.0)
    usage = queue._fair._usage.at(now=1500.0)
    assert usage["a"] == pytest.approx(2.0 * 2 ** (-1498.0 / HALF_LIFE)) and "b" not in usage


def test_the_waiting_time_bound_goes_before_the_factor():
    queue = RunQueue(Policy("fair-share", max_wait=5.0))
    queue.add(Queued(1, "x", 0.0, "a"))
    queue.add(Queued(2, "x", 0.0, "a"))
    queue.add(Queued(3, "y", 9.0, "b"))
    assert queue.take(now=0.0) == 1
    assert queue.take(now=10.0) == 2  # waited 10 s, beyond the bound, although b has the higher factor
    assert queue.take(now=11.0) == 3
    assert queue.take(now=12.0) is None and len(queue) == 0


def test_the_half_life_is_checked():
    with pytest.raises(InvalidParameterError, match="half_life must be a number in"):
        Policy("fair-share", half_life=0.0)


@pytest.mark.timeout(120)
def test_memory_stays_bounded_however_many_batches_pass_through():
    queue = RunQueue(Policy("fair-share", max_wait=5.0))
    arrivals = [Queued(i, f"job-{i}", float(i), f"account-{i % 5}") for i in range(40_010)]
    for batch in arrivals[:10]:
        queue.add(batch)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for now, batch in enumerate(arrivals[10:], start=10):
            queue.take(now=float(now))
            queue.add(batch)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(queue) == 10
    assert grown < 100_000, f"{grown} bytes kept for a queue of 10 batches"
