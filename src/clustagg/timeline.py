"""Phases of a run and the classical node-seconds they hold.

A :class:`Timeline` records phases ``(iteration, phase, start, end, nodes)`` and a
*floor*, the nodes held between phases. Node-seconds are
``floor * wall + sum((nodes - floor) * (end - start))``; see :mod:`clustagg.runner` for
the floor and nodes of each resource mode.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import TypedDict

__all__ = ["PhaseRecord", "Timeline"]


class PhaseRecord(TypedDict):
    """One phase of a run; times in seconds since the run started.

    Examples
    --------
    >>> record: PhaseRecord = {"iteration": 0, "phase": "quantum", "start": 1.0, "end": 3.5, "nodes": 1}
    >>> record["end"] - record["start"]
    2.5
    """

    iteration: int
    phase: str
    start: float
    end: float
    nodes: int


class Timeline:
    """Phases of a run and the node-seconds they hold.

    Parameters
    ----------
    floor : int
        Nodes held between phases.

    Attributes
    ----------
    origin : float
        :func:`time.perf_counter` when the timeline was made (the run's start).
    records : list of PhaseRecord
        The phases recorded so far, in order of their end.

    Examples
    --------
    >>> timeline = Timeline(floor=1)
    >>> with timeline.phase(0, "cluster", nodes=3):
    ...     pass
    >>> [(r["phase"], r["nodes"]) for r in timeline.records]
    [('cluster', 3)]
    """

    def __init__(self, floor: int) -> None:
        self.floor = floor
        self.origin = time.perf_counter()
        self.records: list[PhaseRecord] = []

    def elapsed(self) -> float:
        """Seconds since :attr:`origin`.

        Examples
        --------
        >>> import time
        >>> timeline = Timeline(floor=1)
        >>> time.sleep(0.01)
        >>> timeline.elapsed() >= 0.01
        True
        """
        return time.perf_counter() - self.origin

    @contextlib.contextmanager
    def phase(self, iteration: int, name: str, nodes: int) -> Iterator[None]:
        """Record the enclosed block as ``name`` holding ``nodes`` nodes (also if it raises).

        Examples
        --------
        >>> timeline = Timeline(floor=1)
        >>> try:
        ...     with timeline.phase(2, "score", nodes=1):
        ...         raise RuntimeError("killed")
        ... except RuntimeError:
        ...     pass
        >>> record = timeline.records[0]
        >>> record["iteration"], record["phase"], record["end"] >= record["start"]
        (2, 'score', True)
        """
        start = self.elapsed()
        try:
            yield
        finally:
            end = self.elapsed()
            self.records.append(
                {"iteration": iteration, "phase": name, "start": start, "end": end, "nodes": nodes}
            )

    def node_seconds(self, wall: float) -> float:
        """``floor * wall`` plus the extra nodes of every phase times its duration.

        Parameters
        ----------
        wall : float
            Wall time of the run (s).

        Returns
        -------
        float
            Node-seconds.

        Examples
        --------
        One node for a 10 s run, plus two extra nodes during a 3 s phase:

        >>> timeline = Timeline(floor=1)
        >>> timeline.records.append(
        ...     {"iteration": 0, "phase": "cluster", "start": 1.0, "end": 4.0, "nodes": 3}
        ... )
        >>> timeline.node_seconds(wall=10.0)
        16.0
        """
        extra = sum((r["nodes"] - self.floor) * (r["end"] - r["start"]) for r in self.records)
        return self.floor * wall + extra
