r"""The pricing oracle of column generation: heavy independent sets under dual vertex weights.

The restricted master (:mod:`~bbqmis.coloring.lp.master`) gives duals ``y >= 0``; a set
``S`` with ``y(S) > 1`` has a negative reduced cost ``1 - y(S)`` and enters the master
(:func:`~bbqmis.coloring.lp.lp_bound.lp_bound`). This module holds what every pricer
shares: the :class:`Pricer` protocol, the :class:`PricingResult` of one call, the repair
and extension of samples, and :func:`device_work`.

Pricing goes through the same samplers as branching (the pricers of
:mod:`~bbqmis.coloring.lp.heuristic_pricers` and :mod:`~bbqmis.coloring.lp.exact_pricer`,
by name through :func:`~bbqmis.coloring.lp.pricers.get_pricer`), so a quantum sampler contributes
columns and the statistics say how many:

``"qaoa"``
    Single-layer QAOA of the weighted MIS QUBO on the shared
    :class:`~bbqmis.solver.QuantumMISSolver`. Vertices with zero dual cannot raise a
    weight and are dropped; the largest duals are kept up to the solver's width (about
    24 qubits), which is what makes quantum pricing practical.
``"anneal"``
    Simulated annealing of the same QUBO on all positive-dual vertices.
``"greedy"``, ``"random"``
    Heaviest-first greedy sets from the heaviest vertices, and random bitstrings (the
    baseline QAOA must beat).
``"exact"``
    Exact maximum-weight independent set by HiGHS MILP with clique constraints from a
    greedy edge clique cover. It *certifies* the LP value: when even the exact optimum
    has ``y(S) <= 1`` no column is missing.

Every heuristic sample is repaired to an independent set (the lightest conflicting
vertex dropped first) and extended to a maximal one on the full graph, heaviest first.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike

from ...mis.problem import MISProblem
from ...samples import Stats, new_stats
from .master import GraphLike, IndexedGraph, bit_indices

__all__ = [
    "DEVICE_COUNTERS",
    "IMPROVE_TOL",
    "Pricer",
    "PricingResult",
    "device_work",
]

#: A column improves the master when its dual weight exceeds ``1 + IMPROVE_TOL``.
IMPROVE_TOL = 1e-9

#: The counters of a pricer's statistics that measure work sent to a quantum device.
DEVICE_COUNTERS = ("circuits", "shots", "quantum_seconds")

#: Duals at or below this are treated as zero (their sum is added to the exact upper bound).
_ZERO_DUAL = 1e-10


@dataclass
class PricingResult:
    """Columns found by one :meth:`Pricer.price` call.

    Attributes
    ----------
    masks : list of int
        Distinct maximal independent sets as bitsets over ``0..n-1``, heaviest first.
    weights : ndarray of shape (k,)
        Dual weight ``sum_{v in S} y_v`` of each set.
    upper : float
        Proven upper bound on the maximum weight of an independent set (``inf`` for
        heuristics; the MILP dual bound for the exact pricer, even when stopped by time).
    optimal : bool
        True when the exact pricer proved ``masks[0]`` optimal.
    stats : Stats
        Work of the call (``calls``, ``seconds``, and the quantum solver's counters).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.coloring.lp.heuristic_pricers import GreedyPricer
    >>> result = GreedyPricer().price(nx.path_graph(3), [1.0, 0.5, 1.0])
    >>> [bin(mask) for mask in result.masks], result.best, result.upper
    (['0b101'], 2.0, inf)
    """

    masks: list[int]
    weights: np.ndarray
    upper: float = math.inf
    optimal: bool = False
    stats: Stats = field(default_factory=new_stats)

    @property
    def best(self) -> float:
        """Weight of the heaviest set found (0 when none)."""
        return float(self.weights[0]) if len(self.weights) else 0.0


@runtime_checkable
class Pricer(Protocol):
    """Anything with ``price(graph, duals, seed=None, *, time_limit=None) -> PricingResult``.

    ``name`` keys the statistics of :func:`~bbqmis.coloring.lp.lp_bound.lp_bound`; ``certifies``
    marks exact pricers.

    Examples
    --------
    >>> from bbqmis.coloring.lp.exact_pricer import ExactPricer
    >>> from bbqmis.coloring.lp.heuristic_pricers import GreedyPricer
    >>> isinstance(GreedyPricer(), Pricer), isinstance(ExactPricer(), Pricer)
    (True, True)
    """

    name: str
    certifies: bool

    def price(
        self,
        graph: GraphLike,
        duals: npt.ArrayLike,
        seed: SeedLike = None,
        *,
        time_limit: float | None = None,
    ) -> PricingResult:
        """Heavy independent sets under the vertex weights ``duals``.

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis.coloring.lp.exact_pricer import ExactPricer
        >>> pricer: Pricer = ExactPricer()
        >>> result = pricer.price(nx.star_graph(3), [2.5, 1.0, 1.0, 1.0])
        >>> [bin(mask) for mask in result.masks], result.best
        (['0b1110'], 3.0)
        """


def _check_duals(graph: IndexedGraph, duals: npt.ArrayLike) -> np.ndarray:
    y = np.asarray(duals, dtype=float)
    if y.shape != (graph.n,):
        raise InvalidParameterError(f"duals must have shape ({graph.n},), got {y.shape}")
    if not np.isfinite(y).all() or (y < -1e-9).any():
        raise InvalidParameterError("duals must be finite and >= 0")
    return np.clip(y, 0.0, None)


def _support(y: np.ndarray, limit: int | None = None) -> np.ndarray:
    """Positive-dual vertices, largest dual first (ties: lower index), at most ``limit``."""
    positive = np.flatnonzero(y > _ZERO_DUAL)
    order = positive[np.lexsort((positive, -y[positive]))]
    return order if limit is None else order[:limit]


def _repair(graph: IndexedGraph, mask: int, y: np.ndarray) -> int:
    """Drop conflicting vertices, the lightest first, until ``mask`` is independent."""
    conflicted = [v for v in bit_indices(mask) if graph.neighbors[v] & mask]
    for v in sorted(conflicted, key=lambda v: (y[v], v)):
        if graph.neighbors[v] & mask:
            mask &= ~(1 << v)
    return mask


def _local_search(graph: IndexedGraph, mask: int, y: np.ndarray) -> int:
    """Improve an independent set by 1-swaps: add ``v``, drop its neighbours in the set.

    The best swap (largest ``y_v - y(N(v) & S)``) is applied while it gains; each step
    gains more than 1e-12, so the search stops.
    """
    x = np.zeros(graph.n, dtype=bool)
    x[list(bit_indices(mask))] = True
    while True:
        gain = np.where(x, -np.inf, y - graph.sparse @ (y * x))
        v = int(np.argmax(gain)) if graph.n else 0
        if not graph.n or gain[v] <= 1e-12:
            break
        x[graph.adjacency[v]] = False
        x[v] = True
    return sum(1 << int(v) for v in np.flatnonzero(x))


def _result(
    graph: IndexedGraph,
    masks: Iterable[int],
    y: np.ndarray,
    max_columns: int,
    start: float,
    *,
    upper: float = math.inf,
    optimal: bool = False,
    search: bool = False,
) -> PricingResult:
    """Repair, improve (when ``search``) and extend ``masks``; distinct sets, heaviest first."""
    found: dict[int, float] = {}
    for raw in masks:
        mask = _repair(graph, raw, y)
        if search:
            mask = _local_search(graph, mask, y)
        mask = graph.extend(mask, y)
        if mask not in found:
            found[mask] = float(sum(y[v] for v in bit_indices(mask)))
    ranked = sorted(found.items(), key=lambda item: -item[1])[:max_columns]
    weights = np.array([w for _, w in ranked], dtype=float)
    stats = new_stats(calls=1, seconds=time.perf_counter() - start)
    return PricingResult([m for m, _ in ranked], weights, upper, optimal, stats)


def _rows_to_masks(rows: np.ndarray, support: np.ndarray) -> list[int]:
    """Bitsets over the full graph of 0/1 rows of shape (k, len(support))."""
    rows = np.unique(np.asarray(rows, dtype=np.uint8), axis=0)
    return [sum(1 << int(v) for v in support[np.flatnonzero(row)]) for row in rows]


def _subproblem(graph: IndexedGraph, support: np.ndarray, y: np.ndarray, penalty: float) -> MISProblem:
    """Weighted MIS QUBO on ``support`` with weights scaled to a maximum of 1."""
    weights = y[support] / y[support].max()
    return MISProblem(graph.to_networkx(support), weights=weights, penalty=penalty)


def device_work(stats: Mapping[str, Mapping[str, float]]) -> Stats:
    """What the pricers of one column generation sent to quantum devices, summed over pricers.

    Parameters
    ----------
    stats : mapping of str to mapping of str to float
        :attr:`~bbqmis.coloring.lp.lp_bound.LPBound.stats` (per pricer name, its counters).

    Returns
    -------
    Stats
        :data:`DEVICE_COUNTERS`: circuits, shots, and quantum seconds (device time, s).

    Examples
    --------
    >>> dict(device_work({"master": {"initial_columns": 3}, "qaoa": {"circuits": 2, "shots": 2048}}))
    {'circuits': 2.0, 'shots': 2048.0, 'quantum_seconds': 0.0}
    """
    return new_stats(**{key: float(sum(c.get(key, 0.0) for c in stats.values())) for key in DEVICE_COUNTERS})
