"""Accounting an HPC centre can bill from, and quotas of quantum seconds per job, user and account.

A job is one token (one Slurm job); a user owns any number of jobs (the third field of
the token file, see :mod:`backends.vqpu.server.tokens`); under ``--slurm-auth`` each
job also belongs to a Slurm account, whose quota comes from the account file
(:mod:`backends.vqpu.server.shares`). For each, over its batches that started:

- ``quantum_seconds``: device execution only (plus the emulated ``--latency``);
- ``transpile_seconds``: decoding and transpiling on the server's CPU, recorded apart;
- ``queue_seconds``: the batches' waits from acceptance to start, summed;
- ``batches`` started, and the ``circuits`` and ``shots`` (circuits x shots per
  circuit) of those that ended with counts (a failed batch, e.g. one refused over
  quota when it was due, bills its device and queue time only).

:class:`Ledger` keeps these sums in memory while the server runs, so a quota check or
a ``/metrics`` scrape costs nothing per batch; at start it is rebuilt from the store by
one SQLite query (:meth:`Ledger.of_store`), in memory per job, user and account, not
per batch.
:func:`usage_by` computes the same from stored batches (``report``).

>>> quotas = Quotas(job_seconds=10.0)
>>> ledger = Ledger()
>>> quotas.refusal(Caller("job-1", "alice"), ledger) is None
True
>>> ledger.charge(Caller("job-1", "alice"), Usage(1, 2, 200, 12.5, 0.1, 0.0))
>>> quotas.refusal(Caller("job-1", "alice"), ledger)
"job 'job-1' used 12.5 quantum seconds, its quota is 10 s"
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import InitVar, dataclass, fields
from typing import ClassVar

from backends.utils.validation import check_nonnegative
from backends.vqpu.server.shares import AccountBook, AccountsUnavailableError
from backends.vqpu.server.store import Batch, Store
from backends.vqpu.server.tokens import Caller

__all__ = ["Ledger", "Quotas", "Usage", "usage_by", "usage_of"]


@dataclass
class Usage:
    """What a job or a user consumed.

    Attributes
    ----------
    batches, circuits, shots : int
        Batches started; circuits and shots (circuits x shots per circuit) of the
        batches that ended with counts.
    quantum_seconds : float
        Device seconds (execution only).
    transpile_seconds : float
        Server CPU seconds spent decoding and transpiling, not on the device.
    queue_seconds : float
        Seconds the batches waited in the queue, summed.

    Examples
    --------
    >>> Usage(batches=2, quantum_seconds=0.5).shots
    0
    """

    batches: int = 0
    circuits: int = 0
    shots: int = 0
    quantum_seconds: float = 0.0
    transpile_seconds: float = 0.0
    queue_seconds: float = 0.0

    def add(self, other: Usage) -> None:
        """Add ``other`` to this usage, field by field.

        Examples
        --------
        >>> total = Usage(1, 2, 200, 0.5, 0.1, 1.0)
        >>> total.add(Usage(1, 1, 100, 0.25, 0.0, 2.0))
        >>> total.batches, total.circuits, total.shots, total.quantum_seconds, total.queue_seconds
        (2, 3, 300, 0.75, 3.0)
        """
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


def usage_of(batch: Batch) -> Usage:
    """The usage of one stored batch (zero if it never started).

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> done = Batch(1, "j", "k", 2, 3, 100, None, "done", 10.0, 12.0, 13.0, 0.5, 1, None, None, 0)
    >>> usage_of(done)
    Usage(batches=1, circuits=2, shots=200, quantum_seconds=0.5, transpile_seconds=0.0, queue_seconds=2.0)
    >>> usage_of(Batch(2, "j", "l", 2, 3, 100, None, "queued", 10.0, None, None, None, 0, None, None, 0))
    Usage(batches=0, circuits=0, shots=0, quantum_seconds=0.0, transpile_seconds=0.0, queue_seconds=0.0)
    """
    if batch.started is None:
        return Usage()
    done = batch.status == "done"
    return Usage(
        batches=1,
        circuits=batch.circuits if done else 0,
        shots=batch.circuits * batch.shots if done else 0,
        quantum_seconds=batch.quantum_seconds or 0.0,
        transpile_seconds=batch.transpile_seconds or 0.0,
        queue_seconds=batch.started - batch.submitted,
    )


def usage_by(batches: Iterable[Batch], key: Callable[[Batch], str]) -> dict[str, Usage]:
    """Sum the usage of ``batches`` per ``key(batch)`` (e.g. job or user), sorted by key.

    Batches that never started count with zero usage, so every key appears.

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> batches = [
    ...     Batch(1, "j1", "a", 1, 2, 10, None, "done", 0.0, 1.0, 2.0, 0.5, 1, None, None, 0, "bob"),
    ...     Batch(2, "j2", "a", 1, 2, 10, None, "done", 0.0, 2.0, 3.0, 0.25, 1, None, None, 0, "bob"),
    ...     Batch(3, "j3", "a", 1, 2, 10, None, "queued", 0.0, None, None, None, 0, None, None, 0, "al"),
    ... ]
    >>> by_user = usage_by(batches, lambda batch: batch.user)
    >>> {user: (u.batches, u.shots, u.quantum_seconds) for user, u in by_user.items()}
    {'al': (0, 0, 0.0), 'bob': (2, 20, 0.75)}
    """
    totals: dict[str, Usage] = {}
    for batch in batches:
        totals.setdefault(key(batch), Usage()).add(usage_of(batch))
    return dict(sorted(totals.items()))


#: The sums of :func:`usage_of` over the finished batches of each job, user and account.
_FINISHED_USAGE = """
SELECT job, user, account, count(*),
       sum(CASE WHEN status = 'done' THEN circuits ELSE 0 END),
       sum(CASE WHEN status = 'done' THEN circuits * shots ELSE 0 END),
       total(quantum_seconds), total(transpile_seconds), total(started - submitted)
