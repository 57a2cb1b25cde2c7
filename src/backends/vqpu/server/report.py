"""Accounting of a vQPU run: occupancy, quantum time, queue times and job runtimes.

Definitions (all in seconds, from the batches stored by the server):

- span: first ``submitted`` to last ``ended`` (or ``until``);
- quantum time: sum of the batches' ``quantum_seconds`` (the device runs one batch
  at a time, so this is its busy time);
- occupancy: quantum time / span;
- queue time of a batch: ``started - submitted``;
- slowdown of a job by sharing: its runtime / (its runtime - the device seconds spent
  on other jobs' batches while it had a batch waiting), :func:`sharing_slowdowns`;
- runtime of a job: its first ``submitted`` to its last ``ended``, as the server sees it.

Billing (:mod:`backends.vqpu.server.accounting`): :func:`usage_tables` prints the usage per
Slurm account, per user and per job (quantum, transpile and queue seconds, batches,
circuits, shots), :func:`write_csv` writes one row per job with its user and account,
for the centre's billing, and the JSON summary holds the usage per account and user.
"""

from __future__ import annotations

import bisect
import csv
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import TYPE_CHECKING, Any, TextIO

from backends.utils.files import atomic_write, atomic_write_text
from backends.vqpu.server.accounting import Usage, usage_by
from backends.vqpu.server.store import Batch

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "CSV_FIELDS",
    "JobSummary",
    "Summary",
    "format_table",
    "save_figures",
    "sharing_slowdowns",
    "summarize",
    "usage_tables",
    "write_csv",
]

#: Columns of :func:`write_csv`, one row per job.
CSV_FIELDS = (
    "job",
    "user",
    "account",
    "batches",
    "circuits",
    "shots",
    "quantum_seconds",
    "transpile_seconds",
    "queue_seconds",
    "first_submitted",
    "last_ended",
)


@dataclass(frozen=True)
class JobSummary:
    """Accounting of one job.

    Attributes
    ----------
    job : str
        Job name.
    batches : int
        Batches the job submitted.
    quantum_seconds : float
        Device seconds spent on them.
    mean_queue_seconds : float
        Mean queue time of its started batches (0 if none started).
    runtime_seconds : float
        First submission to last end.
    first_submitted, last_ended : float
        Epoch seconds.

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> batches = [
    ...     Batch(1, "job-a", "k1", 1, 2, 100, None, "done", 0.0, 0.0, 1.0, 1.0, 1, None, None, 1, "ann"),
    ...     Batch(2, "job-b", "k1", 1, 2, 100, None, "done", 0.0, 1.0, 2.0, 1.0, 1, None, None, 1, "bob"),
    ... ]
    >>> job_b = summarize(batches).jobs[1]
    >>> job_b.job, job_b.mean_queue_seconds, job_b.runtime_seconds
    ('job-b', 1.0, 2.0)
    """

    job: str
    batches: int
    quantum_seconds: float
    mean_queue_seconds: float
    runtime_seconds: float
    first_submitted: float
    last_ended: float


