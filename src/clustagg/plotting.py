"""Figures: the chosen clustering and the nodes in use over time.

Both draw on a :class:`matplotlib.figure.Figure` (Agg canvas), never through pyplot's
global state, so they work headless and in threads.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import IO

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import NDArray

from .timeline import PhaseRecord

__all__ = ["PLOT_FORMATS", "plot_clustering", "plot_timelines"]

#: File formats the figures can be saved in (by suffix), as matplotlib's Agg canvas offers them.
PLOT_FORMATS = frozenset(FigureCanvasAgg.get_supported_filetypes())


def plot_clustering(
    X: NDArray[np.floating],
    labels: NDArray[np.integer],
    path: str | os.PathLike[str] | IO[bytes],
    *,
    title: str | None = None,
    format: str | None = None,
) -> None:
    """Scatter the first two coordinates of ``X`` coloured by ``labels`` and save to ``path``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
    path : str, path-like or binary file
        Output; the format follows its suffix (``.png``, ``.pdf``, ``.svg``) unless given.
    title : str, optional
    format : str, optional
        One of :data:`PLOT_FORMATS`; needed for a file object.

    Examples
    --------
    >>> import io
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 5.0], [5.0, 6.0]])
    >>> buffer = io.BytesIO()
    >>> plot_clustering(X, np.array([0, 0, 1, 1]), buffer, format="png")
    >>> buffer.getvalue()[1:4]
    b'PNG'
    """
    fig = Figure(figsize=(6, 6))
    ax = fig.subplots()
    y = X[:, 1] if X.shape[1] > 1 else np.zeros(len(X))
    ax.scatter(X[:, 0], y, c=labels, s=1, cmap="tab10", rasterized=True)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_title(title or f"{len(np.unique(labels))} clusters")
    fig.savefig(path, dpi=120, bbox_inches="tight", format=format)


def plot_timelines(
    timelines: Mapping[str, tuple[float, Sequence[Sequence[PhaseRecord]]]],
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
) -> None:
    """Step plot of classical nodes in use over time, one panel per entry.

    Parameters
    ----------
    timelines : dict of str -> (float, list of list of dict)
        Panel title -> (node floor, one timeline per concurrent workload, as in
        :attr:`AggregationResult.timeline`). Concurrent workloads are stacked.
    path : str or path-like
    title : str, optional

    Examples
    --------
    One node throughout, three during a 2 s cluster phase:

    >>> import tempfile
    >>> from pathlib import Path
    >>> phases = [{"iteration": 0, "phase": "cluster", "start": 0.0, "end": 2.0, "nodes": 3}]
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     plot_timelines({"malleable": (1.0, [phases])}, f"{folder}/nodes.svg", title="demo")
    ...     Path(f"{folder}/nodes.svg").read_text().startswith("<?xml")
    True
    """
    fig = Figure(figsize=(8, 2.2 * len(timelines)), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(timelines), 1, sharex=True))
    for ax, (name, (floor, workloads)) in zip(axes, timelines.items(), strict=True):
        ends = [max((r["end"] for r in t), default=0.0) for t in workloads]
        grid = np.linspace(0, max(ends, default=1.0), 2000)
        total = np.zeros_like(grid)
        for timeline, end in zip(workloads, ends, strict=True):
            nodes = np.where(grid <= end, float(floor), 0.0)
            for r in timeline:
                nodes[(grid >= r["start"]) & (grid < r["end"])] = r["nodes"]
            ax.fill_between(grid, total, total + nodes, step="post", alpha=0.6)
            total += nodes
        ax.set_ylabel("nodes")
        ax.set_title(name, fontsize=9)
    axes[-1].set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=120, bbox_inches="tight")
