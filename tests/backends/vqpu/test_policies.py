"""Scheduling policies without a server: the order they pick and the checks of their parameters."""

import pytest

from backends import InvalidParameterError
from backends.vqpu.accounting import Ledger, Quotas, Usage
from backends.vqpu.policies import make_policy
from backends.vqpu.store import Queued
from backends.vqpu.tokens import Caller


def drain(policy, queue, now=0.0):
    """Ids in the order ``policy`` runs the whole ``queue`` (no arrivals meanwhile)."""
    queue, order = list(queue), []
    while queue:
        chosen = policy.choose(queue, now=now)
        order.append(chosen)
        queue = [b for b in queue if b.id != chosen]
    return order


QUEUE = [
    Queued(1, "a", 0.0),
    Queued(2, "a", 0.0),
    Queued(3, "a", 0.0),
    Queued(4, "b", 1.0),
    Queued(5, "c", 2.0),
]


def test_fifo_is_arrival_order():
    assert drain(make_policy("fifo"), QUEUE) == [1, 2, 3, 4, 5]


def test_round_robin_serves_each_job_in_turn():
    assert drain(make_policy("round-robin"), QUEUE) == [1, 4, 5, 2, 3]


def test_the_bound_puts_the_longest_waiting_first():
    late = [Queued(1, "a", 9.0), Queued(2, "b", 9.5), Queued(3, "c", 0.0)]
    assert drain(make_policy("round-robin", max_wait=5.0), late, now=10.0) == [3, 1, 2]
    assert drain(make_policy("round-robin"), late, now=10.0) == [1, 2, 3]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: make_policy("lifo"), "policy"),
        (lambda: make_policy("fifo", max_wait=-1.0), "max_wait"),
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
