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

>>> from backends.vqpu.store import Queued
>>> queue = [Queued(1, "heavy", 0.0), Queued(2, "heavy", 0.0), Queued(3, "light", 0.1)]
>>> fifo, fair = make_policy("fifo"), make_policy("round-robin")
>>> fifo.choose(queue, now=1.0), fair.choose(queue, now=1.0)
(1, 1)
>>> fair.choose(queue[1:], now=1.1)  # heavy was served last: light's turn
3
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from backends.validation import check_choice, check_nonnegative
from backends.vqpu.store import Queued

__all__ = ["POLICIES", "Policy", "make_policy"]

#: Names of the scheduling policies.
POLICIES = ("fifo", "round-robin")


@dataclass
class Policy:
    """Pick the next batch from the queue; remembers when each job was last served.

    Parameters
    ----------
    name : {"fifo", "round-robin"}
        Base order, see the module docstring.
    max_wait : float or None
        Seconds after which a waiting batch goes first; None for no bound.

    Examples
    --------
    >>> from backends.vqpu.store import Queued
    >>> bounded = Policy("round-robin", max_wait=5.0)
    >>> bounded.choose([Queued(1, "a", 10.0), Queued(2, "b", 0.0)], now=10.0)  # 2 waited 10 s
    2
    """

    name: str
    max_wait: float | None = None
    _served: dict[str, int] = field(default_factory=dict, repr=False)
    _turn: int = field(default=0, repr=False)

    def choose(self, queue: Sequence[Queued], *, now: float) -> int:
        """Return the id of the batch to run next and record that its job was served.

        Parameters
        ----------
        queue : sequence of Queued
            The queued batches, in arrival (id) order; not empty.
        now : float
            Current epoch seconds, for the waiting-time bound.

        Returns
        -------
        int
            The chosen batch's id.

        Examples
        --------
        >>> from backends.vqpu.store import Queued
        >>> policy = Policy("round-robin")
        >>> queue = [Queued(1, "a", 0.0), Queued(2, "a", 0.0), Queued(3, "b", 0.0)]
        >>> policy.choose(queue, now=0.0), policy.choose(queue[1:], now=0.0)
        (1, 3)
        """
        bound = self.max_wait
        overdue = [b for b in queue if now - b.submitted > bound] if bound is not None else []
        if overdue:
            chosen = min(overdue, key=lambda b: (b.submitted, b.id))
        elif self.name == "round-robin":
            chosen = min(queue, key=lambda b: (self._served.get(b.job, -1), b.id))
        else:
            chosen = queue[0]
        self._turn += 1
        self._served[chosen.job] = self._turn
        return chosen.id


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
