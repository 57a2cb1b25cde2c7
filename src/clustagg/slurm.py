"""Slurm from Python: submit, query, resize, and read Slurm's own job records.

Thin wrappers around ``sbatch``, ``salloc``, ``scontrol``, ``scancel`` and ``sacct``
(found on ``PATH``; the cluster is the one ``SLURM_CONF`` names), used by the malleable
mode to resize its allocation (:class:`SlurmAllocation`), and by the HPC tests and
benchmarks. Two sources of job records: :func:`read_job_records` parses the line Slurm
writes for every finished job with ``JobCompType=jobcomp/filetxt``
(``examples/slurm/cluster/slurm.conf``), in the order jobs end, with no database needed;
:func:`read_accounting` asks slurmdbd (``sacct``), which also keeps each size of a
resized job with its start and end (``jobcomp/filetxt`` loses the first start).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from .errors import ClustAggError

__all__ = [
    "JobRecord",
    "SlurmAllocation",
    "SlurmError",
    "cancel",
    "job_fields",
    "job_node_names",
    "job_nodes",
    "job_state",
    "parse_accounting",
    "parse_job_records",
    "read_accounting",
    "read_job_records",
    "slurm",
    "submit",
    "update_nodes",
    "wait_for_state",
]

#: States after which a job does not run again.
FINISHED = frozenset(
    {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL"}
)


class SlurmError(ClustAggError):
    """A Slurm command failed; the message holds the command and its stderr."""


def slurm(
    arguments: Sequence[str],
    *,
    timeout: float = 30.0,
    env: Mapping[str, str] | None = None,
    with_stderr: bool = False,
    cwd: str | Path | None = None,
) -> str:
    """Run a Slurm command (in ``cwd``) and return its stdout (followed by its stderr, ``with_stderr``).

    Raises
    ------
    SlurmError
        If the command is missing, fails or exceeds ``timeout`` seconds.
    """
    try:
        environment = None if env is None else dict(env)
        done = subprocess.run(
            list(arguments), capture_output=True, text=True, timeout=timeout, env=environment, cwd=cwd
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SlurmError(f"{' '.join(arguments)}: {exc}") from exc
    if done.returncode != 0:
        raise SlurmError(f"{' '.join(arguments)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout + done.stderr if with_stderr else done.stdout


def submit(arguments: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    """``sbatch --parsable ARGUMENTS``; return the job id (a heterogeneous job's leader)."""
    return int(slurm(["sbatch", "--parsable", *arguments], env=env).strip().split(";")[0])


def job_fields(job: int | str) -> list[dict[str, str]]:
    """The fields of ``scontrol show job -o JOB``, one dict per component (one for plain jobs).

    Returns an empty list once Slurm has forgotten the job (``MinJobAge`` after its end).
    """
    try:
        text = slurm(["scontrol", "show", "job", "-o", str(job)])
    except SlurmError as exc:
        if "Invalid job id" in str(exc):
            return []
        raise
    return [_parse_fields(line) for line in text.splitlines() if line.strip()]


def _parse_fields(line: str) -> dict[str, str]:
    """``"JobId=5 JobName=x ..."`` -> ``{"JobId": "5", "JobName": "x", ...}`` (values without spaces)."""
    fields: dict[str, str] = {}
    for item in line.split():
        key, sep, value = item.partition("=")
        if sep:
            fields[key] = value
    return fields


def job_state(job: int | str) -> str:
    """State of the job's first component (``PENDING``, ``RUNNING``, ``COMPLETED``...); ``""`` if unknown."""
    fields = job_fields(job)
    return fields[0].get("JobState", "") if fields else ""


def job_nodes(job: int | str) -> int:
    """Nodes allocated to the job's first component now (``NumNodes``)."""
    fields = job_fields(job)
    if not fields:
        raise SlurmError(f"job {job} is unknown to Slurm")
    return int(fields[0]["NumNodes"].split("-")[0])


def job_node_names(job: int | str) -> list[str]:
    """Names of the nodes allocated to the job's first component now, in Slurm's order.

    ``NodeList`` of ``scontrol show job``, expanded by ``scontrol show hostnames``.

    Raises
    ------
    SlurmError
        If Slurm does not know the job.
    """
    fields = job_fields(job)
    if not fields:
        raise SlurmError(f"job {job} is unknown to Slurm")
    nodelist = fields[0].get("NodeList", "")
    if nodelist in ("", "(null)"):
        return []
    return slurm(["scontrol", "show", "hostnames", nodelist]).split()


def wait_for_state(job: int | str, states: Iterable[str], timeout: float, poll: float = 0.5) -> str:
    """Wait until the job reaches one of ``states`` (or finishes); return its state (``""`` if forgotten).

    Raises
    ------
    SlurmError
        If ``timeout`` seconds pass first.
    """
    wanted = set(states)
    deadline = time.monotonic() + timeout
    while True:
        state = job_state(job)
        if state in wanted or state in FINISHED or not state:  # "": Slurm has forgotten the job
            return state
        if time.monotonic() >= deadline:
            raise SlurmError(f"job {job} still {state or 'unknown'} after {timeout:g} s, waited for {wanted}")
        time.sleep(poll)


def cancel(*jobs: int | str) -> None:
    """``scancel JOBS`` (already finished jobs are ignored)."""
    if jobs:
        try:
            slurm(["scancel", *map(str, jobs)])
        except SlurmError:
            pass


@dataclass(frozen=True)
class JobRecord:
    """One finished job (or heterogeneous component), or one size a resized job had.

    From ``jobcomp/filetxt`` (:func:`parse_job_records`: one per job, its size at the
    end) or from the accounting database (:func:`parse_accounting`: one per size).

    Attributes
    ----------
    job_id : int
    name, state, partition : str
    start, end : float
        Unix epoch seconds (Slurm's resolution is one second).
    nodes : int
        Nodes allocated (at the end, for ``jobcomp/filetxt``).
    """

    job_id: int
    name: str
    state: str
    partition: str
    start: float
    end: float
    nodes: int

    @property
    def seconds(self) -> float:
        """Wall seconds the job held its nodes."""
        return self.end - self.start

    @property
    def node_seconds(self) -> float:
        """Nodes times wall seconds."""
        return self.nodes * self.seconds


def _epoch(text: str) -> float:
    """Slurm's ``2026-11-23T19:01:02`` (local time) -> Unix epoch seconds."""
    return datetime.fromisoformat(text).timestamp()


def parse_job_records(lines: Iterable[str]) -> list[JobRecord]:
    """Parse ``jobcomp/filetxt`` lines: one :class:`JobRecord` per job that started, in order.

    Examples
    --------
    >>> line = ("JobId=7 UserId=root(0) GroupId=root(0) Name=x JobState=COMPLETED Partition=cpu "
    ...         "TimeLimit=60 StartTime=2026-01-01T00:00:00 EndTime=2026-01-01T00:00:10 "
    ...         "NodeList=c[1-3] NodeCnt=3 ProcCnt=6")
    >>> [(r.job_id, r.nodes, r.node_seconds) for r in parse_job_records([line])]
    [(7, 3, 30.0)]
    """
    records = []
    for line in lines:
        fields = _parse_fields(line)
        if "JobId" not in fields or fields.get("StartTime", "Unknown") == "Unknown":
            continue
        records.append(
            JobRecord(
                int(fields["JobId"]),
                fields.get("Name", ""),
                fields.get("JobState", ""),
                fields.get("Partition", ""),
                _epoch(fields["StartTime"]),
                _epoch(fields["EndTime"]),
                int(fields.get("NodeCnt", "0")),
            )
        )
    return records


def read_job_records(path: str | Path) -> list[JobRecord]:
    """:func:`parse_job_records` of the file at ``path`` (``JobCompLoc``); [] if it does not exist yet."""
    path = Path(path)
    return parse_job_records(path.read_text().splitlines()) if path.exists() else []


#: ``sacct`` fields read by :func:`read_accounting`, in this order.
ACCOUNTING_FIELDS = "JobIDRaw,JobName,State,Partition,Start,End,NNodes"


def parse_accounting(lines: Iterable[str]) -> list[JobRecord]:
    """Parse ``sacct --duplicates -X -P -n -o`` :data:`ACCOUNTING_FIELDS` lines into records.

    A resized job has one line per size it had (state ``RESIZING`` for all but the last).
    Slurm 22.05 gives the second of them the job's start time instead of the first
    resize's, so each segment starts where the job's previous one ended (segments of a
    job in the order of their ends). Jobs that have not started (``None``: cancelled
    while pending) or not ended yet are left out.

    Parameters
    ----------
    lines : iterable of str
        ``JobIDRaw|JobName|State|Partition|Start|End|NNodes``, times as Slurm prints them
        (local time, one-second resolution).

    Returns
    -------
    list of JobRecord
        One per job and size, ordered by job id, then end.

    Examples
    --------
    >>> lines = ["7|x|RESIZING|cpu|2026-01-01T00:00:00|2026-01-01T00:00:30|1",
    ...          "8|grow-7|CANCELLED by 0|cpu|None|2026-01-01T00:00:11|1",
    ...          "7|x|RESIZING|cpu|2026-01-01T00:00:00|2026-01-01T00:00:10|3",
    ...          "7|x|COMPLETED|cpu|2026-01-01T00:00:30|2026-01-01T00:00:40|3",
    ...          "9|y|RUNNING|cpu|2026-01-01T00:00:35|Unknown|2"]
    >>> [(r.job_id, r.nodes, r.seconds) for r in parse_accounting(lines)]
    [(7, 3, 10.0), (7, 1, 20.0), (7, 3, 10.0)]
    """
    by_job: dict[int, list[tuple[float, float, str, str, str, int]]] = {}
    for line in lines:
        fields = line.split("|")
        if len(fields) != 7 or {fields[4], fields[5]} & {"Unknown", "None"}:
            continue
        job_text, name_text, state_text, partition_text, start_text, end_text, nodes_text = fields
        segment = (
            _epoch(end_text), _epoch(start_text), name_text, state_text.split()[0], partition_text,
            int(nodes_text),
        )  # fmt: skip
        by_job.setdefault(int(job_text), []).append(segment)
    records = []
    for job_id, segments in sorted(by_job.items()):
        previous_end = float("-inf")
        for end, start, name, state, partition, nodes in sorted(segments):
            records.append(JobRecord(job_id, name, state, partition, max(start, previous_end), end, nodes))
            previous_end = end
    return records


def read_accounting(since: datetime) -> list[JobRecord]:
    """:func:`parse_accounting` of Slurm's accounting records of the jobs that started since ``since``.

    Needs slurmdbd (``sacct``); unlike ``jobcomp/filetxt``, it keeps the start and end of
    every size a resized job had.

    Parameters
    ----------
    since : datetime
        Local time (``sacct -S``; whole seconds).

    Raises
    ------
    SlurmError
        If ``sacct`` fails (no slurmdbd, for instance).
    """
    text = slurm(
        ["sacct", "--duplicates", "-X", "-P", "-n", "-o", ACCOUNTING_FIELDS]
        + ["-S", since.strftime("%Y-%m-%dT%H:%M:%S")]
    )
    return parse_accounting(text.splitlines())


class SlurmAllocation:
    """A running job's own allocation, grown and shrunk with Slurm's resize commands.

    :meth:`grow` asks for the missing nodes as an expansion of the job (``salloc
    --no-shell --nodes=1-K --dependency=expand:JOB --immediate``: as many of the K as are
    free, at least one), hands them to the job (``scontrol update JobId=NEW NumNodes=0``,
    then ``scontrol update JobId=JOB NumNodes=ALL``), retrying until ``grow_timeout``
    seconds have passed and then giving up with the nodes it has; :meth:`shrink` returns
    to the job's starting size (``scontrol update JobId=JOB NumNodes=N``). The job's
    ``NumNodes`` in ``squeue``/``scontrol`` and its accounting records
    (:func:`read_accounting`) follow every resize.

    Needs ``SchedulerParameters=permit_job_expansion`` and an accounting database: Slurm
    22.05 refuses every update of a job after its first resize until slurmdbd has indexed
    it ("Job update not available right now, the DB index is being set"), and without
    slurmdbd that never happens (``examples/slurm/cluster`` runs one).

    Parameters
    ----------
    job : int or str
        The job that runs the loop (``SLURM_JOB_ID``); its size now is the size
        :meth:`shrink` returns to.
    partition : str
        Partition of the nodes to add.
    grow_timeout : float, default=30.0
        Seconds a :meth:`grow` may wait for free nodes.
    log : callable, optional
        Called with one line per resize.
    """

    def __init__(
        self,
        job: int | str,
        partition: str,
        grow_timeout: float = 30.0,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.job = str(job)
        self.partition = partition
        self.grow_timeout = grow_timeout
        self.log = log
        self.base = job_nodes(self.job)
        self._lock = threading.Lock()

    @property
    def nodes(self) -> int:
        """Nodes the job holds now."""
        return job_nodes(self.job)

    def grow(self, nodes: int) -> int:
        """Try to hold ``nodes`` nodes within ``grow_timeout`` seconds; return the nodes held.

        Takes the first grant, even if it is short of ``nodes`` (the nodes free then).
        """
        deadline = time.monotonic() + self.grow_timeout
        granted, refusal = False, ""
        while not granted and (missing := nodes - self.nodes) > 0 and time.monotonic() < deadline:
            wait = max(1, round(deadline - time.monotonic()))
            try:
                granted = self._expand(f"--nodes=1-{missing}", wait)
            except SlurmError as exc:  # no free nodes within the wait, a job of higher priority...
                refusal = str(exc).splitlines()[-1]
                time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        held = self.nodes
        if not granted and held < nodes:
            reason = f" (last refusal: {refusal})" if refusal else ""
            self.log(f"job {self.job} gave up growing to {nodes} nodes after {self.grow_timeout:g} s{reason}")
        else:
            self.log(f"job {self.job} grown to {held} node(s)" + (f" of {nodes}" if held < nodes else ""))
        return held

    def _expand(self, nodes_option: str, wait: float | None) -> bool:
        """``salloc`` an expansion of the job (``--immediate=wait``; None: queue until granted) and merge it.

        Returns whether Slurm granted it.
        """
        immediate = [] if wait is None else [f"--immediate={wait:g}"]
        output = slurm(
            ["salloc", "--no-shell", nodes_option, f"--partition={self.partition}"]
            + [f"--dependency=expand:{self.job}", *immediate, f"--job-name=grow-{self.job}"],
            timeout=(24 * 3600.0 if wait is None else wait) + 30,
            with_stderr=True,
        )
        found = re.search(r"Granted job allocation (\d+)", output)
        if found:
            with self._lock:
                self._merge(found.group(1))
        return bool(found)

    def request(self, nodes: int, timeout: float | None = None) -> Future[int]:
        """Ask for ``nodes`` more nodes without waiting: an asynchronous :meth:`grow`.

        The expansion waits in Slurm's queue (no ``--immediate``) on a background thread,
        which merges it into the job once Slurm starts it; the program keeps working
        meanwhile. :meth:`cancel_requests` withdraws a request still pending.

        Parameters
        ----------
        nodes : int
            Nodes to add (all of them: Slurm grants the expansion when that many are free).
        timeout : float, optional
            Seconds the request may wait in the queue; default ``grow_timeout``.

        Returns
        -------
        concurrent.futures.Future of int
            Done once the nodes are merged (its result: the nodes held then), or with a
            :class:`SlurmError` if Slurm refused the request or it timed out.
        """
        future: Future[int] = Future()
        wait = self.grow_timeout if timeout is None else timeout

        def expand() -> None:
            try:
                if not self._expand(f"--nodes={nodes}", None if wait <= 0 else wait):
                    raise SlurmError(f"job {self.job}: no grant of {nodes} more node(s)")
                held = self.nodes
                self.log(f"job {self.job} grown to {held} node(s) (asynchronous request)")
                future.set_result(held)
            except BaseException as exc:  # the caller sees every failure in the future
                future.set_exception(exc)

        future.set_running_or_notify_cancel()
        threading.Thread(target=expand, name=f"grow-{self.job}", daemon=True).start()
        return future

    def cancel_requests(self) -> None:
        """Withdraw the expansions still waiting in Slurm's queue (``scancel --name grow-JOB``)."""
        try:
            slurm(["scancel", "--state=PENDING", f"--name=grow-{self.job}"])
        except SlurmError:
            pass

    def _merge(self, expansion: str) -> None:
        """Move the nodes of the allocation ``expansion`` into the job (``expansion`` is released)."""
        try:
            update_nodes(expansion, 0)
        finally:
            cancel(expansion)
        wait_for_state(expansion, FINISHED, 30)
        update_nodes(self.job, "ALL")

    def shrink(self) -> int:
        """Return to the job's starting size; return the nodes held."""
        if self.nodes > self.base:
            update_nodes(self.job, self.base)
        held = self.nodes
        self.log(f"job {self.job} shrunk to {held} node(s)")
        return held

    def names(self) -> list[str]:
        """Names of the nodes the job holds now (:func:`job_node_names`)."""
        return job_node_names(self.job)

    def release(self, nodes: Iterable[str]) -> int:
        """Give the named nodes back to Slurm, keeping the others; return the nodes held.

        ``scontrol update JobId=JOB NodeList=KEPT``: unlike :meth:`shrink`, the caller
        chooses which nodes go (those whose processes have already ended).
        """
        going = set(nodes)
        with self._lock:
            held = self.names()
            kept = [name for name in held if name not in going]
            if len(kept) < len(held):
                update_nodes(self.job, kept)
        count = self.nodes
        self.log(f"job {self.job} shrunk to {count} node(s) (released {','.join(sorted(going & set(held)))})")
        return count


def update_nodes(job: int | str, nodes: int | Literal["ALL"] | Sequence[str], timeout: float = 30.0) -> None:
    """``scontrol update JobId=JOB NumNodes=NODES``, retried while Slurm indexes the job's last resize.

    Node names instead of a count set ``NodeList=`` (the nodes kept). Run in a temporary
    directory, which takes the ``slurm_job_JOB_resize.sh`` scripts that
    ``scontrol`` writes for the job's environment (the programs resized here do not need them:
    their workers are started with explicit ``srun`` options).

    Parameters
    ----------
    job : int or str
        A running job.
    nodes : int, "ALL" or sequence of str
        Its new node count; ``"ALL"`` adds the nodes of an expansion job handed over with
        ``NumNodes=0``; node names: the nodes to keep (a subset of the job's).
    timeout : float, default=30.0
        Seconds to keep retrying while Slurm answers "try again" (slurmdbd is indexing
        the job's previous resize).

    Raises
    ------
    SlurmError
        If Slurm refuses the update, or still indexes the job after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    field = f"NumNodes={nodes}" if isinstance(nodes, int | str) else f"NodeList={','.join(nodes)}"
    with tempfile.TemporaryDirectory(prefix="scontrol-") as scratch:
        while True:
            try:
                slurm(["scontrol", "update", f"JobId={job}", field], cwd=scratch)
                return
            except SlurmError as exc:
                if "try again" not in str(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(0.5)
