"""A vQPU count that follows the load: the server sets Slurm's number of vQPU licences.

The seed defines vQPUs as "a fixed or dynamic number". In the dynamic mode the server
owns a *remote* licence in slurmdbd (``RESOURCE@SERVER``, created once by the
administrator with ``sacctmgr add resource``) and every ``interval`` seconds sets its
count (``sacctmgr -i modify resource name=RESOURCE server=SERVER set count=N``; slurmctld
sees it within about 0.3 s) by this rule, applied to the window since the last step:

- the *wait ratio* ``R`` is the queue seconds of the batches that finished in the window
  over their device seconds: how many executions a batch waited for, on average;
- the *occupancy* ``U`` is the device seconds of the window over its length;
- **shrink** by one when ``R > wait_limit`` (the jobs sharing the device slow each
  other down) and the count is above its minimum;
- **grow** by one when ``U < occupancy_target``, ``R <= wait_limit / 2`` (hysteresis),
  every licence is in use (jobs could use another) and the count is below its maximum;
- **hold** otherwise, and always while the vQPU is in maintenance.

A count below the licences in use stops nothing: running jobs keep theirs, and pending
jobs wait until the count rises above the number in use. The minimum must be at least the
largest number of licences one job asks for: Slurm 22.05 refuses at submission a job
asking for more than the total.
"""

from __future__ import annotations

import logging
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from backends.utils.errors import InvalidParameterError
from backends.vqpu.server.accounting import Ledger, Usage
from backends.vqpu.server.periodic import Periodic

__all__ = ["CountRule", "Window", "next_count", "SlurmLicence", "CountController"]

log = logging.getLogger("backends.vqpu.count")
Runner = Callable[[list[str]], subprocess.CompletedProcess]


def _run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


@dataclass(frozen=True)
class CountRule:
    """The administrator's bounds and the rule's two thresholds.

    Attributes
    ----------
    minimum, maximum : int
        Bounds of the licence count (1 <= minimum <= maximum).
    occupancy_target : float
        Grow while the device is busy less than this fraction of the time (0 < x <= 1).
    wait_limit : float
        Shrink when a batch waits longer than this many executions on average (> 0).

    Examples
    --------
    >>> CountRule(2, 6)
    CountRule(minimum=2, maximum=6, occupancy_target=0.9, wait_limit=1.0)
    >>> CountRule(3, 2)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: The vQPU count bounds must be 1 <= MIN <= MAX. Got 3:2 ...
    """

    minimum: int
    maximum: int
    occupancy_target: float = 0.9
    wait_limit: float = 1.0

    def __post_init__(self) -> None:
        if not 1 <= self.minimum <= self.maximum:
            raise InvalidParameterError(
                f"The vQPU count bounds must be 1 <= MIN <= MAX. Got {self.minimum}:{self.maximum} instead."
            )
        if not 0 < self.occupancy_target <= 1 or not self.wait_limit > 0:
            raise InvalidParameterError(
                "The vQPU count rule needs 0 < occupancy_target <= 1 and wait_limit > 0. "
                f"Got {self.occupancy_target} and {self.wait_limit} instead."
            )


@dataclass(frozen=True)
class Window:
    """What the device did since the last step.

    Attributes
    ----------
    seconds : float
        The window's length (s).
    busy_seconds : float
        Device seconds of the batches that finished in it (s).
    queue_seconds : float
        Queue seconds of those batches (s).
    in_use : int
        Licences held by running jobs at its end.

    Examples
    --------
    >>> window = Window(seconds=10.0, busy_seconds=8.0, queue_seconds=12.0, in_use=3)
    >>> window.occupancy, window.wait_ratio
    (0.8, 1.5)
    """

    seconds: float
    busy_seconds: float
    queue_seconds: float
    in_use: int

    @property
    def occupancy(self) -> float:
        """Device seconds over the window's length (0 for an empty window)."""
        return min(1.0, self.busy_seconds / self.seconds) if self.seconds > 0 else 0.0

    @property
    def wait_ratio(self) -> float:
        """Queue seconds per device second (0 when the device did nothing)."""
        return self.queue_seconds / self.busy_seconds if self.busy_seconds > 0 else 0.0


