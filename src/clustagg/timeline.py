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
    """One phase of a run; times in seconds since the run started."""

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
        """Seconds since :attr:`origin`."""
        return time.perf_counter() - self.origin

    @contextlib.contextmanager
    def phase(self, iteration: int, name: str, nodes: int) -> Iterator[None]:
        """Record the enclosed block as ``name`` holding ``nodes`` nodes (also if it raises)."""
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
        """
        extra = sum((r["nodes"] - self.floor) * (r["end"] - r["start"]) for r in self.records)
        return self.floor * wall + extra
