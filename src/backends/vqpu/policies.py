"""Scheduling policies of a vQPU server: which queued batch the device runs next.

Chosen when the server starts (``serve --policy NAME [--max-wait S]``):

``fifo``
    Arrival order, the paper's policy: a job that queues many batches at once makes
    every later batch wait behind all of them.
``round-robin``
    Fair share between jobs: the next batch is the oldest of the job served least
    recently (jobs never served first, in order of their oldest batch), so a light
    job waits for at most one batch of each other job.
``max_wait`` (with either)
    A batch that has waited longer than this many seconds goes first (the longest
    waiting first), so no job's batch waits much beyond the bound, whatever the
    policy would pick. Under ``fifo`` the oldest batch goes first anyway.

A :class:`RunQueue` holds the queued batches and hands them out in the policy's order
without scanning them: heaps give the next batch in time logarithmic in the queue's
length, so a long queue does not slow every batch down:

>>> from backends.vqpu.store import Queued
>>> fifo, fair = RunQueue(make_policy("fifo")), RunQueue(make_policy("round-robin"))
>>> for queue in (fifo, fair):
...     for batch in [Queued(1, "heavy", 0.0), Queued(2, "heavy", 0.0), Queued(3, "light", 0.1)]:
...         _ = queue.add(batch)
>>> [fifo.take(now=1.0) for _ in range(3)], [fair.take(now=1.0) for _ in range(3)]
([1, 2, 3], [1, 3, 2])
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass

from backends.validation import check_choice, check_nonnegative
from backends.vqpu.store import Queued

__all__ = ["POLICIES", "Policy", "RunQueue", "make_policy"]

#: Names of the scheduling policies.
POLICIES = ("fifo", "round-robin")


@dataclass(frozen=True)
class Policy:
    """A scheduling policy: the base order and an optional waiting-time bound.

    Parameters
    ----------
    name : {"fifo", "round-robin"}
        Base order, see the module docstring.
    max_wait : float or None
        Seconds after which a waiting batch goes first; None for no bound.

    Examples
    --------
    >>> Policy("round-robin", max_wait=5.0).max_wait
    5.0
    """

    name: str
    max_wait: float | None = None


class RunQueue:
    """The queued batches of a vQPU server, handed out in the order of ``policy``.

    Not thread-safe: the executor calls it under its own lock.

    Parameters
    ----------
    policy : Policy
        Which batch goes next (see the module docstring).

    Examples
    --------
    >>> from backends.vqpu.store import Queued
    >>> queue = RunQueue(Policy("round-robin", max_wait=5.0))
    >>> queue.add(Queued(1, "a", 10.0)), queue.add(Queued(2, "b", 0.0)), queue.add(Queued(1, "a", 10.0))
    (True, True, False)
    >>> queue.take(now=10.0), len(queue)  # batch 2 waited 10 s, beyond the bound
    (2, 1)
    >>> queue.take(now=10.0), queue.take(now=10.0)
    (1, None)
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._batches: dict[int, Queued] = {}  # id -> batch, every queued batch
        self._jobs: dict[str, list[int]] = {}  # job -> ids of its queued batches, ascending
        self._served: dict[str, int] = {}  # job -> turn it was last served in
        self._turn = 0
        # heaps with lazy deletion: an entry whose batch has left, or whose job's key
        # changed, is dropped when it comes to the top
        self._by_id: list[int] = []
        self._by_age: list[tuple[float, int]] = []
        self._by_turn: list[tuple[int, int, str]] = []  # (last served or -1, oldest id, job)

    def __len__(self) -> int:
        return len(self._batches)

    def add(self, batch: Queued) -> bool:
        """Queue ``batch``; False (and nothing changes) if a batch with its id is queued already."""
        if batch.id in self._batches:
            return False
        self._batches[batch.id] = batch
        heapq.heappush(self._by_id, batch.id)
        if self.policy.max_wait is not None:
            heapq.heappush(self._by_age, (batch.submitted, batch.id))
        ids = self._jobs.setdefault(batch.job, [])
        bisect.insort(ids, batch.id)
        if ids[0] == batch.id:  # the job's oldest batch changed: its round-robin key too
            self._push_turn(batch.job)
        return True

    def take(self, *, now: float) -> int | None:
        """Remove the batch the policy picks and return its id; None when the queue is empty.

        Parameters
        ----------
        now : float
            Current epoch seconds, for the waiting-time bound.

        Returns
        -------
        int or None
            The id of the batch to run next: the longest waiting one if it waited
            beyond ``max_wait``, else the oldest batch of the job served least recently
            (``round-robin``; jobs never served first, by their oldest batch) or the
            oldest batch (``fifo``).
        """
        if not self._batches:
            return None
        chosen = self._overdue(now)
        if chosen is None:
            chosen = self._oldest_of_least_served() if self.policy.name == "round-robin" else self._oldest()
        batch = self._batches.pop(chosen)
        ids = self._jobs[batch.job]
        del ids[bisect.bisect_left(ids, chosen)]
        self._turn += 1
        self._served[batch.job] = self._turn
        if ids:
            self._push_turn(batch.job)
        else:
            del self._jobs[batch.job]
        return chosen

    def _push_turn(self, job: str) -> None:
        if self.policy.name == "round-robin":
            heapq.heappush(self._by_turn, (self._served.get(job, -1), self._jobs[job][0], job))

    def _oldest(self) -> int:
        while self._by_id[0] not in self._batches:
            heapq.heappop(self._by_id)
        return self._by_id[0]

    def _overdue(self, now: float) -> int | None:
        """The longest waiting batch (ties: lowest id) if it waited more than ``max_wait``."""
        if self.policy.max_wait is None:
            return None
        while True:
            submitted, batch_id = self._by_age[0]
            if (batch := self._batches.get(batch_id)) is not None and batch.submitted == submitted:
                return batch_id if now - submitted > self.policy.max_wait else None
            heapq.heappop(self._by_age)

    def _oldest_of_least_served(self) -> int:
        while True:
            served, oldest, job = self._by_turn[0]
            ids = self._jobs.get(job)
            if ids and ids[0] == oldest and self._served.get(job, -1) == served:
                return oldest
            heapq.heappop(self._by_turn)


def make_policy(name: str, max_wait: float | None = None) -> Policy:
    """Return the policy ``name`` with an optional waiting-time bound, checked.

    Raises
    ------
    InvalidParameterError
        If ``name`` is not in :data:`POLICIES` or ``max_wait`` is negative.

    Examples
    --------
    >>> make_policy("fifo", max_wait=2.5)
    Policy(name='fifo', max_wait=2.5)
    >>> make_policy("lifo")
    Traceback (most recent call last):
    ...
    backends.errors.InvalidParameterError: policy must be one of 'fifo', 'round-robin'; got 'lifo'
    """
    check_choice(name, "policy", POLICIES)
    return Policy(name, None if max_wait is None else check_nonnegative(max_wait, "max_wait"))
