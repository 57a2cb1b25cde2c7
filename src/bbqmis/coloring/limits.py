"""The limits a user sets on a search (time, nodes, memory), the run's clock, and periodic work.

Every phase of a search (bounds, heuristics, expansions, pricing) receives the run's
deadline, an absolute :func:`time.perf_counter` value, and stops by itself when it passes,
so a time limit holds in every phase, not only between tree nodes. Workers in other
processes get the deadline on the wall clock (:func:`time.time`), which all processes of
a machine share.

Memory is read as this process's resident set size (``/proc/self/statm`` on Linux, the
peak from :mod:`resource` elsewhere). The default limit is half of the memory this process
may use: the machine's, or a cgroup's limit when it is smaller.

A run also stops early when asked to: :func:`stop_on_signals` turns SIGINT and SIGTERM
into a :class:`StopRequest`, and a set request makes :class:`Limits` count the time as
spent. The tree search then stops at its next look at the limits (within half a second),
every phase that starts afterwards gets no time, and the run ends as at a time limit:
with its best colouring, its proven bound and a final checkpoint. A second signal stops
at once (:class:`KeyboardInterrupt`).
"""

from __future__ import annotations

import math
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from backends.utils.validation import check_nonnegative, check_positive_int

__all__ = [
    "STOP",
    "STOP_MEMORY_SHARE",
    "STOP_REASONS",
    "Clock",
    "Every",
    "Limits",
    "StopRequest",
    "available_memory_gb",
    "resident_memory_gb",
    "stop_on_signals",
]

#: Why a run stopped before it proved optimality, as written to ``ColoringResult.stopped``.
STOP_REASONS = ("time_limit", "node_limit", "memory_limit", "interrupted")

#: Share of the available memory that the default memory limit allows.
_DEFAULT_MEMORY_SHARE = 0.5

#: Share of the memory limit at which every phase stops (``"memory_limit"``).
STOP_MEMORY_SHARE = 0.9


