"""The limits a user sets on a search (time, nodes, memory), the run's clock, and periodic work.

Every phase of a search (bounds, heuristics, expansions, pricing) receives the run's
deadline, an absolute :func:`time.perf_counter` value, and stops by itself when it passes,
so a time limit holds in every phase, not only between tree nodes. Workers in other
processes get the deadline on the wall clock (:func:`time.time`), which all processes of
a machine share.

Memory is read as this process's resident set size (``/proc/self/statm`` on Linux, the
peak from :mod:`resource` elsewhere). The default limit is half of the memory this process
may use: the machine's, or a cgroup's limit when it is smaller.
"""

from __future__ import annotations

import math
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from backends.validation import check_nonnegative, check_positive_int

__all__ = ["STOP_REASONS", "Clock", "Every", "Limits", "available_memory_gb", "resident_memory_gb"]

#: Why a run stopped before it proved optimality, as written to ``ColoringResult.stopped``.
STOP_REASONS = ("time_limit", "node_limit", "memory_limit", "interrupted")

#: Share of the available memory that the default memory limit allows.
_DEFAULT_MEMORY_SHARE = 0.5


def available_memory_gb() -> float:
    """GB of memory this process may use: the machine's, or its cgroup's limit when smaller."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text) / 1e9)
    return total


def resident_memory_gb() -> float:
    """GB of memory this process holds now (its peak where the current size cannot be read)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 1e9
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 1e9 if sys.platform == "darwin" else peak / 1e6


@dataclass(frozen=True)
class Limits:
    """Time, node and memory limits of one search; ``None`` means no limit.

    Parameters
    ----------
    time_limit : float or None
        Seconds of search (a resumed run counts its earlier seconds).
    node_limit : int or None
        Node expansions of the search tree.
    memory_limit : float or None
        GB of resident memory of the managing process; default (``None`` given to
        :meth:`with_defaults`) half of :func:`available_memory_gb`.

    Raises
    ------
    InvalidParameterError
        If a limit is out of range.
    """

    time_limit: float | None = None
    node_limit: int | None = None
    memory_limit: float | None = None

    def __post_init__(self) -> None:
        if self.time_limit is not None:
            object.__setattr__(self, "time_limit", check_nonnegative(self.time_limit, "time_limit"))
        if self.node_limit is not None:
            object.__setattr__(self, "node_limit", check_positive_int(self.node_limit, "node_limit"))
        if self.memory_limit is not None:
            object.__setattr__(self, "memory_limit", check_nonnegative(self.memory_limit, "memory_limit"))

    @classmethod
    def with_defaults(
        cls, time_limit: float | None, node_limit: int | None, memory_limit: float | None
    ) -> Limits:
        """Limits with the default memory limit filled in when ``memory_limit`` is None."""
        if memory_limit is None:
            memory_limit = round(_DEFAULT_MEMORY_SHARE * available_memory_gb(), 3)
        return cls(time_limit, node_limit, memory_limit)

    def time_left(self, elapsed: float) -> float:
        """Seconds left after ``elapsed`` seconds (``inf`` without a time limit, never negative)."""
        return math.inf if self.time_limit is None else max(0.0, self.time_limit - elapsed)

    def time_reached(self, elapsed: float) -> bool:
        """Whether ``elapsed`` seconds reach the time limit."""
        return self.time_limit is not None and elapsed >= self.time_limit

    def nodes_reached(self, nodes: int) -> bool:
        """Whether ``nodes`` expansions (started or done) reach the node limit."""
        return self.node_limit is not None and nodes >= self.node_limit

    def memory_used(self) -> float:
        """Fraction of the memory limit in use now (0 without a limit)."""
        if not self.memory_limit:
            return 0.0
        return resident_memory_gb() / self.memory_limit


@dataclass
class Clock:
    """Seconds since the run started, earlier runs of a resumed search included.

    Parameters
    ----------
    limits : Limits
    before : float, default=0.0
        Seconds spent by the runs this one resumes.
    """

    limits: Limits
    before: float = 0.0
    start: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        """Seconds of the run so far."""
        return self.before + time.perf_counter() - self.start

    def expired(self) -> bool:
        """Whether the time limit has passed."""
        return self.limits.time_reached(self.elapsed())

    def deadline(self, share: float = 1.0) -> float:
        """Absolute :func:`time.perf_counter` time at which a phase must stop.

        Parameters
        ----------
        share : float, default=1.0
            Fraction of the time left that the phase may use.
        """
        left = self.limits.time_left(self.elapsed())
        return math.inf if math.isinf(left) else time.perf_counter() + share * left

    def wall_deadline(self) -> float:
        """The run's deadline on the wall clock (:func:`time.time`), for workers in other processes."""
        left = self.limits.time_left(self.elapsed())
        return math.inf if math.isinf(left) else time.time() + left


@dataclass
class Every:
    """A clock that is due once every ``seconds`` (measured with :func:`time.perf_counter`).

    >>> clock = Every(3600.0)
    >>> clock.due()
    False
    >>> Every(0.0).due()
    True
    """

    seconds: float
    last: float = field(default_factory=time.perf_counter)

    def due(self) -> bool:
        """True, and restart the clock, when ``seconds`` have passed since the last time."""
        now = time.perf_counter()
        if now - self.last < self.seconds:
            return False
        self.last = now
        return True