def next_count(count: int, window: Window, rule: CountRule) -> int:
    """The licence count after ``window`` under ``rule`` (the module's rule; a pure function).

    Examples
    --------
    >>> rule = CountRule(1, 4)
    >>> next_count(2, Window(10.0, 5.0, 1.0, in_use=2), rule)  # half idle, all in use: grow
    3
    >>> next_count(2, Window(10.0, 5.0, 1.0, in_use=1), rule)  # a licence is free: hold
    2
    >>> next_count(3, Window(10.0, 9.9, 20.0, in_use=3), rule)  # batches wait 2 executions: shrink
    2
    >>> next_count(4, Window(10.0, 1.0, 0.0, in_use=4), rule)  # at the maximum: hold
    4
    """
    bounded = min(rule.maximum, max(rule.minimum, count))  # an admin may have set it outside
    if window.wait_ratio > rule.wait_limit:
        return max(rule.minimum, bounded - 1)
    grow = window.occupancy < rule.occupancy_target and window.wait_ratio <= rule.wait_limit / 2
    if grow and window.in_use >= count:
        return min(rule.maximum, bounded + 1)
    return bounded


class SlurmLicence:
    """The remote licence ``resource@server`` in Slurm: read its total and use, set its count.

    Examples
    --------
    >>> shown = "LicenseName=vqpu@qsrv Total=4 Used=3 Free=1 Reserved=0 Remote=yes"
    >>> licence = SlurmLicence("vqpu", "qsrv", runner=lambda c: subprocess.CompletedProcess(c, 0, shown, ""))
    >>> licence.read()
    (4, 3)
    >>> SlurmLicence("vqpu", "other", runner=licence.runner).read()
    Traceback (most recent call last):
    ...
    RuntimeError: Slurm has no licence vqpu@other (create it: sacctmgr add resource name=vqpu ...
    """

    def __init__(self, resource: str, server: str, *, runner: Runner = _run) -> None:
        self.resource, self.server, self.runner = resource, server, runner

    @property
    def name(self) -> str:
        """``resource@server``, as jobs ask for it (``--licenses=vqpu@qsrv:1``)."""
        return f"{self.resource}@{self.server}"

    def _call(self, command: list[str]) -> str:
        try:
            done = self.runner(command)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise RuntimeError(f"{' '.join(command[:3])} could not run: {exc}") from None
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed: {(done.stderr or done.stdout).strip()[:300]}")
        return done.stdout

    def read(self) -> tuple[int, int]:
        """``(total, used)`` as slurmctld sees them now.

        Raises
        ------
        RuntimeError
            If ``scontrol`` fails or Slurm has no such licence.

        Examples
        --------
        >>> shown = "LicenseName=vqpu@q Total=2 Used=0 Free=2 Reserved=0 Remote=yes"
        >>> SlurmLicence("vqpu", "q", runner=lambda c: subprocess.CompletedProcess(c, 0, shown, "")).read()
        (2, 0)
        """
        shown = self._call(["scontrol", "show", "license", "-o"])
        pattern = rf"LicenseName={re.escape(self.name)} Total=(\d+) Used=(\d+)"
        found = re.search(pattern, shown)
        if found is None:
            raise RuntimeError(
                f"Slurm has no licence {self.name} (create it: sacctmgr add resource "
                f"name={self.resource} server={self.server} ...)"
            )
        return int(found[1]), int(found[2])

    def set(self, count: int) -> None:
        """Set the licence's count in slurmdbd (``sacctmgr -i modify resource ... set count=N``).

        Raises
        ------
        RuntimeError
            If ``sacctmgr`` fails.

        Examples
        --------
        >>> calls = []
        >>> def runner(command):
        ...     calls.append(command)
        ...     return subprocess.CompletedProcess(command, 0)
        >>> SlurmLicence("vqpu", "q", runner=runner).set(3); calls[0][3:]
        ['resource', 'name=vqpu', 'server=q', 'set', 'count=3']
        """
        where = [f"name={self.resource}", f"server={self.server}"]
        self._call(["sacctmgr", "-i", "modify", "resource", *where, "set", f"count={count}"])


