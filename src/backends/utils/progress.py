"""Progress of long work on a text stream: live on a terminal, plain periodic lines in a pipe or log.

Long-running code reports *snapshots* (mappings such as ``{"phase": "search", "nodes": 120}``)
to a callback, as OR-Tools' solution callbacks do; :class:`ProgressLine` is the callback that
the command-line tools of every package hand in. On a terminal it keeps one live status line
(drawn by rich); on a pipe or a log file it writes a plain line when the phase changes and
otherwise at most every ``interval`` seconds. A heartbeat thread repeats the last snapshot
with a fresh elapsed time, so a phase that reports nothing for a while (a solver in a child
process, one long library call) still shows a line at least every ``interval`` seconds.

>>> import io
>>> out = io.StringIO()
>>> with ProgressLine(out, label="demo", heartbeat=False) as progress:
...     progress({"phase": "search", "nodes": 12, "bound": None, "gap": 0.25})
>>> out.getvalue().split(" | ")[:4]
['demo search', 'nodes 12', 'bound -', 'gap 0.25']
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, TextIO

from rich.console import Console
from rich.status import Status

from backends.utils.validation import check_nonnegative

__all__ = ["ProgressLine", "format_snapshot"]


def format_snapshot(label: str, snapshot: Mapping[str, Any], elapsed: float) -> str:
    """One line of text for a snapshot: ``label phase | key value | ... | elapsed s``.

    Parameters
    ----------
    label : str
        Name of the program or step (may be empty).
    snapshot : mapping
        ``phase`` (optional) leads; every other item is shown in insertion order as
        ``key value``, ``None`` as ``-`` and floats with four significant digits. A key
        ``elapsed`` in the snapshot is ignored in favour of ``elapsed``.
    elapsed : float
        Seconds since the work started.

    Returns
    -------
    str
        The line, without a newline.

    Examples
    --------
    >>> format_snapshot("bbqmis", {"phase": "search", "nodes": 12, "gap": 0.25, "bound": None}, 3.14)
    'bbqmis search | nodes 12 | gap 0.25 | bound - | 3.1 s'
    """
    head = " ".join(str(part) for part in (label, snapshot.get("phase", "")) if part != "")
    fields = [f"{key} {_value(value)}" for key, value in snapshot.items() if key not in ("phase", "elapsed")]
    return " | ".join([head, *fields, f"{elapsed:.1f} s"])


def _value(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


class ProgressLine:
    """A progress callback that renders snapshots on ``stream`` (standard error by default).

    Parameters
    ----------
    stream : text stream, optional
        Where to write; ``sys.stderr`` if omitted. A stream whose ``isatty()`` is true gets a
        live line (rich), any other plain lines.
    label : str, default ""
        Shown at the start of every line (a program or step name).
    interval : float, default 1.5
        Seconds between plain lines within one phase, and between heartbeats; 0 writes
        every snapshot.
    enabled : bool, default True
        ``False`` makes every call a no-op (``--quiet``).
    heartbeat : bool, default True
        Repeat the last snapshot every ``interval`` seconds from a daemon thread while no new
        one arrives.
    clock : callable, default time.monotonic
        Returns seconds; injectable for tests.

    Notes
    -----
    Safe to call from several threads; :meth:`close` is idempotent and is called on leaving a
    ``with`` block.

    Examples
    --------
    In a pipe (any stream that is not a terminal) every new phase gives a plain line:

    >>> import io
    >>> stream = io.StringIO()
    >>> with ProgressLine(stream, label="demo", interval=60, heartbeat=False) as progress:
    ...     progress({"phase": "bounds", "lower": 3})
    ...     progress({"phase": "bounds", "lower": 4})
    ...     progress({"phase": "search", "nodes": 10})
    >>> [line.rsplit(" | ", 1)[0] for line in stream.getvalue().splitlines()]
    ['demo bounds | lower 3', 'demo search | nodes 10']
    """

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        label: str = "",
        interval: float = 1.5,
        enabled: bool = True,
        heartbeat: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = check_nonnegative(interval, "interval")
        self.stream = sys.stderr if stream is None else stream
        self.label = label
        self.enabled = enabled
        self._clock = clock
        self._start = clock()
        self._lock = threading.Lock()
        self._last: Mapping[str, Any] | None = None
        self._last_line = -float("inf")
        self._phase: object = object()
        self._closed = threading.Event()
        self._status: Status | None = None
        if enabled and self.stream.isatty():
            self._status = Status("", console=Console(file=self.stream, stderr=self.stream is sys.stderr))
            self._status.start()
        self._thread: threading.Thread | None = None
        if enabled and heartbeat:
            self._thread = threading.Thread(target=self._beat, name="progress-heartbeat", daemon=True)
            self._thread.start()

    @property
    def elapsed(self) -> float:
        """Seconds since this line was created."""
        return self._clock() - self._start

    def __call__(self, snapshot: Mapping[str, Any]) -> None:
        """Show ``snapshot`` (live), or write it if its phase is new or ``interval`` has passed."""
        if not self.enabled or self._closed.is_set():
            return
        with self._lock:
            self._last = dict(snapshot)
            self._render(force=snapshot.get("phase") != self._phase)

    def _render(self, *, force: bool) -> None:
        assert self._last is not None
        now = self.elapsed
        line = format_snapshot(self.label, self._last, now)
        if self._status is not None:
            self._status.update(line)
        elif force or now - self._last_line >= self.interval:
            self.stream.write(line + "\n")
            self.stream.flush()
            self._last_line = now
        self._phase = self._last.get("phase")

    def _beat(self) -> None:
        wait = self.interval
        while not self._closed.wait(max(wait, 0.01)):
            with self._lock:
                if self._last is not None and not self._closed.is_set():
                    self._render(force=False)
                wait = (
                    self.interval
                    if self._status is not None
                    else self._last_line + self.interval - self.elapsed
                )

    def close(self) -> None:
        """Stop the heartbeat and the live line; the last snapshot stays on a terminal.

        Examples
        --------
        >>> import io
        >>> stream = io.StringIO()
        >>> progress = ProgressLine(stream, interval=0, heartbeat=False)
        >>> progress.close()
        >>> progress({"phase": "late"})
        >>> progress.close()
        >>> stream.getvalue()
        ''
        """
        if self._closed.is_set():
            return
        self._closed.set()
        if self._thread is not None:
            self._thread.join()
        if self._status is not None:
            self._status.stop()
            if self._last is not None:
                self.stream.write(format_snapshot(self.label, self._last, self.elapsed) + "\n")
                self.stream.flush()

    def __enter__(self) -> ProgressLine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