@dataclass(frozen=True)
class Summary:
    """Accounting of a whole run (see the module docstring for the definitions).

    Attributes
    ----------
    batches, done, failed : int
        Batches accepted, finished with counts, finished with an error.
    span_seconds, quantum_seconds, occupancy, mean_queue_seconds : float
        Run-level metrics.
    jobs : list of JobSummary
        One entry per job, sorted by name.
    accounts, users : dict of str to Usage
        Usage per Slurm account (``""``: callers without one) and per user, sorted by name.

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> batches = [
    ...     Batch(1, "job-a", "k1", 1, 2, 100, None, "done", 0.0, 0.0, 1.0, 1.0, 1, None, None, 1, "ann"),
    ...     Batch(2, "job-b", "k1", 1, 2, 100, None, "done", 0.0, 1.0, 2.0, 1.0, 1, None, None, 1, "bob"),
    ... ]
    >>> summary = summarize(batches)
    >>> summary.batches, summary.span_seconds, summary.occupancy, [j.job for j in summary.jobs]
    (2, 2.0, 1.0, ['job-a', 'job-b'])
    """

    batches: int
    done: int
    failed: int
    span_seconds: float
    quantum_seconds: float
    occupancy: float
    mean_queue_seconds: float
    jobs: list[JobSummary]
    accounts: dict[str, Usage] = field(default_factory=dict)
    users: dict[str, Usage] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the summary as JSON-ready nested dicts.

        Examples
        --------
        >>> import json
        >>> summary = Summary(0, 0, 0, 0.0, 0.0, 0.0, 0.0, [JobSummary("j", 0, 0.0, 0.0, 0.0, 0.0, 0.0)])
        >>> data = summary.to_json()
        >>> data["jobs"][0]["job"], json.loads(json.dumps(data)) == data
        ('j', True)
        """
        return asdict(self)


def _queue_times(batches: Sequence[Batch]) -> list[float]:
    return [b.queue_seconds for b in batches if b.queue_seconds is not None]


def _ends(batches: Sequence[Batch], until: float | None) -> list[float]:
    return [b.ended for b in batches if b.ended is not None] or [until or max(b.submitted for b in batches)]


def _by_job(batches: Sequence[Batch]) -> dict[str, list[Batch]]:
    """The batches of each job, in the given order."""
    by_job: dict[str, list[Batch]] = {}
    for batch in batches:
        by_job.setdefault(batch.job, []).append(batch)
    return by_job


def _summarize_job(name: str, own: Sequence[Batch], until: float | None) -> JobSummary:
    """Accounting of the batches ``own`` of job ``name``."""
    first, last = min(b.submitted for b in own), max(_ends(own, until))
    return JobSummary(
        job=name,
        batches=len(own),
        quantum_seconds=sum(b.quantum_seconds or 0.0 for b in own),
        mean_queue_seconds=fmean(_queue_times(own) or [0.0]),
        runtime_seconds=last - first,
        first_submitted=first,
        last_ended=last,
    )


def summarize(batches: Sequence[Batch], *, until: float | None = None) -> Summary:
    """Compute the accounting of a run from its stored batches.

    Parameters
    ----------
    batches : sequence of Batch
        At least one batch, e.g. from :func:`backends.vqpu.server.store.read_batches`.
    until : float, optional
        End of the span in epoch seconds (e.g. now, for a live server); default the
        last ``ended``.

    Raises
    ------
    ValueError
        If ``batches`` is empty.

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> def b(i, job, s, t, e):
    ...     return Batch(i, job, str(i), 1, 2, 10, None, "done", s, t, e, e - t, 1, None, None, 1)
    >>> s = summarize([b(1, "a", 0.0, 0.0, 1.0), b(2, "b", 0.0, 1.0, 2.0), b(3, "a", 3.0, 3.0, 4.0)])
    >>> s.occupancy, s.mean_queue_seconds, [j.runtime_seconds for j in s.jobs]
    (0.75, 0.3333333333333333, [4.0, 2.0])
    """
    if not batches:
        raise ValueError("no batches to summarise: the database is empty")
    first = min(b.submitted for b in batches)
    span = (until if until is not None else max(_ends(batches, until))) - first
    quantum = sum(b.quantum_seconds or 0.0 for b in batches)
    jobs = [_summarize_job(name, own, until) for name, own in sorted(_by_job(batches).items())]
    return Summary(
        batches=len(batches),
        done=sum(b.status == "done" for b in batches),
        failed=sum(b.status == "failed" for b in batches),
        span_seconds=span,
        quantum_seconds=quantum,
        occupancy=quantum / span if span > 0 else 0.0,
        mean_queue_seconds=fmean(_queue_times(batches) or [0.0]),
        jobs=jobs,
        accounts=usage_by(batches, lambda b: b.account),
        users=usage_by(batches, lambda b: b.user),
    )


class _BusyTime:
    """Device seconds spent on a set of non-overlapping batch executions before a time."""

    def __init__(self, batches: Sequence[Batch]) -> None:
        ran = sorted((b.started, b.ended) for b in batches if b.started is not None and b.ended is not None)
        self.starts = [start for start, _ in ran]
        self.ends = [end for _, end in ran]
        self.before = [0.0]
        for start, end in ran:
            self.before.append(self.before[-1] + end - start)

    def until(self, t: float) -> float:
        """Busy seconds in ``(-inf, t]``."""
        k = bisect.bisect_right(self.starts, t)
        return self.before[k - 1] + min(t, self.ends[k - 1]) - self.starts[k - 1] if k else 0.0

    def between(self, a: float, b: float) -> float:
        """Busy seconds in ``[a, b]``."""
        return self.until(b) - self.until(a)


def _merged(intervals: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The union of closed intervals, as sorted disjoint intervals."""
    union: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if union and a <= union[-1][1]:
            union[-1] = (union[-1][0], max(union[-1][1], b))
        else:
            union.append((a, b))
    return union


