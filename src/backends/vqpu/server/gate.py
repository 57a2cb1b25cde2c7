"""Requests before batches: the executor waits until the event loop has no request in hand.

A vQPU server's requests (parsing, checking, storing, answering) and its executor
share one process. When they compete for the CPU (the ``null`` backend, or a
simulator, keeps the executor busy), whichever runs first makes the other wait, and
a request that waits counts as the server's overhead, while a batch that waits counts
as queue time behind the device. A server in front of a QPU should answer requests
first and let the batches queue for the device, as they would for a real one whose
executor spends its time waiting on the hardware. :class:`IdleGate` does that: the
event loop counts the requests it is working on, and before each batch the executor
waits, for at most a bound, until that count is zero. A request waiting for its
batch to run is not counted, and the bound keeps the device running when requests
never stop arriving, or when one is stuck (a payload the decoder works on until its
time limit delays each batch by the bound at most).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

__all__ = ["IdleGate"]


class IdleGate:
    """Count the requests the event loop is working on; let another thread wait until there are none.

    :meth:`enter`, :meth:`leave` and :meth:`working` run on the event loop;
    :meth:`wait_idle` runs on any other thread (the executor's). Before :meth:`bind`
    there is no loop to wait for and :meth:`wait_idle` returns at once.

    Examples
    --------
    >>> import asyncio
    >>> gate = IdleGate()
    >>> async def demo():
    ...     gate.bind(asyncio.get_running_loop())
    ...     with gate.working():  # a request in hand: the other thread waits
    ...         busy = await asyncio.to_thread(gate.wait_idle, 0.05)
    ...     idle = await asyncio.to_thread(gate.wait_idle, 30.0)
    ...     return busy, idle
    >>> asyncio.run(demo())
    (False, True)
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._busy = 0
        self._idle: threading.Event | None = None  # the waiter to wake when the count drops to 0

    def bind(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """Use ``loop``, the event loop that serves the requests (None: no loop, no waiting).

        Examples
        --------
        >>> import asyncio
        >>> gate, loop = IdleGate(), asyncio.new_event_loop()
        >>> gate.bind(loop); gate.enter()
        >>> gate.wait_idle(0.01)  # a request in hand, and nobody runs the loop to answer
        False
        >>> gate.bind(None); gate.wait_idle(0.01)
        True
        >>> loop.close()
        """
        self._loop = loop

    @property
    def busy(self) -> int:
        """The number of requests the event loop is working on.

        Examples
        --------
        >>> gate = IdleGate()
        >>> gate.enter(2); gate.leave(); gate.busy
        1
        """
        return self._busy

    def enter(self, count: int = 1) -> None:
        """On the event loop: ``count`` more requests are being worked on.

        Raises
        ------
        ValueError
            If ``count`` is negative (requests leave one at a time, by :meth:`leave`).

        Examples
        --------
        >>> gate = IdleGate()
        >>> gate.enter(); gate.enter(0); gate.busy
        1
        """
        if count < 0:
            raise ValueError(f"IdleGate.enter() takes a count >= 0, got {count}")
        self._busy += count

    def leave(self) -> None:
        """On the event loop: one request is done or waits for its batch; wake the waiter at zero.

        Raises
        ------
        RuntimeError
            If no request is being worked on (a leave without its enter).

        Examples
        --------
        >>> gate = IdleGate()
        >>> gate.enter(); gate.leave(); gate.busy
        0
        >>> gate.leave()
        Traceback (most recent call last):
        ...
        RuntimeError: IdleGate.leave() without a request in hand
        """
        if self._busy <= 0:
            raise RuntimeError("IdleGate.leave() without a request in hand")
        self._busy -= 1
        if self._busy == 0 and self._idle is not None:
            self._idle.set()
            self._idle = None

    @contextlib.contextmanager
    def working(self) -> Iterator[None]:
        """On the event loop: count one request for the duration of the ``with`` block.

        Examples
        --------
        >>> gate = IdleGate()
        >>> with gate.working():
        ...     gate.busy
        1
        >>> gate.busy
        0
        """
        self.enter()
        try:
            yield
        finally:
            self.leave()

    def wait_idle(self, timeout: float) -> bool:
        """Block until the event loop has no request in hand, or ``timeout`` seconds pass.

        Must not be called on the event loop's thread (the loop would wait for itself).

        Returns
        -------
        bool
            True when the loop was idle (or there is no open loop), False on timeout.

        Examples
        --------
        >>> IdleGate().wait_idle(1.0)  # no loop bound: nothing to wait for
        True
        """
        loop = self._loop
        if loop is None:
            return True
        idle = threading.Event()
        try:
            loop.call_soon_threadsafe(self._when_idle, idle)
        except RuntimeError:  # the loop is closed: no request will be answered any more
            return True
        return idle.wait(timeout)

    def _when_idle(self, idle: threading.Event) -> None:
        """On the event loop: wake ``idle`` now if no request is in hand, else when the last leaves."""
        if self._busy == 0:
            idle.set()
        else:
            if self._idle is not None:  # an earlier waiter that timed out: wake it too, harmlessly
                self._idle.set()
            self._idle = idle
