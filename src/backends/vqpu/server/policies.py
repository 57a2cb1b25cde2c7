"""Scheduling policies of a vQPU server: which queued batch the device runs next.

Chosen when the server starts (``serve --policy NAME [--max-wait S]``):

``fifo``
    Arrival order, the paper's policy: a job that queues many batches at once makes
    every later batch wait behind all of them.
``round-robin``
    Fair share between jobs: the next batch is the oldest of the job served least
    recently (jobs never served first, in order of their oldest batch), so a light
    job waits for at most one batch of each other job.
``fair-share``
    Fair share between Slurm accounts, as Slurm's multifactor priority computes it:
    the next batch is the oldest of the account with the highest fair-share factor
    ``2 ** (-U / S)`` (:func:`~backends.vqpu.server.shares.fair_share_factors`; ``U``
    its usage decayed with ``half_life``, ``S`` its share from ``shares``, both
    normalised). An account's usage is the time it held the device: from the pick of
    its batch to the next pick, or to the moment the queue was found empty.
``max_wait`` (with any)
    A batch that has waited longer than this many seconds goes first (the longest
    waiting first), so no job's batch waits much beyond the bound, whatever the
    policy would pick. Under ``fifo`` the oldest batch goes first anyway.

A :class:`RunQueue` holds the queued batches and hands them out in the policy's order
without scanning them: heaps give the next batch in time logarithmic in the queue's
length (under ``fair-share``, plus linear in the number of accounts with work), so a
long queue does not slow every batch down:

>>> from backends.vqpu.server.store import Queued
>>> fifo, fair = RunQueue(Policy("fifo")), RunQueue(Policy("round-robin"))
>>> for queue in (fifo, fair):
...     for batch in [Queued(1, "heavy", 0.0), Queued(2, "heavy", 0.0), Queued(3, "light", 0.1)]:
...         _ = queue.add(batch)
>>> [fifo.take(now=1.0) for _ in range(3)], [fair.take(now=1.0) for _ in range(3)]
([1, 2, 3], [1, 3, 2])
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable
from dataclasses import dataclass

from backends.utils.validation import check_choice, check_interval, check_nonnegative
from backends.vqpu.server.shares import DecayedUsage, fair_share_factors
from backends.vqpu.server.store import Queued

__all__ = ["POLICIES", "Policy", "RunQueue"]

#: Names of the scheduling policies.
POLICIES = ("fifo", "round-robin", "fair-share")

#: Default half-life of the usage under ``fair-share``, in seconds.
HALF_LIFE = 600.0


@dataclass(frozen=True)
class Policy:
    """A scheduling policy: the base order and an optional waiting-time bound, checked.

    Parameters
    ----------
    name : {"fifo", "round-robin", "fair-share"}
        Base order, see the module docstring.
    max_wait : float or None
        Seconds after which a waiting batch goes first; None for no bound.
    half_life : float
        ``fair-share``: seconds after which an account's usage counts half (default
        :data:`HALF_LIFE`).
    shares : callable or None
        ``fair-share``: the share of an account (e.g.
        :meth:`~backends.vqpu.server.shares.AccountBook.share`); None for equal shares.

    Raises
    ------
    InvalidParameterError
        If ``name`` is not in :data:`POLICIES`, ``max_wait`` is negative or not finite,
        or ``half_life`` is not a finite number > 0.

    Examples
    --------
    >>> Policy("round-robin", max_wait=5).max_wait
    5.0
    >>> Policy("lifo")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: policy must be one of 'fifo', ...; got 'lifo'
    """

    name: str
    max_wait: float | None = None
    half_life: float = HALF_LIFE
    shares: Callable[[str], float] | None = None

    def __post_init__(self) -> None:
        check_choice(self.name, "policy", POLICIES)
        object.__setattr__(self, "half_life", check_interval(self.half_life, "half_life", 0.0, 1e12))
        if self.max_wait is not None:
            object.__setattr__(self, "max_wait", check_nonnegative(self.max_wait, "max_wait"))


class RunQueue:
    """The queued batches of a vQPU server, handed out in the order of ``policy``.

    Not thread-safe: the executor calls it under its own lock. Memory stays linear in
    the number of batches queued, however many have passed through, plus, under
    ``round-robin``, one turn per job ever served (a returning job's place in the
    order depends on it).

    Parameters
    ----------
    policy : Policy
        Which batch goes next (see the module docstring).

    Examples
    --------
    >>> from backends.vqpu.server.store import Queued
    >>> queue = RunQueue(Policy("round-robin", max_wait=5.0))
    >>> queue.add(Queued(1, "a", 10.0)), queue.add(Queued(2, "b", 0.0)), queue.add(Queued(1, "a", 10.0))
    (True, True, False)
    >>> queue.take(now=10.0), len(queue)  # batch 2 waited 10 s, beyond the bound
    (2, 1)
    >>> queue.take(now=10.0), queue.take(now=10.0)
    (1, None)
    """

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        self._round_robin = policy.name == "round-robin"
        self._fair = FairShare(policy) if policy.name == "fair-share" else None
        self._batches: dict[int, Queued] = {}  # id -> batch, every queued batch
        self._jobs: dict[str, list[int]] = {}  # job -> ids of its queued batches, ascending, round-robin
        self._served: dict[str, int] = {}  # job -> turn it was last served in, round-robin
        self._turn = 0
        # heaps with lazy deletion: an entry whose batch has left, or whose job's key
        # changed, is dropped when it comes to the top, and all are rebuilt from the
        # queued batches once they hold more stale entries than live ones
        self._by_id: list[int] = []  # fifo
        self._by_age: list[tuple[float, int]] = []  # (submitted, id), with a bound
        self._by_turn: list[tuple[int, int, str]] = []  # (last served or -1, oldest id, job), round-robin

    @property
    def policy(self) -> Policy:
        """The policy the queue was made with (read-only: the heaps are built for it)."""
        return self._policy

    def __len__(self) -> int:
        """The number of queued batches."""
        return len(self._batches)

    def add(self, batch: Queued) -> bool:
        """Queue ``batch`` unless a batch with its id is queued already.

        Parameters
        ----------
        batch : Queued
            Its id, job and acceptance time (epoch seconds).

        Returns
        -------
        bool
            True if it was queued, False (and nothing changed) if its id was there.

        Examples
        --------
        >>> from backends.vqpu.server.store import Queued
        >>> queue = RunQueue(Policy("fifo"))
        >>> queue.add(Queued(7, "a", 0.0)), queue.add(Queued(7, "b", 1.0)), len(queue)
        (True, False, 1)
        """
        if batch.id in self._batches:
            return False
        self._batches[batch.id] = batch
        if self._policy.max_wait is not None:
            heapq.heappush(self._by_age, (batch.submitted, batch.id))
        if self._round_robin:
            ids = self._jobs.setdefault(batch.job, [])
            bisect.insort(ids, batch.id)
            if ids[0] == batch.id:  # the job's oldest batch changed: its key too
                self._push_turn(batch.job)
        elif self._fair is not None:
            self._fair.add(batch)
        else:
            heapq.heappush(self._by_id, batch.id)
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
            (``round-robin``; jobs never served first, by their oldest batch), the oldest
            batch of the account with the highest fair-share factor (``fair-share``) or
            the oldest batch (``fifo``).

        Examples
        --------
        >>> from backends.vqpu.server.store import Queued
        >>> queue = RunQueue(Policy("round-robin"))
        >>> for batch in [Queued(1, "a", 0.0), Queued(2, "a", 0.0), Queued(3, "b", 0.0)]:
        ...     _ = queue.add(batch)
        >>> queue.take(now=0.0), queue.take(now=0.0), queue.take(now=0.0), queue.take(now=0.0)
        (1, 3, 2, None)
        """
        if self._fair is not None:
            self._fair.release(now)  # the last batch's time ends: its account is charged before the pick
        if not self._batches:
            return None
        chosen = self._overdue(now)
        if chosen is None:
            if self._fair is not None:
                chosen = self._fair.pick(self._batches, now)
            else:
                chosen = self._oldest_of_least_served() if self._round_robin else self._oldest()
        batch = self._batches.pop(chosen)
        if self._round_robin:
            self._served_one(batch.job, chosen)
        if self._fair is not None:
            self._fair.taken(batch, now)
        self._compact()
        return chosen

    def _served_one(self, job: str, batch_id: int) -> None:
        """Round-robin: take ``batch_id`` off its job's list and give the job this turn."""
        ids = self._jobs[job]
        del ids[bisect.bisect_left(ids, batch_id)]
        self._turn += 1
        self._served[job] = self._turn
        if ids:
            self._push_turn(job)
        else:
            del self._jobs[job]

    def _push_turn(self, job: str) -> None:
        heapq.heappush(self._by_turn, (self._served.get(job, -1), self._jobs[job][0], job))

    def _compact(self) -> None:
        """Rebuild the heaps from the queued batches once they hold as many stale entries as live ones."""
        limit = 2 * len(self._batches) + 64  # amortised: at least that many pushes since the last rebuild
        if len(self._by_id) > limit:
            self._by_id = list(self._batches)
            heapq.heapify(self._by_id)
        if len(self._by_age) > limit:
            self._by_age = [(b.submitted, b.id) for b in self._batches.values()]
            heapq.heapify(self._by_age)
        if len(self._by_turn) > limit:
            self._by_turn = [(self._served.get(job, -1), ids[0], job) for job, ids in self._jobs.items()]
            heapq.heapify(self._by_turn)
        if self._fair is not None:
            self._fair.compact(self._batches, limit)

    def _oldest(self) -> int:
        while self._by_id[0] not in self._batches:
            heapq.heappop(self._by_id)
        return self._by_id[0]

    def _overdue(self, now: float) -> int | None:
        """The longest waiting batch (ties: lowest id) if it waited more than ``max_wait``."""
        if self._policy.max_wait is None:
            return None
        while True:
            submitted, batch_id = self._by_age[0]
            if (batch := self._batches.get(batch_id)) is not None and batch.submitted == submitted:
                return batch_id if now - submitted > self._policy.max_wait else None
            heapq.heappop(self._by_age)

    def _oldest_of_least_served(self) -> int:
        while True:
            served, oldest, job = self._by_turn[0]
            ids = self._jobs.get(job)
            if ids and ids[0] == oldest and self._served.get(job, -1) == served:
                return oldest
            heapq.heappop(self._by_turn)