def sharing_slowdowns(batches: Sequence[Batch]) -> dict[str, float]:
    """How much sharing the device slowed each job: runtime / (runtime - delay by others).

    The delay by others of a job is the device time spent on other jobs' batches while
    the job had a batch waiting (the union of its batches' ``submitted``-``started``
    intervals); its runtime is first ``submitted`` to last ``ended``. So the slowdown is
    about 1 for a job that never gave way to another, and 2 for one that spent half its
    runtime waiting for other jobs. A job's wait behind its own earlier batches is not
    counted: a job that queues many batches at once is not slowed by its own backlog.
    Equal slowdowns mean the jobs gave way to each other in proportion to their runtimes;
    Jain's index over them is a share-aware fairness measure. The device runs one batch
    at a time; jobs with no finished batch are left out. O(n log n) for n batches.

    Parameters
    ----------
    batches : sequence of Batch
        As stored by the server (times in epoch seconds).

    Returns
    -------
    dict of str to float
        Job name -> slowdown (>= 1, dimensionless), sorted by name.

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> def b(i, job, s, t, e):
    ...     return Batch(i, job, str(i), 1, 2, 10, None, "done", s, t, e, e - t, 1, None, None, 1)
    >>> # FIFO: "heavy" queues three 1-second batches at 0, "light" one at 0.5
    >>> fifo = [b(1, "heavy", 0, 0, 1), b(2, "heavy", 0, 1, 2), b(3, "heavy", 0, 2, 3),
    ...         b(4, "light", 0.5, 3, 4)]
    >>> sharing_slowdowns(fifo)
    {'heavy': 1.0, 'light': 3.5}
    >>> # round-robin: the light batch goes next
    >>> rr = [b(1, "heavy", 0, 0, 1), b(4, "light", 0.5, 1, 2), b(2, "heavy", 0, 2, 3),
    ...       b(3, "heavy", 0, 3, 4)]
    >>> sharing_slowdowns(rr)
    {'heavy': 1.3333333333333333, 'light': 1.5}
    """
    busy = _BusyTime(batches)
    slowdowns = {}
    for job, own in sorted(_by_job(batches).items()):
        ends = [b.ended for b in own if b.ended is not None]
        if not ends:
            continue
        own_busy = _BusyTime(own)
        waits = _merged([(b.submitted, b.started) for b in own if b.started is not None])
        delay = sum(busy.between(a, z) - own_busy.between(a, z) for a, z in waits)
        runtime = max(ends) - min(b.submitted for b in own)
        if delay <= 0.0:
            slowdowns[job] = 1.0
        else:  # runtime == delay only if its own batches took no time: infinitely slowed
            slowdowns[job] = runtime / (runtime - delay) if runtime > delay else float("inf")
    return slowdowns


