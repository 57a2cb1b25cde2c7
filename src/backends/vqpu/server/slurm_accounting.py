"""Each Slurm job's vQPU usage written into its own Slurm record, so ``sacct`` bills it.

A Slurm-bound server charges every batch to the Slurm job id that sent it. This module
copies each job's totals from the server's ledger into the job's ``AdminComment``, a field
only Slurm's administrators (root, SlurmUser, AdminLevel=Administrator) may set and that
slurmdbd stores with the job, so ``sacct -j JOB -o JobID,Account,User,AdminComment`` and
anything built on it show the QPU time beside the CPU time, per job, user and account:

``vqpu_seconds=1.234567,vqpu_circuits=26,vqpu_shots=26000,vqpu_batches=26``

Why ``AdminComment`` rather than a TRES: Slurm 22.05 counts a TRES only from what a job
was allocated (a licence ``vqpu:1`` for the whole run), not from usage reported after the
fact, and offers no interface to add usage to a running or finished job's TRES; the admin
comment is written by ``scontrol update`` while the job runs and by ``sacctmgr modify job``
once it has ended, and users cannot change it. A pass writes only the jobs whose totals
changed; a job that ended is checked against ``sacct`` until the stored comment equals the
ledger (the controller's end record, sent to slurmdbd at the job's end, can carry an older
comment, which the next pass corrects).
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Callable

from backends.vqpu.server.accounting import Ledger, Usage
from backends.vqpu.server.periodic import Periodic

__all__ = ["admin_comment", "parse_admin_comment", "SlurmUsageWriter"]

_log = logging.getLogger("backends.vqpu.slurm")
Runner = Callable[[list[str]], subprocess.CompletedProcess]


def admin_comment(usage: Usage) -> str:
    """The ``AdminComment`` that records ``usage`` (seconds to the microsecond).

    Examples
    --------
    >>> admin_comment(Usage(batches=2, circuits=3, shots=300, quantum_seconds=0.25))
    'vqpu_seconds=0.250000,vqpu_circuits=3,vqpu_shots=300,vqpu_batches=2'
    """
    return (
        f"vqpu_seconds={usage.quantum_seconds:.6f},vqpu_circuits={usage.circuits},"
        f"vqpu_shots={usage.shots},vqpu_batches={usage.batches}"
    )


def parse_admin_comment(text: str) -> dict[str, float]:
    """The figures of an :func:`admin_comment` (``{}`` for any other text).

    Examples
    --------
    >>> parse_admin_comment("vqpu_seconds=0.250000,vqpu_circuits=3,vqpu_shots=300,vqpu_batches=2")
    {'vqpu_seconds': 0.25, 'vqpu_circuits': 3.0, 'vqpu_shots': 300.0, 'vqpu_batches': 2.0}
    >>> parse_admin_comment("")
    {}
    """
    figures = {}
    for item in text.strip().split(","):
        name, _, value = item.partition("=")
        if not name.startswith("vqpu_"):
            return {}
        try:
            figures[name] = float(value)
        except ValueError:
            return {}
    return figures


def _run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


class SlurmUsageWriter:
    """Copy each job's totals from ``ledger`` into its Slurm record, every ``interval`` seconds.

    Parameters
    ----------
    ledger : Ledger
        The server's usage per job (job names are Slurm job ids under ``--slurm-auth``).
    interval : float
        Seconds between passes.
    runner : callable
        Runs a command (a list of str) and returns its ``CompletedProcess``; tests pass
        their own.

    Examples
    --------
    >>> calls = []
    >>> def runner(command):
    ...     calls.append(command[:3])
    ...     return subprocess.CompletedProcess(command, 0, "", "")
    >>> ledger = Ledger()
    >>> from backends.vqpu.server.tokens import Caller
    >>> ledger.charge(Caller("41", "ann"), Usage(batches=1, circuits=1, shots=10, quantum_seconds=0.1))
    >>> writer = SlurmUsageWriter(ledger, runner=runner)
    >>> writer.sync(); writer.sync()  # the second pass writes nothing: nothing changed
    >>> calls
    [['scontrol', 'update', 'JobId=41']]
    """

    def __init__(self, ledger: Ledger, *, interval: float = 2.0, runner: Runner = _run) -> None:
        self.ledger = ledger
        self.runner = runner
        self.written: dict[str, str] = {}
        self.ended: set[str] = set()
        self._periodic = Periodic(self.sync, interval, "vqpu-slurm-usage")

    def sync(self) -> None:
        """Write every job whose totals changed; check ended jobs against ``sacct``.

        Examples
        --------
        >>> from backends.vqpu.server.tokens import Caller
        >>> ledger = Ledger()
        >>> ledger.charge(Caller("7", "ann"), Usage(batches=1, quantum_seconds=0.5))
        >>> succeed = lambda command: subprocess.CompletedProcess(command, 0, "", "")
        >>> writer = SlurmUsageWriter(ledger, runner=succeed)
        >>> writer.sync(); writer.written["7"]
        'vqpu_seconds=0.500000,vqpu_circuits=0,vqpu_shots=0,vqpu_batches=1'
        """
        jobs, _ = self.ledger.snapshot()
        for job, usage in jobs.items():
            comment = admin_comment(usage)
            if job in self.ended:
                self._settle(job, comment)
            elif self.written.get(job) != comment:
                self._write_running(job, comment)

    def _write_running(self, job: str, comment: str) -> None:
        done = self.runner(["scontrol", "update", f"JobId={job}", f"AdminComment={comment}"])
        if done.returncode == 0:
            self.written[job] = comment
        elif "already finished" in done.stderr or "Invalid job id" in done.stderr:
            self.ended.add(job)
            self._settle(job, comment)
        else:
            _log.warning("job %s: scontrol could not record its vQPU usage: %s", job, done.stderr.strip())

    def _settle(self, job: str, comment: str) -> None:
        """Make an ended job's stored comment equal ``comment`` (``sacctmgr``), checked by ``sacct``."""
        stored = self.runner(["sacct", "-j", job, "-X", "-n", "-P", "-o", "AdminComment"])
        if stored.returncode == 0 and stored.stdout.strip() == comment:
            self.written[job] = comment
            return
        done = self.runner(
            ["sacctmgr", "-i", "modify", "job", f"jobid={job}", "set", f"AdminComment={comment}"]
        )
        if done.returncode != 0:
            _log.warning("job %s: sacctmgr could not record its vQPU usage: %s", job, done.stderr.strip())

    def start(self) -> SlurmUsageWriter:
        """Write every ``interval`` seconds in a daemon thread; returns ``self``.

        Examples
        --------
        >>> writer = SlurmUsageWriter(Ledger(), interval=0.1).start()
        >>> writer.stop()
        """
        self._periodic.start()
        return self

    def stop(self) -> None:
        """Stop, after one last pass; safe to call twice.

        Examples
        --------
        >>> writer = SlurmUsageWriter(Ledger()).start()
        >>> writer.stop(); writer.stop()
        """
        if self._periodic.stop():
            self.sync()