class CountController:
    """The dynamic vQPU count: every ``interval`` s, one :func:`next_count` step applied to Slurm.

    Parameters
    ----------
    ledger : Ledger
        The server's usage (its totals give each window's device and queue seconds).
    licence : SlurmLicence
        The licence whose count follows the load.
    rule : CountRule
        Bounds and thresholds.
    interval : float
        Seconds between steps (the window's length).
    paused : callable
        True while the count must not change (the vQPU in maintenance).
    clock : callable
        Seconds, monotonic.

    Attributes
    ----------
    history : list of dict
        One entry per step that read Slurm: ``time``, ``count``, ``occupancy``, ``wait_ratio``.

    Examples
    --------
    >>> shown = "LicenseName=vqpu@q Total=2 Used=2 Free=0 Reserved=0 Remote=yes"
    >>> calls = []
    >>> def runner(command):
    ...     calls.append(command)
    ...     return subprocess.CompletedProcess(command, 0, shown, "")
    >>> ledger, now = Ledger(), iter([0.0, 10.0])
    >>> controller = CountController(ledger, SlurmLicence("vqpu", "q", runner=runner),
    ...                              CountRule(1, 4), clock=lambda: next(now))
    >>> controller.step()  # idle device, both licences in use: one more
    3
    >>> calls[-1][-1], controller.history[-1]["occupancy"]
    ('count=3', 0.0)
    """

    def __init__(
        self,
        ledger: Ledger,
        licence: SlurmLicence,
        rule: CountRule,
        *,
        interval: float = 30.0,
        paused: Callable[[], bool] = lambda: False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ledger, self.licence, self.rule, self.paused, self.clock = ledger, licence, rule, paused, clock
        self.history: list[dict[str, float]] = []
        self._since = (clock(), self._totals())
        self._periodic = Periodic(self._step_logged, interval, "vqpu-count")

    def _totals(self) -> Usage:
        total = Usage()
        for usage in self.ledger.snapshot()[1].values():
            total.add(usage)
        return total

    def step(self) -> int | None:
        """One step: measure the window, set the count if it changes; the count (None while paused).

        Raises
        ------
        RuntimeError
            If Slurm cannot be read or written (the window is kept for the next step).

        Examples
        --------
        >>> shown = "LicenseName=vqpu@q Total=3 Used=1 Free=2 Reserved=0 Remote=yes"
        >>> licence = SlurmLicence("vqpu", "q", runner=lambda c: subprocess.CompletedProcess(c, 0, shown, ""))
        >>> CountController(Ledger(), licence, CountRule(1, 4)).step()  # a licence is free: held
        3
        >>> CountController(Ledger(), licence, CountRule(1, 4), paused=lambda: True).step() is None
        True
        """
        now, totals = self.clock(), self._totals()
        if self.paused():
            self._since = (now, totals)
            return None
        count, in_use = self.licence.read()
        start, before = self._since
        window = Window(
            now - start,
            totals.quantum_seconds - before.quantum_seconds,
            totals.queue_seconds - before.queue_seconds,
            in_use,
        )
        wanted = next_count(count, window, self.rule)
        if wanted != count:
            self.licence.set(wanted)
            log.info("vQPU count %d -> %d (occupancy %.2f, wait ratio %.2f)", count, wanted, window.occupancy,
                     window.wait_ratio)  # fmt: skip
        self._since = (now, totals)
        step = {"time": time.time(), "count": wanted, "occupancy": window.occupancy}
        self.history.append({**step, "wait_ratio": window.wait_ratio})
        return wanted

    def _step_logged(self) -> None:
        try:
            self.step()
        except RuntimeError as exc:
            interval = self._periodic.interval
            log.error("the vQPU count cannot follow the load: %s (retried in %g s)", exc, interval)

    def start(self) -> CountController:
        """Set the count within the bounds now, then step every ``interval`` s; returns ``self``.

        Raises
        ------
        RuntimeError
            If Slurm has no such licence or cannot be reached (the server does not start).

        Examples
        --------
        >>> shown = "LicenseName=vqpu@q Total=3 Used=1 Free=2 Reserved=0 Remote=yes"
        >>> licence = SlurmLicence("vqpu", "q", runner=lambda c: subprocess.CompletedProcess(c, 0, shown, ""))
        >>> controller = CountController(Ledger(), licence, CountRule(1, 4), interval=60.0).start()
        >>> controller.stop(); controller.stop()
        """
        count, _ = self.licence.read()
        bounded = min(self.rule.maximum, max(self.rule.minimum, count))
        if bounded != count:
            self.licence.set(bounded)
        self._periodic.start()
        return self

    def stop(self) -> None:
        """Stop stepping (the count stays where it is); safe to call twice.

        Examples
        --------
        >>> controller = CountController(Ledger(), SlurmLicence("vqpu", "q"), CountRule(1, 4))
        >>> controller.stop()  # never started: nothing to stop
        """
        self._periodic.stop()