def format_table(summary: Summary) -> str:
    """Render a summary as a plain-text table (one row per job, then the totals).

    Examples
    --------
    >>> from backends.vqpu.server.store import Batch
    >>> batches = [
    ...     Batch(1, "job-a", "k1", 1, 2, 100, None, "done", 0.0, 0.0, 1.0, 1.0, 1, None, None, 1, "ann"),
    ...     Batch(2, "job-b", "k1", 1, 2, 100, None, "done", 0.0, 1.0, 2.0, 1.0, 1, None, None, 1, "bob"),
    ... ]
    >>> print(format_table(summarize(batches)))
    job                       batches  quantum s  mean queue s  runtime s
    job-a                           1      1.000         0.000      1.000
    job-b                           1      1.000         1.000      2.000
    all                             2      2.000         0.500      2.000
    occupancy 1.000  (done 2, failed 0)
    """
    lines = [f"{'job':<24} {'batches':>8} {'quantum s':>10} {'mean queue s':>13} {'runtime s':>10}"]
    lines += [
        f"{j.job:<24} {j.batches:>8} {j.quantum_seconds:>10.3f} {j.mean_queue_seconds:>13.3f} "
        f"{j.runtime_seconds:>10.3f}"
        for j in summary.jobs
    ]
    lines.append(
        f"{'all':<24} {summary.batches:>8} {summary.quantum_seconds:>10.3f} "
        f"{summary.mean_queue_seconds:>13.3f} {summary.span_seconds:>10.3f}"
    )
    lines.append(f"occupancy {summary.occupancy:.3f}  (done {summary.done}, failed {summary.failed})")
    return "\n".join(lines)


def save_figures(batches: Sequence[Batch], summary: Summary, directory: str | Path) -> list[Path]:
    """Write ``timeline.png`` (queue and execution per job) and ``jobs.png`` (per-job times).

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> import tempfile
    >>> from backends.vqpu.server.store import Batch
    >>> batches = [
    ...     Batch(1, "job-a", "k1", 1, 2, 100, None, "done", 0.0, 0.0, 1.0, 1.0, 1, None, None, 1, "ann"),
    ...     Batch(2, "job-b", "k1", 1, 2, 100, None, "done", 0.0, 1.0, 2.0, 1.0, 1, None, None, 1, "bob"),
    ... ]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = save_figures(batches, summarize(batches), folder)
    ...     print([path.name for path in written], all(path.stat().st_size > 0 for path in written))
    ['timeline.png', 'jobs.png'] True
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, plot in (("timeline.png", _plot_timeline), ("jobs.png", _plot_jobs)):
        fig = plot(batches, summary)
        fig.tight_layout()
        atomic_write(directory / name, functools.partial(fig.savefig, format="png", dpi=120))
        plt.close(fig)
        written.append(directory / name)
    return written


def _plot_timeline(batches: Sequence[Batch], summary: Summary) -> Figure:
    """Return a figure with one row per job: its batches' queue times and executions."""
    import matplotlib.pyplot as plt

    names = [j.job for j in summary.jobs]
    t0 = min(b.submitted for b in batches)
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(names) + 1.5))
    for row, name in enumerate(names):
        waits = [
            (b.submitted - t0, b.started - b.submitted)
            for b in batches
            if b.job == name and b.started is not None
        ]
        runs = [
            (b.started - t0, b.quantum_seconds or 0.0)
            for b in batches
            if b.job == name and b.started is not None and b.ended is not None
        ]
        first = row == 0
        ax.broken_barh(
            waits, (row - 0.3, 0.6), color="tab:orange", alpha=0.35, label="queue" if first else None
        )
        ax.broken_barh(runs, (row - 0.3, 0.6), color="tab:blue", label="execution" if first else None)
    ax.set(
        yticks=range(len(names)),
        yticklabels=names,
        xlabel="time since first submission (s)",
        title=f"vQPU timeline, occupancy {summary.occupancy:.2f}",
    )
    ax.legend(loc="upper right")
    return fig


def _plot_jobs(batches: Sequence[Batch], summary: Summary) -> Figure:
    """Return a bar chart of each job's runtime and mean queue time."""
    import matplotlib.pyplot as plt

    names = [j.job for j in summary.jobs]
    fig, ax = plt.subplots(figsize=(max(4, 0.6 * len(names) + 2), 3.5))
    x = range(len(names))
    ax.bar([i - 0.2 for i in x], [j.runtime_seconds for j in summary.jobs], 0.4, label="runtime")
    ax.bar([i + 0.2 for i in x], [j.mean_queue_seconds for j in summary.jobs], 0.4, label="mean queue time")
    ax.set(xticks=list(x), ylabel="seconds", title="per-job times")
    ax.set_xticklabels(names, rotation=45, ha="right")
    ax.legend()
    return fig


