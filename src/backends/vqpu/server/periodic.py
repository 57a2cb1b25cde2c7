"""A function called every few seconds on a daemon thread, stopped cleanly: the servers' background passes."""

from __future__ import annotations

import threading
from collections.abc import Callable

from backends.utils.validation import check_interval

__all__ = ["Periodic"]


class Periodic:
    """Call ``work()`` every ``interval`` seconds on a daemon thread named ``name``.

    Parameters
    ----------
    work : callable
        One pass; an exception ends nothing but that pass's thread, so ``work`` catches its own.
    interval : float
        Seconds between the end of a pass and the start of the next (0 < interval <= 3600).
    name : str
        The thread's name (seen in ``py-spy`` and logs).

    Examples
    --------
    >>> passes = []
    >>> periodic = Periodic(lambda: passes.append(1), 0.01, "example").start()
    >>> periodic.wait_passes(3)
    True
    >>> periodic.stop(), periodic.stop()
    (True, False)
    """

    def __init__(self, work: Callable[[], object], interval: float, name: str) -> None:
        self.work = work
        self.interval = check_interval(interval, "interval", 0, 3600.0)
        self.name = name
        self.passes = 0
        self._stop = threading.Event()
        self._passed = threading.Condition()
        self._thread: threading.Thread | None = None

    def start(self) -> Periodic:
        """Start the thread (its first pass after ``interval``); returns ``self``.

        Examples
        --------
        >>> periodic = Periodic(lambda: None, 60.0, "example").start()
        >>> periodic.passes
        0
        >>> periodic.stop()
        True
        """
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop after the pass in progress (waiting up to ``timeout`` s); whether a thread was running.

        Safe to call twice, and on a ``Periodic`` never started.

        Examples
        --------
        >>> periodic = Periodic(lambda: None, 60.0, "example").start()
        >>> periodic.stop(), periodic.stop()
        (True, False)
        """
        self._stop.set()
        if self._thread is None:
            return False
        self._thread.join(timeout=timeout)
        self._thread = None
        return True

    def wait_passes(self, count: int, timeout: float = 60.0) -> bool:
        """Wait until ``count`` passes have run since the start; whether they did within ``timeout`` s.

        Examples
        --------
        >>> periodic = Periodic(lambda: None, 60.0, "example").start()
        >>> periodic.wait_passes(1, timeout=0.01)
        False
        >>> periodic.stop()
        True
        """
        with self._passed:
            return self._passed.wait_for(lambda: self.passes >= count, timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.work()
            with self._passed:
                self.passes += 1
                self._passed.notify_all()
