"""Slurm from Python: submit, query, resize, and read Slurm's own job records.

Thin wrappers around ``sbatch``, ``salloc``, ``scontrol`` and ``scancel`` (found on
``PATH``; the cluster is the one ``SLURM_CONF`` names), used by the malleable mode to
resize its allocation (:class:`SlurmAllocation`), and by the HPC tests and benchmarks.
:func:`read_job_records` parses the records Slurm writes for every finished job with
``JobCompType=jobcomp/filetxt`` (``examples/slurm/cluster/slurm.conf``): start, end and
nodes of each job. Slurm 22.05 also writes a ``RESIZING`` record at each resize, but with
its start equal to its end, so node-seconds of resized jobs are taken from the
allocation sampled while they run (``benchmarks/hpc_modes.py``).
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .errors import ClustAggError

__all__ = [
    "JobRecord",
    "SlurmAllocation",
    "SlurmError",
    "cancel",
    "job_fields",
    "job_nodes",
    "job_state",
    "parse_job_records",
    "read_job_records",
    "slurm",
    "submit",
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
) -> str:
    """Run a Slurm command and return its stdout (followed by its stderr, ``with_stderr``).

    Raises
    ------
    SlurmError
        If the command is missing, fails or exceeds ``timeout`` seconds.
    """
    try:
        environment = None if env is None else dict(env)
        done = subprocess.run(
            list(arguments), capture_output=True, text=True, timeout=timeout, env=environment
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
    """One finished job (or heterogeneous component) as ``jobcomp/filetxt`` records it.

    Attributes
    ----------
    job_id : int
    name, state, partition : str
    start, end : float
        Unix epoch seconds (Slurm's resolution is one second).
    nodes : int
        Nodes allocated at the end.
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


class SlurmAllocation:
    """Nodes added to a running job for a while and released again (the malleable mode's resizes).

    :meth:`grow` asks Slurm for the missing nodes as a helper allocation of the same user
    (``salloc --no-shell --nodes=1-K --immediate``: as many of the K as are free, at least
    one), retrying until ``grow_timeout`` seconds have passed and then giving up with the
    nodes it has; :meth:`shrink` releases them
    (``scancel``). Every resize is a Slurm allocation, so the nodes held show in
    ``squeue`` and in the job records.

    Why not ``scontrol update JobId=JOB NumNodes=N`` on the job itself: Slurm 22.05
    refuses every update of a job after its first resize ("Job update not available right
    now, the DB index is being set") unless an accounting database (slurmdbd) indexes the
    job, so a job without one can shrink once but never resize again. With slurmdbd,
    ``--dependency=expand:JOB`` and ``NumNodes`` do the same in one job.

    Parameters
    ----------
    job : int or str
        The job that runs the loop (``SLURM_JOB_ID``), named in the helper's job name.
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
        self.helper: str | None = None

    @property
    def nodes(self) -> int:
        """Nodes held now: the job's plus the helper allocation's."""
        return job_nodes(self.job) + (job_nodes(self.helper) if self.helper else 0)

    def grow(self, nodes: int) -> int:
        """Try to hold ``nodes`` nodes within ``grow_timeout`` seconds; return the nodes held."""
        missing = nodes - self.nodes
        deadline = time.monotonic() + self.grow_timeout
        while missing > 0 and self.helper is None and time.monotonic() < deadline:
            wait = max(1, round(deadline - time.monotonic()))
            try:
                output = slurm(
                    ["salloc", "--no-shell", f"--nodes=1-{missing}", f"--partition={self.partition}"]
                    + [f"--immediate={wait}", f"--job-name=grow-{self.job}"],
                    timeout=wait + 30,
                    with_stderr=True,
                )
            except SlurmError:  # no free nodes within the wait
                continue
            found = re.search(r"Granted job allocation (\d+)", output)
            self.helper = found.group(1) if found else None
        held = self.nodes
        if held < nodes:
            self.log(f"job {self.job} gave up growing to {nodes} nodes after {self.grow_timeout:g} s")
        else:
            self.log(f"job {self.job} grown to {held} node(s) (helper allocation {self.helper})")
        return held

    def shrink(self) -> int:
        """Release the nodes added by :meth:`grow`; return the nodes held."""
        if self.helper is not None:
            cancel(self.helper)
            wait_for_state(self.helper, FINISHED, 30)
            self.helper = None
        held = self.nodes
        self.log(f"job {self.job} shrunk to {held} node(s)")
        return held