FROM batches WHERE status IN ('done', 'failed') AND started IS NOT NULL
GROUP BY job, user, account
"""


class Ledger:
    """Usage per job, per user and per account while the server runs; thread-safe.

    Parameters
    ----------
    usage : iterable of (Caller, Usage), optional
        Usage to start from, charged to each caller's job, user and account.

    Examples
    --------
    >>> ledger = Ledger([(Caller("j", "al"), Usage(batches=1, quantum_seconds=0.5))])
    >>> ledger.quantum_seconds(Caller("j", "al"))
    (0.5, 0.5)
    """

    def __init__(self, usage: Iterable[tuple[Caller, Usage]] = ()) -> None:
        self._lock = threading.Lock()
        self.jobs: dict[str, Usage] = {}
        self.users: dict[str, Usage] = {}
        self.accounts: dict[str, Usage] = {}  # "" for callers without a Slurm account
        for caller, used in usage:
            self.charge(caller, used)

    @classmethod
    def of_store(cls, store: Store) -> Ledger:
        """The usage of the batches finished in ``store``, so that a restarted server bills on.

        Batches still queued or running are charged when they finish. SQLite sums the
        batches (:func:`usage_of` of each), so the ledger takes memory and time per
        job, user and account, not per batch stored.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> store = Store(Path(folder.name) / "vqpu.db")
        >>> batch, _ = store.accept(job="j", user="al", key="k", payload=b"qpy", circuits=2,
        ...                         qubits=2, shots=10, seed=None, submitted=1.0, account="phys")
        >>> _ = store.start(batch.id, started=3.0)
        >>> store.finish(batch.id, ended=4.0, quantum_seconds=0.5, counts=[{"0": 10}, {"1": 10}])
        >>> Ledger.of_store(store).jobs["j"]
        Usage(batches=1, circuits=2, shots=20, quantum_seconds=0.5, transpile_seconds=0.0, queue_seconds=2.0)
        >>> Ledger.of_store(store).accounts["phys"].quantum_seconds
        0.5
        >>> store.close(); folder.cleanup()
        """
        rows = store.query(_FINISHED_USAGE)
        return cls(
            (Caller(job, user, account), Usage(batches, circuits, shots, quantum, transpile, queue))
            for job, user, account, batches, circuits, shots, quantum, transpile, queue in rows
        )

    def charge(self, caller: Caller, usage: Usage) -> None:
        """Add ``usage`` to the job, the user and the account of ``caller``.

        Examples
        --------
        >>> ledger = Ledger()
        >>> ledger.charge(Caller("j1", "al"), Usage(1, 1, 10, 0.5, 0.0, 0.0))
        >>> ledger.charge(Caller("j2", "al"), Usage(1, 1, 10, 0.25, 0.0, 0.0))
        >>> ledger.jobs["j1"].batches, ledger.users["al"].batches
        (1, 2)
        """
        with self._lock:
            self.jobs.setdefault(caller.job, Usage()).add(usage)
            self.users.setdefault(caller.user, Usage()).add(usage)
            self.accounts.setdefault(caller.account, Usage()).add(usage)

    def quantum_seconds(self, caller: Caller) -> tuple[float, float]:
        """Quantum seconds used so far by the job and by the user of ``caller``.

        Examples
        --------
        >>> ledger = Ledger()
        >>> ledger.charge(Caller("j1", "al"), Usage(quantum_seconds=0.5))
        >>> ledger.charge(Caller("j2", "al"), Usage(quantum_seconds=0.25))
        >>> ledger.quantum_seconds(Caller("j2", "al")), ledger.quantum_seconds(Caller("j3", "bo"))
        ((0.25, 0.75), (0.0, 0.0))
        """
        with self._lock:
            job, user = self.jobs.get(caller.job), self.users.get(caller.user)
            return (job.quantum_seconds if job else 0.0, user.quantum_seconds if user else 0.0)

    def account_seconds(self, account: str) -> float:
        """Quantum seconds used so far by the jobs of ``account``.

        Examples
        --------
        >>> ledger = Ledger()
        >>> ledger.charge(Caller("j1", "al", "phys"), Usage(quantum_seconds=0.5))
        >>> ledger.charge(Caller("j2", "bo", "phys"), Usage(quantum_seconds=0.25))
        >>> ledger.account_seconds("phys"), ledger.account_seconds("chem")
        (0.75, 0.0)
        """
        with self._lock:
            used = self.accounts.get(account)
            return used.quantum_seconds if used else 0.0

    def snapshot(self) -> tuple[dict[str, Usage], dict[str, Usage]]:
        """Copies of the usage per job and per user.

        Examples
        --------
        >>> ledger = Ledger()
        >>> ledger.charge(Caller("j1", "al"), Usage(batches=1))
        >>> jobs, users = ledger.snapshot()
        >>> jobs["j1"].batches = 99  # a copy: the ledger is unchanged
        >>> ledger.jobs["j1"].batches, sorted(users)
        (1, ['al'])
        """
        with self._lock:
            copy = {name: Usage(**vars(usage)) for name, usage in self.jobs.items()}
            return copy, {name: Usage(**vars(usage)) for name, usage in self.users.items()}


@dataclass(frozen=True)
class Quotas:
    """Quantum seconds each job (token), each user and each Slurm account may use; None means no quota.

    A batch is refused once its job, user or account has used its quota (so the last
    batch that is let in may overrun it by its own quantum time).

    Parameters
    ----------
    job_seconds : float or None
        Quota of every job, in device seconds.
    user_seconds : float or None
        Quota of every user, summed over the user's jobs, in device seconds.
    accounts : AccountBook or None
        The account file (:mod:`backends.vqpu.server.shares`): the quota of each Slurm
        account, summed over its jobs. Callers without an account have no account
        quota. Kept out of the dataclass fields, so ``asdict`` shows the two above.

    Raises
    ------
    InvalidParameterError
        If a quota is negative.

    Examples
    --------
    >>> Quotas(user_seconds=60.0).job_seconds is None
    True
    >>> Quotas(job_seconds=-1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: ...job_seconds...
    """

    job_seconds: float | None = None
    user_seconds: float | None = None
    accounts: InitVar[AccountBook | None] = None
    #: The account file given as ``accounts`` (an instance attribute; None without one).
    account_book: ClassVar[AccountBook | None] = None

    def __post_init__(self, accounts: AccountBook | None) -> None:
        for name in ("job_seconds", "user_seconds"):
            if (value := getattr(self, name)) is not None:
                check_nonnegative(value, name)
        object.__setattr__(self, "account_book", accounts)

    def unavailable(self) -> str | None:
        """Why the account file is unusable now (every submission is refused meanwhile), or None.

        Examples
        --------
        >>> Quotas().unavailable() is None
        True
        """
        return None if self.account_book is None else self.account_book.problem()

    def refusal(self, caller: Caller, ledger: Ledger) -> str | None:
        """The reason to refuse a batch of ``caller``, or None if its quotas allow it.

        While the account file is unusable every caller with an account is refused
        (fail closed), with the file's problem as the reason.

        Examples
        --------
        >>> ledger = Ledger()
        >>> ledger.charge(Caller("j1", "al"), Usage(quantum_seconds=3.0))
        >>> quotas = Quotas(user_seconds=5.0)
        >>> quotas.refusal(Caller("j2", "al"), ledger) is None
        True
        >>> ledger.charge(Caller("j2", "al"), Usage(quantum_seconds=2.0))
        >>> quotas.refusal(Caller("j3", "al"), ledger)
        "user 'al' used 5 quantum seconds, the quota is 5 s"
        """
        job_used, user_used = ledger.quantum_seconds(caller)
        if self.job_seconds is not None and job_used >= self.job_seconds:
            return (
                f"job {caller.job!r} used {job_used:.6g} quantum seconds, its quota is {self.job_seconds:g} s"
            )
        if self.user_seconds is not None and user_used >= self.user_seconds:
            return (
                f"user {caller.user!r} used {user_used:.6g} quantum seconds, "
                f"the quota is {self.user_seconds:g} s"
            )
        return self._account_refusal(caller, ledger)

    def _account_refusal(self, caller: Caller, ledger: Ledger) -> str | None:
        """The reason to refuse ``caller`` over its account's quota (or an unusable file), or None."""
        if self.account_book is None or not caller.account:
            return None
        try:
            quota = self.account_book.terms(caller.account).seconds
        except AccountsUnavailableError as exc:
            return str(exc)
        used = ledger.account_seconds(caller.account)
        if quota is not None and used >= quota:
            return (
                f"account {caller.account!r} used {used:.6g} quantum seconds, "
                f"the account's quota is {quota:g} s"
            )
        return None