def write_json(summary: Summary, path: str | Path) -> None:
    """Write ``summary.to_json()`` to ``path``, atomically (:func:`backends.utils.files.atomic_write`)."""
    atomic_write_text(path, lambda file: file.write(json.dumps(summary.to_json(), indent=2) + "\n"))


def _usage_table(key: str, usage: Mapping[str, Usage]) -> list[str]:
    """Rows of a usage table keyed by ``key`` (``account``, ``user`` or ``job``), then the totals.

    An empty name (a batch without a Slurm account) is shown as ``-``.
    """
    total = Usage()
    for row in usage.values():
        total.add(row)
    lines = [
        f"{key:<24} {'batches':>8} {'circuits':>9} {'shots':>10} {'quantum s':>10} "
        f"{'transpile s':>11} {'queue s':>9}"
    ]
    for name, u in [*usage.items(), ("all", total)]:
        lines.append(
            f"{name or '-':<24} {u.batches:>8} {u.circuits:>9} {u.shots:>10} {u.quantum_seconds:>10.3f} "
            f"{u.transpile_seconds:>11.3f} {u.queue_seconds:>9.3f}"
        )
    return lines


def usage_tables(batches: Sequence[Batch]) -> str:
    """Render the usage per Slurm account, per user and per job as three plain-text tables.

    Examples
    --------
    >>> b = Batch(1, "job-1", "k", 2, 2, 100, None, "done", 0.0, 0.5, 1.5, 1.0, 1, None, None, 1, "ann", 0.1,
    ...           "phys")
    >>> lines = usage_tables([b]).splitlines()
    >>> print(lines[0]); print(lines[2]); print(lines[7])
    per account
    phys                            1         2        200      1.000       0.100     0.500
    ann                             1         2        200      1.000       0.100     0.500
    """
    accounts = _usage_table("account", usage_by(batches, lambda b: b.account))
    users = _usage_table("user", usage_by(batches, lambda b: b.user))
    jobs = _usage_table("job", usage_by(batches, lambda b: b.job))
    return "\n".join(["per account", *accounts, "", "per user", *users, "", "per job", *jobs])


def write_csv(batches: Sequence[Batch], path: str | Path) -> None:
    """Write one row per job (columns :data:`CSV_FIELDS`, seconds and epoch seconds) to ``path``.

    The ``account`` column is the job's Slurm account (empty without one), so the rows
    sum per account as they do per user.

    The file is written next to ``path`` and renamed over it, so a reader never sees
    half a file.

    Examples
    --------
    >>> import csv, tempfile
    >>> from pathlib import Path
    >>> from backends.vqpu.server.store import Batch
    >>> batches = [
    ...     Batch(1, "job-a", "k1", 1, 2, 100, None, "done", 0.0, 0.0, 1.0, 1.0, 1, None, None, 1, "ann"),
    ...     Batch(2, "job-b", "k1", 1, 2, 100, None, "done", 0.0, 1.0, 2.0, 1.0, 1, None, None, 1, "bob"),
    ... ]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_csv(batches, Path(folder) / "usage.csv")
    ...     rows = list(csv.DictReader((Path(folder) / "usage.csv").open()))
    >>> [(row["job"], row["user"], row["account"], row["shots"], row["quantum_seconds"]) for row in rows]
    [('job-a', 'ann', '', '100', '1.000000'), ('job-b', 'bob', '', '100', '1.000000')]
    """
    users = {b.job: b.user for b in batches}
    accounts = {b.job: b.account for b in batches}
    times = {j.job: j for j in summarize(batches).jobs} if batches else {}

    def write(file: TextIO) -> None:
        writer = csv.writer(file)
        writer.writerow(CSV_FIELDS)
        for job, u in usage_by(batches, lambda b: b.job).items():
            writer.writerow(
                [
                    job,
                    users[job],
                    accounts[job],
                    u.batches,
                    u.circuits,
                    u.shots,
                    f"{u.quantum_seconds:.6f}",
                    f"{u.transpile_seconds:.6f}",
                    f"{u.queue_seconds:.6f}",
                    f"{times[job].first_submitted:.6f}",
                    f"{times[job].last_ended:.6f}",
                ]
            )

    atomic_write_text(path, write, newline="")