class StopRequest:
    """A request that the run stop early, set from a signal handler or another thread.

    Examples
    --------
    >>> stop = StopRequest()
    >>> stop.is_set(), stop.reason
    (False, None)
    >>> stop.set("SIGTERM")
    >>> stop.is_set(), stop.reason
    (True, 'SIGTERM')
    >>> stop.clear()
    >>> stop.is_set()
    False
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason: str | None = None

    def set(self, reason: str = "stop requested") -> None:
        """Ask the run to stop; ``reason`` (a signal's name, say) is kept for messages.

        Examples
        --------
        >>> stop = StopRequest()
        >>> stop.set("SIGINT")
        >>> stop.reason
        'SIGINT'
        """
        self.reason = reason
        self._event.set()

    def is_set(self) -> bool:
        """Whether a stop was requested.

        Examples
        --------
        >>> stop = StopRequest()
        >>> limits = Limits(time_limit=60, stop=stop)
        >>> stop.set()
        >>> stop.is_set(), limits.time_reached(0.0)
        (True, True)
        """
        return self._event.is_set()

    def clear(self) -> None:
        """Withdraw the request (before a new run in the same process).

        Examples
        --------
        >>> stop = StopRequest()
        >>> stop.set()
        >>> stop.clear()
        >>> stop.is_set(), stop.reason
        (False, None)
        """
        self._event.clear()
        self.reason = None


#: The process's stop request: the one :func:`stop_on_signals` sets and :class:`Limits` reads.
STOP = StopRequest()


@contextmanager
def stop_on_signals(
    stop: StopRequest = STOP,
    signals: Sequence[signal.Signals] = (signal.SIGINT, signal.SIGTERM),
    notify: Callable[[str], None] | None = None,
) -> Iterator[StopRequest]:
    """Context manager: the first of ``signals`` sets ``stop``; a second raises KeyboardInterrupt.

    The request is cleared on entry and on exit, and the previous handlers are restored
    on exit. Outside the main thread (where Python cannot handle signals) it only clears.

    Parameters
    ----------
    stop : StopRequest, default=STOP
    signals : sequence of signal.Signals, default=(SIGINT, SIGTERM)
    notify : callable, optional
        Called with the signal's name (``"SIGTERM"``) at the first signal, from the
        handler: it must not write to a buffered stream the program may be writing to
        (``os.write`` to a file descriptor is safe).

    Yields
    ------
    StopRequest
        ``stop``, to look at before leaving the block.

    Examples
    --------
    >>> import os
    >>> import signal
    >>> with stop_on_signals(StopRequest(), signals=[signal.SIGUSR1]) as stop:
    ...     os.kill(os.getpid(), signal.SIGUSR1)
    ...     print(stop.is_set(), stop.reason)
    True SIGUSR1
    """
    received: list[str] = []

    def handle(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        if received:
            raise KeyboardInterrupt(name)
        received.append(name)
        stop.set(name)
        if notify is not None:
            notify(name)

    stop.clear()
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {number: signal.signal(number, handle) for number in signals}
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        stop.clear()


def available_memory_gb() -> float:
    """GB of memory this process may use: the machine's, or its cgroup's limit when smaller.

    Examples
    --------
    >>> available_memory_gb() > 0
    True
    """
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
    """GB of memory this process holds now (its peak where the current size cannot be read).

    Examples
    --------
    >>> 0 < resident_memory_gb() < available_memory_gb()
    True
    """
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
        Seconds of this run (a resumed run gets the whole limit again, as each batch job
        gets its own walltime; the seconds of the runs it resumes are not counted).
    node_limit : int or None
        Node expansions of the search tree.
    memory_limit : float or None
        GB of resident memory of the managing process; default (``None`` given to
        :meth:`with_defaults`) half of :func:`available_memory_gb`.
    stop : StopRequest, default=STOP
        Once set, the time counts as spent: :meth:`time_left` is 0 and
        :meth:`time_reached` is True, whatever the time limit.

    Raises
    ------
    InvalidParameterError
        If a limit is out of range.

    Examples
    --------
    >>> limits = Limits(time_limit=10, node_limit=500, stop=StopRequest())
    >>> limits.time_left(4.0), limits.nodes_reached(499), limits.nodes_reached(500)
    (6.0, False, True)
    >>> Limits(node_limit=0)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: node_limit must be a positive integer, got 0
    """

    time_limit: float | None = None
    node_limit: int | None = None
    memory_limit: float | None = None
    stop: StopRequest = field(default=STOP, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.time_limit is not None:
            object.__setattr__(self, "time_limit", check_nonnegative(self.time_limit, "time_limit"))
        if self.node_limit is not None:
            object.__setattr__(self, "node_limit", check_positive_int(self.node_limit, "node_limit"))
        if self.memory_limit is not None:
            object.__setattr__(self, "memory_limit", check_nonnegative(self.memory_limit, "memory_limit"))

    @classmethod
    def with_defaults(
        cls,
        time_limit: float | None,
        node_limit: int | None,
        memory_limit: float | None,
        stop: StopRequest = STOP,
    ) -> Limits:
        """Limits with the default memory limit filled in when ``memory_limit`` is None.

        Examples
        --------
        >>> limits = Limits.with_defaults(time_limit=None, node_limit=None, memory_limit=None)
        >>> 0 < limits.memory_limit <= available_memory_gb()
        True
        >>> Limits.with_defaults(None, None, 2.5).memory_limit
        2.5
        """
        if memory_limit is None:
            memory_limit = round(_DEFAULT_MEMORY_SHARE * available_memory_gb(), 3)
        return cls(time_limit, node_limit, memory_limit, stop)

    def time_left(self, elapsed: float) -> float:
        """Seconds left after ``elapsed`` seconds: ``inf`` without a time limit, 0 once stopped, never < 0.

        Examples
        --------
        >>> Limits(time_limit=5, stop=StopRequest()).time_left(7.0)
        0.0
        >>> Limits(stop=StopRequest()).time_left(7.0)
        inf
        """
        if self.stop.is_set():
            return 0.0
        return math.inf if self.time_limit is None else max(0.0, self.time_limit - elapsed)

    def time_reached(self, elapsed: float) -> bool:
        """Whether ``elapsed`` seconds reach the time limit, or a stop was requested.

        Examples
        --------
        >>> limits = Limits(time_limit=5, stop=StopRequest())
        >>> limits.time_reached(4.9), limits.time_reached(5.0)
        (False, True)
        """
        return self.stop.is_set() or (self.time_limit is not None and elapsed >= self.time_limit)

    @property
    def interrupted(self) -> bool:
        """Whether the run was asked to stop (:attr:`stop` is set)."""
        return self.stop.is_set()

    def nodes_reached(self, nodes: int) -> bool:
        """Whether ``nodes`` expansions (started or done) reach the node limit.

        Examples
        --------
        >>> Limits(node_limit=3, stop=StopRequest()).nodes_reached(3)
        True
        >>> Limits(stop=StopRequest()).nodes_reached(10**9)
        False
        """
        return self.node_limit is not None and nodes >= self.node_limit

    def memory_used(self) -> float:
        """Fraction of the memory limit in use now (0 without a limit).

        Examples
        --------
        >>> Limits(stop=StopRequest()).memory_used()
        0.0
        >>> 0 < Limits(memory_limit=1000.0, stop=StopRequest()).memory_used() < 1
        True
        """
        if not self.memory_limit:
            return 0.0
        return resident_memory_gb() / self.memory_limit

    def memory_full(self) -> bool:
        """Whether the process holds :data:`STOP_MEMORY_SHARE` of the memory limit, where searches stop.

        Examples
        --------
        >>> Limits(stop=StopRequest()).memory_full()
        False
        >>> Limits(memory_limit=1e-9, stop=StopRequest()).memory_full()
        True
        """
        return self.memory_used() >= STOP_MEMORY_SHARE


@dataclass
class Clock:
    """Seconds of the search, earlier runs of a resumed search included, and this run's deadline.

    The time limit counts only this run's seconds (:meth:`run_elapsed`), so a resumed run
    gets its whole limit again; :meth:`elapsed`, which adds the earlier runs' seconds, is
    what reports and checkpoints show.

    Parameters
    ----------
    limits : Limits
    before : float, default=0.0
        Seconds spent by the runs this one resumes.

    Examples
    --------
    >>> clock = Clock(Limits(time_limit=5, stop=StopRequest()), before=10.0)
    >>> 10.0 <= clock.elapsed() < 11, clock.run_elapsed() < 1, clock.expired()
    (True, True, False)
    """

    limits: Limits
    before: float = 0.0
    start: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        """Seconds of the search so far, the runs it resumes included.

        Examples
        --------
        >>> clock = Clock(Limits(stop=StopRequest()), before=2.0)
        >>> clock.elapsed() >= 2.0
        True
        """
        return self.before + self.run_elapsed()

    def run_elapsed(self) -> float:
        """Seconds of this run, which the time limit counts.

        Examples
        --------
        >>> clock = Clock(Limits(stop=StopRequest()), before=2.0)
        >>> 0 <= clock.run_elapsed() < 1
        True
        """
        return time.perf_counter() - self.start

    def time_left(self) -> float:
        """Seconds this run has left: ``inf`` without a time limit, 0 once stopped.

        Examples
        --------
        >>> 99 < Clock(Limits(time_limit=100, stop=StopRequest()), before=500.0).time_left() <= 100
        True
        """
        return self.limits.time_left(self.run_elapsed())

    def expired(self) -> bool:
        """Whether this run's time limit has passed, or a stop was requested.

        Examples
        --------
        >>> Clock(Limits(time_limit=0, stop=StopRequest())).expired()
        True
        >>> Clock(Limits(time_limit=60, stop=StopRequest()), before=100.0).expired()
        False
        """
        return self.limits.time_reached(self.run_elapsed())

    def stop_reason(self) -> str | None:
        """Why the run must stop now, or None while it may go on.

        Returns
        -------
        str or None
            ``"interrupted"`` after a stop request, ``"time_limit"`` once this run's time
            is up, ``"memory_limit"`` at :data:`STOP_MEMORY_SHARE` of the memory limit.

        Examples
        --------
        >>> Clock(Limits(time_limit=0, stop=StopRequest())).stop_reason()
        'time_limit'
        >>> Clock(Limits(time_limit=60, memory_limit=1000.0, stop=StopRequest())).stop_reason() is None
        True
        """
        if self.limits.interrupted:
            return "interrupted"
        if self.expired():
            return "time_limit"
        return "memory_limit" if self.limits.memory_full() else None

    def deadline(self, share: float = 1.0) -> float:
        """Absolute :func:`time.perf_counter` time at which a phase must stop.

        Parameters
        ----------
        share : float, default=1.0
            Fraction of the time left that the phase may use.

        Examples
        --------
        >>> import time
        >>> clock = Clock(Limits(time_limit=100, stop=StopRequest()))
        >>> 0 < clock.deadline(share=0.5) - time.perf_counter() <= 50
        True
        >>> Clock(Limits(stop=StopRequest())).deadline()
        inf
        """
        left = self.time_left()
        return math.inf if math.isinf(left) else time.perf_counter() + share * left

    def wall_deadline(self) -> float:
        """The run's deadline on the wall clock (:func:`time.time`), for workers in other processes.

        Examples
        --------
        >>> import time
        >>> clock = Clock(Limits(time_limit=100, stop=StopRequest()))
        >>> 0 < clock.wall_deadline() - time.time() <= 100
        True
        """
        left = self.time_left()
        return math.inf if math.isinf(left) else time.time() + left


@dataclass
class Every:
    """A clock that is due once every ``seconds`` (measured with :func:`time.perf_counter`).

    Examples
    --------
    >>> clock = Every(3600.0)
    >>> clock.due()
    False
    >>> Every(0.0).due()
    True
    """

    seconds: float
    last: float = field(default_factory=time.perf_counter)

    def due(self) -> bool:
        """True, and restart the clock, when ``seconds`` have passed since the last time.

        Examples
        --------
        >>> every = Every(0.0)
        >>> every.due(), every.due()
        (True, True)
        >>> Every(60.0).due()
        False
        """
        now = time.perf_counter()
        if now - self.last < self.seconds:
            return False
        self.last = now
        return True
