"""The outcome of an aggregation run, the same in every resource mode."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .loop import LoopState
from .timeline import PhaseRecord, Timeline

__all__ = ["AggregationResult", "collect_result"]


@dataclass
class AggregationResult:
    """Outcome of an aggregation run.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Best clustering found, labels ``0..k-1``.
    silhouette : float
        Its silhouette.
    chosen_clusters : list of dict
        The clusters it is made of: ``algorithm`` (which base clustering won),
        ``cluster`` (its label there) and ``size`` (points before uncovered points were
        assigned).
    iterations : list of float
        Silhouette of every round.
    wall_seconds : float
        Wall time of the run (s).
    node_seconds : float
        Classical nodes held times seconds (see :mod:`clustagg.runner`).
    mode : str
    seed : int
    best_iteration : int
        Round of ``labels``.
    parameters : list of dict
        Base-clustering parameters of every round.
    fallbacks : int
        Rounds in which the QAOA solver fell back to annealing.
    timeline : list of dict
        ``iteration``, ``phase``, ``start``, ``end`` (s since the run started), ``nodes``.
    """

    labels: NDArray[np.integer[Any]]
    silhouette: float
    chosen_clusters: list[dict[str, Any]]
    iterations: list[float]
    wall_seconds: float
    node_seconds: float
    mode: str
    seed: int
    best_iteration: int
    parameters: list[dict[str, Any]]
    fallbacks: int
    timeline: list[PhaseRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form with the attribute names as keys (labels as a list)."""
        data = asdict(self)
        data["labels"] = self.labels.tolist()
        return data


def collect_result(
    labels: NDArray[np.integer[Any]], state: LoopState, timeline: Timeline, mode: str, seed: int
) -> AggregationResult:
    """The result of a run that ends now.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        The best round's labels.
    state : LoopState
        The loop state after the last round.
    timeline : Timeline
        The run's timeline; its origin is the run's start.
    mode : str
    seed : int
        The run's seed.

    Returns
    -------
    AggregationResult
    """
    wall = timeline.elapsed()
    return AggregationResult(
        labels=labels,
        silhouette=state.silhouette,
        chosen_clusters=state.chosen_clusters,
        iterations=state.iterations,
        wall_seconds=wall,
        node_seconds=timeline.node_seconds(wall),
        mode=mode,
        seed=seed,
        best_iteration=state.best_iteration,
        parameters=state.parameters,
        fallbacks=state.fallbacks,
        timeline=timeline.records,
    )
