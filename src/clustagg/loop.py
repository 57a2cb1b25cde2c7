"""Settings and state of the aggregation loop, shared by every resource mode.

:class:`LoopSettings` holds the checked parameters that decide when the loop stops, how
a round is scored and where its progress goes; :class:`LoopState` is the history of the rounds run so far and
their best one. Both are plain data: the score step writes :meth:`LoopState.to_json`
to ``score.json`` and the next round reads it back with :meth:`LoopState.from_json`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from backends.utils.validation import check_interval, check_nonnegative, check_positive_int

from .clusterers import draw_parameters
from .reference import reference_parameters

__all__ = ["LoopSettings", "LoopState"]


@dataclass(frozen=True)
class LoopSettings:
    """When the loop stops, how a round is scored and who hears of it; checked on construction.

    Parameters
    ----------
    threshold : float, default=0.8
        The loop stops after the first round whose silhouette exceeds it; in (-1, 1].
    max_iter : int, default=10
        At most this many rounds.
    quantum_delay : float, default=0.0
        Seconds (>= 0) added to every quantum step, emulating a remote QPU.
    sample_size : int or None, default=20000
        Points in the silhouette sample; ``None`` for the exact silhouette.
    reference : bool, default=False
        Replay the reference application's parameters (:mod:`clustagg.reference`, round
        seeds 0..9) instead of drawing them.
    progress : callable, optional
        Called with a snapshot mapping as each phase of a round starts and when the loop
        ends (:meth:`report`), for example a :class:`backends.utils.progress.ProgressLine`.

    Raises
    ------
    InvalidParameterError
        On a value out of range; the message names the parameter.

    Examples
    --------
    >>> LoopSettings(threshold=0.5, max_iter=3).max_iter
    3
    """

    threshold: float = 0.8
    max_iter: int = 10
    quantum_delay: float = 0.0
    sample_size: int | None = 20000
    reference: bool = False
    progress: Callable[[Mapping[str, Any]], None] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", check_interval(self.threshold, "threshold", -1.0, 1.0))
        object.__setattr__(self, "max_iter", check_positive_int(self.max_iter, "max_iter"))
        object.__setattr__(self, "quantum_delay", check_nonnegative(self.quantum_delay, "quantum_delay"))
        if self.sample_size is not None:
            object.__setattr__(self, "sample_size", check_positive_int(self.sample_size, "sample_size"))
        object.__setattr__(self, "reference", bool(self.reference))

    def parameters(self, seed: int) -> dict[str, Any]:
        """Base-clustering parameters of the round with seed ``seed``: drawn, or the reference's.

        See :func:`clustagg.clusterers.draw_parameters` and
        :func:`clustagg.reference.reference_parameters`.

        Examples
        --------
        >>> LoopSettings().parameters(0) == LoopSettings().parameters(0)
        True
        >>> sorted(LoopSettings(reference=True).parameters(0))
        ['dbscan', 'hclust', 'kmeans']
        """
        return reference_parameters(seed) if self.reference else draw_parameters(seed)

    def report(self, iteration: int, phase: str, state: LoopState) -> None:
        """Send ``{"phase", "round", "silhouette", "best"}`` to :attr:`progress`, if any.

        Parameters
        ----------
        iteration : int
            Round index (shown from 1, out of ``max_iter``).
        phase : str
            The phase starting (``cluster``, ``quantum``, ``score``), or ``done``.
        state : LoopState
            The loop state so far: the last round's and the best silhouette.

        Examples
        --------
        >>> settings = LoopSettings(max_iter=3, progress=print)
        >>> state = LoopState(iterations=[0.4, 0.6], silhouette=0.6, best_iteration=1)
        >>> settings.report(2, "score", state)
        {'phase': 'score', 'round': '3/3', 'silhouette': 0.6, 'best': 0.6}
        """
        if self.progress is None:
            return
        ran = bool(state.iterations)
        self.progress(
            {
                "phase": phase,
                "round": f"{iteration + 1}/{self.max_iter}",
                "silhouette": state.iterations[-1] if ran else None,
                "best": state.silhouette if ran else None,
            }
        )


@dataclass
class LoopState:
    """History of the loop and its best round so far.

    Attributes
    ----------
    iterations : list of float
        Silhouette of every round, in order.
    parameters : list of dict
        Base-clustering parameters of every round.
    fallbacks : int
        Solver fallbacks (QAOA -> annealing) over all rounds.
    best_iteration : int
        Round of the best silhouette (first one on ties); -1 before any round.
    silhouette : float
        Best silhouette so far.
    chosen_clusters : list of dict
        The best round's chosen clusters: ``algorithm``, ``cluster``, ``size``.
    training : dict or None
        Training and sampling counters of QAOA angles trained on the backend, summed over
        the rounds whose quantum step reported them (``selection["training"]``, see
        :func:`clustagg.solvers.training_counters`); None when no round did.

    Examples
    --------
    >>> state = LoopState()
    >>> state.update(0.5, {"fallbacks": 0, "chosen_clusters": []}, {})
    True
    >>> state.done(threshold=0.8, max_iter=2), state.best_iteration
    (False, 0)
    """

    iterations: list[float] = field(default_factory=list)
    parameters: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: int = 0
    best_iteration: int = -1
    silhouette: float = float("-inf")
    chosen_clusters: list[dict[str, Any]] = field(default_factory=list)
    training: dict[str, float] | None = None

    def update(self, silhouette: float, selection: dict[str, Any], parameters: dict[str, Any]) -> bool:
        """Record a round; return whether it is the new best (the first round always is).

        Parameters
        ----------
        silhouette : float
            The round's silhouette.
        selection : dict
            The round's quantum-step output (:func:`clustagg.steps.aggregate`); its
            ``fallbacks`` and ``chosen_clusters`` are used, and its ``training`` counters,
            if any, are added to :attr:`training`.
        parameters : dict
            The round's base-clustering parameters (:func:`clustagg.clusterers.draw_parameters`).

        Returns
        -------
        bool

        Examples
        --------
        >>> state = LoopState()
        >>> chosen = [{"algorithm": "kmeans", "cluster": 0, "size": 10}]
        >>> state.update(0.5, {"fallbacks": 0, "chosen_clusters": chosen}, {})
        True
        >>> state.update(0.4, {"fallbacks": 1, "chosen_clusters": []}, {})
        False
        >>> state.best_iteration, state.silhouette, state.fallbacks, state.chosen_clusters == chosen
        (0, 0.5, 1, True)
        >>> trained = {"training_problems": 1.0, "training_evaluations": 12.0}
        >>> _ = state.update(0.3, {"fallbacks": 0, "chosen_clusters": [], "training": trained}, {})
        >>> _ = state.update(0.3, {"fallbacks": 0, "chosen_clusters": [], "training": trained}, {})
        >>> state.training
        {'training_problems': 2.0, 'training_evaluations': 24.0}
        """
        self.iterations.append(float(silhouette))
        self.parameters.append(parameters)
        self.fallbacks += int(selection["fallbacks"])
        if selection.get("training") is not None:
            total = self.training if self.training is not None else {}
            for key, value in selection["training"].items():
                total[key] = total.get(key, 0.0) + float(value)
            self.training = total
        improved = silhouette > self.silhouette or self.best_iteration < 0
        if improved:
            self.best_iteration = len(self.iterations) - 1
            self.silhouette = float(silhouette)
            self.chosen_clusters = selection["chosen_clusters"]
        return improved

    def done(self, threshold: float, max_iter: int) -> bool:
        """Whether the loop stops: the last round scored above ``threshold`` or ``max_iter`` rounds ran.

        Examples
        --------
        >>> LoopState().done(threshold=0.8, max_iter=1)
        False
        >>> LoopState(iterations=[0.9]).done(threshold=0.8, max_iter=10)
        True
        >>> LoopState(iterations=[0.1, 0.2]).done(threshold=0.8, max_iter=2)
        True
        """
        return bool(self.iterations) and (self.iterations[-1] > threshold or len(self.iterations) >= max_iter)

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form with the attribute names as keys.

        Examples
        --------
        >>> state = LoopState()
        >>> state.update(0.7, {"fallbacks": 0, "chosen_clusters": []}, {"kmeans": {"k": 3}})
        True
        >>> state.to_json()["parameters"], state.to_json()["silhouette"]
        ([{'kmeans': {'k': 3}}], 0.7)
        """
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LoopState:
        """Inverse of :meth:`to_json` (extra keys are ignored; a missing ``training`` is None).

        Examples
        --------
        >>> import json
        >>> state = LoopState(iterations=[0.3], best_iteration=0, silhouette=0.3)
        >>> data = json.loads(json.dumps({"seed": 4, **state.to_json()}))
        >>> LoopState.from_json(data) == state
        True
        """
        values: dict[str, Any] = {name: data[name] for name in cls.__dataclass_fields__ if name != "training"}
        return cls(**values, training=data.get("training"))  # states saved before training lack it
