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
    quantum_step_on : {"qpu-partition", "hyperqueue", "vqpu", "rank0"}
        Where the quantum steps ran (:mod:`clustagg.quantum_step`): a job on the quantum
        partition, a HyperQueue job, a vQPU, or the run's own first process.
    training : dict or None
        With QAOA angles trained on the backend (``--angles trained``), the work of all
        rounds as :func:`bbqmis.mis.training.training_summary` gives it: ``problems``,
        ``evaluations``, ``circuits``, ``shots`` and ``quantum_seconds`` of the training,
        the same for the final ``sampling``, ``mean_gap`` and ``mean_relative_gap`` to the
        closed-form optimum; None with closed-form angles.

    Examples
    --------
    :func:`clustagg.run` returns one; two rounds, the second the best:

    >>> import numpy as np
    >>> result = AggregationResult(
    ...     labels=np.array([0, 0, 1, 1]), silhouette=0.7, chosen_clusters=[], iterations=[0.2, 0.7],
    ...     wall_seconds=2.0, node_seconds=2.0, mode="local", seed=0, best_iteration=1,
    ...     parameters=[{}, {}], fallbacks=0,
    ... )
    >>> result.iterations[result.best_iteration] == result.silhouette
    True
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
    quantum_step_on: str = "rank0"
    training: dict[str, Any] | None = None

    def __repr__(self) -> str:
        """One line: mode, points, clusters, best silhouette and its round, rounds, seconds.

        Examples
        --------
        >>> import numpy as np
        >>> AggregationResult(np.array([0, 0, 1, 1]), 0.7, [{}, {}], [0.2, 0.7], 2.0, 2.0, "baseline", 0, 1,
        ...                   [{}, {}], 0)  # doctest: +ELLIPSIS
        AggregationResult(mode='baseline', points=4, clusters=2, silhouette=0.7, best_iteration=1, ...)
        """
        return (
            f"AggregationResult(mode={self.mode!r}, points={len(self.labels)}, "
            f"clusters={len(self.chosen_clusters)}, silhouette={self.silhouette:.4g}, "
            f"best_iteration={self.best_iteration}, rounds={len(self.iterations)}, "
            f"wall_seconds={self.wall_seconds:.4g}, node_seconds={self.node_seconds:.4g})"
        )

    def training_note(self) -> str:
        """The summary line's account of trained angles; ``""`` with closed-form ones.

        Examples
        --------
        >>> import numpy as np
        >>> result = AggregationResult(np.array([0, 1]), 0.5, [], [0.5], 1.0, 1.0, "baseline", 0, 0, [{}], 0)
        >>> result.training_note()
        ''
        >>> result.training = {"problems": 2, "evaluations": 31, "circuits": 31, "quantum_seconds": 0.5,
        ...                    "mean_relative_gap": 0.004}
        >>> result.training_note()
        '; trained angles: 2 problems, 31 evaluations, 31 circuits, 0.500 quantum s, gap 0.4%'
        """
        if not self.training:
            return ""
        gap = self.training.get("mean_relative_gap")
        return (
            f"; trained angles: {self.training['problems']} problems, "
            f"{self.training['evaluations']} evaluations, {self.training['circuits']} circuits, "
            f"{self.training['quantum_seconds']:.3f} quantum s" + ("" if gap is None else f", gap {gap:.1%}")
        )

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form with the attribute names as keys (labels as a list).

        Examples
        --------
        >>> import json
        >>> import numpy as np
        >>> result = AggregationResult(
        ...     labels=np.array([0, 0, 1]), silhouette=0.5, chosen_clusters=[], iterations=[0.5],
        ...     wall_seconds=1.0, node_seconds=1.0, mode="local", seed=0, best_iteration=0,
        ...     parameters=[{}], fallbacks=0,
        ... )
        >>> data = json.loads(json.dumps(result.to_json()))
        >>> data["labels"], data["silhouette"], data["timeline"], data["quantum_step_on"]
        ([0, 0, 1], 0.5, [], 'rank0')
        """
        data = asdict(self)
        data["labels"] = self.labels.tolist()
        return data


def collect_result(
    labels: NDArray[np.integer[Any]],
    state: LoopState,
    timeline: Timeline,
    mode: str,
    seed: int,
    *,
    quantum_step_on: str = "rank0",
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
    quantum_step_on : str, default="rank0"
        Where the quantum steps ran.

    Returns
    -------
    AggregationResult

    Examples
    --------
    >>> import numpy as np
    >>> state = LoopState()
    >>> state.update(0.6, {"fallbacks": 0, "chosen_clusters": []}, {})
    True
    >>> timeline = Timeline(floor=1)
    >>> result = collect_result(np.array([0, 1, 1]), state, timeline, mode="local", seed=5)
    >>> result.silhouette, result.iterations, result.seed
    (0.6, [0.6], 5)
    >>> 0 < result.node_seconds == result.wall_seconds
    True
    >>> result.training is None  # no round trained QAOA angles
    True
    """
    wall = timeline.elapsed()
    training = None
    if state.training is not None:
        from bbqmis.mis.training import training_summary  # imports qiskit: only for a trained run

        training = training_summary(state.training)
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
        quantum_step_on=quantum_step_on,
        training=training,
    )