class FairShare:
    """The ``fair-share`` part of a :class:`RunQueue`: a FIFO heap per account, and decayed usage.

    Not thread-safe (the run queue's caller holds the lock). Memory is linear in the
    queued batches and the accounts with work or usage not yet decayed away.

    Parameters
    ----------
    policy : Policy
        Its ``half_life`` and ``shares`` (None: every account has share 1).

    Examples
    --------
    >>> fair = FairShare(Policy("fair-share", half_life=60.0))
    >>> fair.add(Queued(1, "j1", 0.0, "phys")); fair.add(Queued(2, "j2", 0.0, "chem"))
    >>> fair.taken(Queued(1, "j1", 0.0, "phys"), now=0.0)
    >>> fair.add(Queued(3, "j1", 0.0, "phys"))
    >>> fair.release(now=10.0)  # phys held the device 10 s
    >>> fair.factors(now=10.0)  # phys used everything with half the shares: 2 ** (-1 / 0.5)
    {'chem': 1.0, 'phys': 0.25}
    """

    def __init__(self, policy: Policy) -> None:
        self._share = policy.shares or (lambda account: 1.0)
        self._usage = DecayedUsage(policy.half_life)
        self._queues: dict[str, list[int]] = {}  # account -> heap of ids, with ids already taken
        self._live: dict[str, int] = {}  # account -> its batches still queued
        self._holder: tuple[int, str, float] | None = None  # batch on the device, its account, since
        self._entries = 0  # ids in the heaps, with those already taken

    def add(self, batch: Queued) -> None:
        """Queue ``batch`` behind the older batches of its account; a batch put back is not charged.

        Examples
        --------
        >>> fair = FairShare(Policy("fair-share"))
        >>> fair.add(Queued(4, "j", 0.0, "phys")); fair.factors(now=0.0)
        {'phys': 1.0}
        """
        heapq.heappush(self._queues.setdefault(batch.account, []), batch.id)
        self._entries += 1
        self._live[batch.account] = self._live.get(batch.account, 0) + 1
        if self._holder is not None and self._holder[0] == batch.id:
            self._holder = None  # it did not run: put back, e.g. the device stopped answering

    def pick(self, queued: dict[int, Queued], now: float) -> int:
        """The oldest queued batch of the account with the highest factor (ties: the oldest batch).

        Examples
        --------
        >>> fair = FairShare(Policy("fair-share"))
        >>> batches = {1: Queued(1, "j", 0.0, "a"), 2: Queued(2, "k", 0.0, "b")}
        >>> for batch in batches.values():
        ...     fair.add(batch)
        >>> fair.pick(batches, now=0.0)  # no usage yet: the oldest batch
        1
        """
        factors = self.factors(now)
        best: tuple[float, int] | None = None
        for account, ids in self._queues.items():
            while ids[0] not in queued:  # taken already (over the waiting-time bound)
                heapq.heappop(ids)
                self._entries -= 1
            if best is None or (-factors[account], ids[0]) < best:
                best = (-factors[account], ids[0])
        if best is None:
            raise LookupError("no account has a batch queued")
        return best[1]

    def taken(self, batch: Queued, now: float) -> None:
        """``batch`` leaves the queue for the device at ``now``: its account holds the device from then.

        Examples
        --------
        >>> fair = FairShare(Policy("fair-share"))
        >>> fair.add(Queued(1, "j", 0.0, "a")); fair.taken(Queued(1, "j", 0.0, "a"), now=1.0)
        >>> fair.factors(now=1.0)  # no account has work left
        {}
        """
        self._live[batch.account] -= 1
        if not self._live[batch.account]:
            del self._live[batch.account]
            self._entries -= len(self._queues.pop(batch.account))  # its stale ids go with it
        self.release(now)
        self._holder = (batch.id, batch.account, now)

    def release(self, now: float) -> None:
        """Charge the account holding the device its time until ``now``; nobody holds it then.

        Examples
        --------
        >>> fair = FairShare(Policy("fair-share"))
        >>> fair.add(Queued(1, "j", 0.0, "a")); fair.add(Queued(2, "k", 0.0, "b"))
        >>> fair.taken(Queued(1, "j", 0.0, "a"), now=0.0); fair.add(Queued(3, "j", 0.0, "a"))
        >>> fair.release(now=2.0); fair.release(now=5.0)  # idle from 2 on: charged once
        >>> fair.factors(now=5.0)  # a used everything, with half of the shares
        {'a': 0.25, 'b': 1.0}
        """
        if self._holder is not None:
            _, account, since = self._holder
            self._usage.charge(account, max(0.0, now - since), now=now)
        self._holder = None

    def compact(self, queued: dict[int, Queued], limit: int) -> None:
        """Rebuild the heaps from ``queued`` once they hold more than ``limit`` ids (stale ones too).

        Examples
        --------
        >>> fair = FairShare(Policy("fair-share"))
        >>> first, second = Queued(1, "j", 0.0, "a"), Queued(2, "j", 0.0, "a")
        >>> fair.add(first); fair.add(second)
        >>> fair.taken(second, now=0.0)  # over the waiting-time bound: 2 stays in the heap
        >>> fair.compact({1: first}, limit=0)
        >>> fair._queues
        {'a': [1]}
        """
        if self._entries > limit:
            self._queues = {account: [] for account in self._queues}
            for batch in queued.values():
                self._queues[batch.account].append(batch.id)
            for ids in self._queues.values():
                heapq.heapify(ids)
            self._entries = len(queued)

    def factors(self, now: float) -> dict[str, float]:
        """The fair-share factor of each account with queued work at ``now``, by account name.

        Shares are normalised over these accounts and those with usage left, usage over
        every account's (:func:`~backends.vqpu.server.shares.fair_share_factors`).

        Examples
        --------
        >>> FairShare(Policy("fair-share")).factors(now=0.0)
        {}
        """
        usage = self._usage.at(now=now)
        rated = sorted({*self._queues, *usage})
        factors = fair_share_factors(usage, {account: self._share(account) for account in rated})
        return {account: factors[account] for account in sorted(self._queues)}
