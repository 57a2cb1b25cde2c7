"""The running Slurm jobs that hold the vQPU resource, polled once a second, never per request.

A Slurm-bound server admits a request when its MUNGE credential's UID owns a job that is
RUNNING and holds the vQPU resource (a licence ``vqpu`` or ``vqpu@server``, or a GRES
``vqpu``). :class:`JobTable` keeps that set from one ``squeue`` call per poll (about
7 ms), so checking a request is a dictionary look-up. It fails closed: when the last
successful poll is older than ``max_age`` seconds (Slurm unreachable, ``squeue`` failing),
every look-up raises :class:`SlurmUnavailableError` and the server answers 503.

Rules, documented for users:

- a job is admitted from the poll that first sees it RUNNING to the poll that no longer
  does: a job that ended, was cancelled, requeued or suspended is refused within
  ``interval`` seconds (1 s by default) plus one ``squeue`` call;
- a job not in the set is looked up again at once (one ``squeue`` call), at most once
  every ``recheck`` seconds (0.25 s) whatever the number of such requests: a job that has
  just started is admitted from its first request, and a MUNGE-authenticated caller
  naming jobs that do not run cannot make the server query Slurm more often than that;
- a job array's tasks are jobs of their own: a task's credential names its own
  ``SLURM_JOB_ID``, and the task must hold the resource;
- a heterogeneous job is admitted under its leader's id (the ``SLURM_JOB_ID`` of every
  component) when any of its components holds the resource, with the largest count held;
- the count held (``vqpu:N``) is the job's ``shares``.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from backends.errors import BackendError
from backends.utils.validation import check_interval
from backends.vqpu.server.periodic import Periodic

__all__ = ["SlurmJob", "SlurmUnavailableError", "JobTable", "parse_squeue", "resource_count"]

#: ``squeue`` columns: unique job id, job id as shown (``L+o`` for heterogeneous components),
#: UID, user, account, licences, GRES per node.
SQUEUE_FORMAT = "%A|%i|%U|%u|%a|%W|%b"


class SlurmUnavailableError(BackendError):
    """Slurm's job list could not be read recently enough to decide; the server refuses (503).

    Examples
    --------
    >>> JobTable(squeue=["false"]).lookup("7")
    Traceback (most recent call last):
    ...
    backends.vqpu.server.slurm_jobs.SlurmUnavailableError: Slurm cannot be reached to check jobs: ...
    """


@dataclass(frozen=True)
class SlurmJob:
    """A running job that holds the vQPU resource.

    Attributes
    ----------
    job_id : str
        The job's id as its ``SLURM_JOB_ID`` reads (a heterogeneous job: the leader's).
    uid : int
        The owner's UID, compared with the credential's.
    user, account : str
        Owner and Slurm account, for accounting and quotas.
    shares : int
        The count of the resource held (``vqpu:N``), at least 1.

    Examples
    --------
    >>> parse_squeue("7|7|1000|ann|phys|vqpu:2|N/A")["7"]
    SlurmJob(job_id='7', uid=1000, user='ann', account='phys', shares=2)
    """

    job_id: str
    uid: int
    user: str
    account: str
    shares: int


def resource_count(field: str, resource: str = "vqpu") -> int:
    """How many of ``resource`` a ``squeue`` licence or GRES field holds (0 if none).

    Parameters
    ----------
    field : str
        ``%W`` (``vqpu:2``, ``vqpu@qsrv:1,lqpu:1``) or ``%b`` (``gres:vqpu:1``,
        ``gres/vqpu:2``, ``N/A``).
    resource : str
        The resource's name (before ``@server`` for a remote licence).

    Examples
    --------
    >>> resource_count("vqpu@qsrv:2,lqpu:1"), resource_count("gres:vqpu:3"), resource_count("gres/gpu:1")
    (2, 3, 0)
    >>> resource_count("(null)"), resource_count("vqpu"), resource_count("vqpuX:4")
    (0, 1, 0)
    """
    total = 0
    for item in field.split(","):
        parts = re.split(r"[:/]", item.strip())
        if parts and parts[0] == "gres":
            parts = parts[1:]
        if not parts or parts[0].split("@")[0] != resource:
            continue
        count = parts[-1] if len(parts) > 1 else "1"
        total += int(count) if count.isdigit() else 1
    return total


def parse_squeue(text: str, resource: str = "vqpu") -> dict[str, SlurmJob]:
    r"""Jobs holding ``resource`` from ``squeue -h -t R -o SQUEUE_FORMAT`` output, by job id.

    Examples
    --------
    >>> jobs = parse_squeue("7|7|1000|ann|phys|vqpu@qsrv:2|N/A\n8|8|1001|bob|chem|(null)|N/A\n"
    ...                     "9|9+0|1002|cy|chem|(null)|N/A\n10|9+1|1002|cy|chem|(null)|gres:vqpu:1\n")
    >>> sorted(jobs), jobs["7"].shares, jobs["9"].user, jobs["10"].shares
    (['10', '7', '9'], 2, 'cy', 1)
    """
    jobs: dict[str, SlurmJob] = {}
    for line in text.splitlines():
        fields = line.strip().split("|")
        if len(fields) != 7 or not fields[2].isdigit():
            continue
        unique, shown, uid, user, account, licences, gres = fields
        shares = resource_count(licences, resource) + resource_count(gres, resource)
        if shares == 0:
            continue
        for job_id in {unique, shown.split("+")[0]}:
            held = jobs.get(job_id)
            if held is None or held.shares < shares:
                jobs[job_id] = SlurmJob(job_id, int(uid), user, account, shares)
    return jobs


def _squeue(command: Sequence[str]) -> str:
    """Run ``squeue`` for the running jobs; its output, or :class:`SlurmUnavailableError`."""
    try:
        result = subprocess.run(
            [*command, "-h", "-t", "R", "-o", SQUEUE_FORMAT], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SlurmUnavailableError(f"squeue could not run: {exc}") from None
    if result.returncode != 0:
        raise SlurmUnavailableError(f"squeue failed ({result.returncode}): {result.stderr.strip()[:200]}")
    return result.stdout


class JobTable:
    r"""The running jobs holding the vQPU resource, refreshed by a background thread.

    Parameters
    ----------
    resource : str
        The licence or GRES name (``vqpu``).
    interval : float
        Seconds between polls (the revocation delay after a job ends).
    max_age : float
        Seconds after the last successful poll beyond which every look-up fails closed.
    squeue : sequence of str
        The ``squeue`` command (a path, or a wrapper with options).
    clock : callable
        Monotonic seconds (tests pass their own).
    recheck : float
        Least seconds between two polls made for a job not in the set.

    Examples
    --------
    >>> table = JobTable(squeue=["printf", "5|5|1000|ann|phys|vqpu:1|N/A\n"])
    >>> table.refresh(); table.lookup("5").user, table.lookup("6")
    ('ann', None)
    """

    def __init__(
        self,
        *,
        resource: str = "vqpu",
        interval: float = 1.0,
        max_age: float = 5.0,
        squeue: Sequence[str] = ("squeue",),
        clock: Callable[[], float] = time.monotonic,
        recheck: float = 0.25,
    ) -> None:
        self.resource = resource
        self.recheck = check_interval(recheck, "recheck", 0, 3600.0)
        self._polled_at = -float("inf")
        self.max_age = check_interval(max_age, "max_age", 0, 3600.0)
        self.command = list(squeue)
        self.clock = clock
        self._jobs: dict[str, SlurmJob] = {}
        self._fresh_at: float | None = None
        self._problem = "Slurm's job list has not been read yet"
        self._periodic = Periodic(self.refresh, interval, "vqpu-slurm-jobs")

    def refresh(self) -> None:
        r"""Poll ``squeue`` once; on failure keep the old set and remember why.

        Examples
        --------
        >>> table = JobTable(squeue=["printf", "5|5|1000|ann|phys|vqpu:1|N/A\n"])
        >>> table.refresh(); sorted(table._jobs)
        ['5']
        """
        self._polled_at = self.clock()
        try:
            jobs = parse_squeue(_squeue(self.command), self.resource)
        except SlurmUnavailableError as exc:
            self._problem = str(exc)
            return
        self._jobs, self._fresh_at = jobs, self.clock()

    def lookup(self, job_id: str) -> SlurmJob | None:
        r"""The running job ``job_id`` holding the resource, or ``None``.

        Raises
        ------
        SlurmUnavailableError
            If the last successful poll is older than ``max_age`` (fail closed).

        Examples
        --------
        >>> table = JobTable(squeue=["printf", "5|5|1000|ann|phys|vqpu:1|N/A\n"])
        >>> table.refresh(); table.lookup("5").shares, table.lookup("9")
        (1, None)
        """
        if job_id not in self._jobs and self.clock() - self._polled_at >= self.recheck:
            self.refresh()  # a job that has just started: Slurm is asked again, at most every recheck s
        if self._fresh_at is None or self.clock() - self._fresh_at > self.max_age:
            raise SlurmUnavailableError(f"Slurm cannot be reached to check jobs: {self._problem}")
        return self._jobs.get(job_id)

    def start(self) -> JobTable:
        r"""Poll now, then every ``interval`` seconds in a daemon thread; returns ``self``.

        Examples
        --------
        >>> table = JobTable(squeue=["printf", "5|5|1000|ann|phys|vqpu:1|N/A\n"], interval=0.1).start()
        >>> table.lookup("5").user
        'ann'
        >>> table.stop()
        """
        self.refresh()
        self._periodic.start()
        return self

    def stop(self) -> None:
        """Stop polling; safe to call twice.

        Examples
        --------
        >>> table = JobTable(squeue=["true"]).start()
        >>> table.stop(); table.stop()
        """
        self._periodic.stop(timeout=15)
