r"""Branch-and-price as a bound: column generation for the fractional chromatic number.

:func:`lp_bound` solves the set-cover LP of colouring over independent sets (Mehrotra and
Trick, "A column generation approach for graph coloring", INFORMS J. Comput. 8, 1996) by
column generation. The restricted master (:mod:`~bbqmis.coloring.master`) is seeded with
every maximal independent set the search has sampled; its duals ``y >= 0`` turn pricing
into a maximum-*weight* independent set problem: a set ``S`` with ``y(S) > 1`` has a
negative reduced cost ``1 - y(S)`` and enters the master.

Pricing goes through the same samplers as branching, so a quantum sampler contributes
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

The LP value is a bound only when certified. Before that, any exact pricing still gives
Farley's bound ``chi >= chi_f >= sum(y) / w*(y)`` (valid for every ``y >= 0``, since
``y / w*`` is dual feasible), as used by Held, Cook and Sewell ("Maximum-weight stable
sets and safe lower bounds for graph coloring", Math. Prog. Comput. 4, 2012), whose
concern with numerically *safe* bounds :func:`~bbqmis.coloring.master.safe_ceil`
follows: a value of 4.0000001 proves 4 colours, not 5. Quantum pricers inside
branch-and-price are studied by QCBP (arXiv:2508.18887).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, runtime_checkable

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import (
    SeedLike,
    build_named,
    check_interval,
    check_positive_int,
    check_probability,
    check_random_state,
)

from ..mis.classical import check_beta_range, simulated_annealing
from ..mis.problem import MISProblem
from ..solver import QuantumMISSolver, Stats, add_stats, new_stats
from .bounds import dsatur
from .master import (
    ColumnPool,
    GraphLike,
    IndexedGraph,
    bit_indices,
    safe_ceil,
    solve_master,
)

__all__ = [
    "IMPROVE_TOL",
    "AnnealPricer",
    "DEVICE_COUNTERS",
    "ExactPricer",
    "GreedyPricer",
    "LPBound",
    "Pricer",
    "PricingResult",
    "QAOA_FIRST_QUBITS",
    "QAOAPricer",
    "RandomPricer",
    "device_work",
    "edge_clique_cover",
    "get_pricer",
    "lp_bound",
]

#: A column improves the master when its dual weight exceeds ``1 + IMPROVE_TOL``.
IMPROVE_TOL = 1e-9

#: The exact pricer certifies the master when ``w* <= 1 + CERTIFY_TOL`` (HiGHS's LP duals
#: are accurate to about 1e-7; the bound itself always comes from Farley's formula).
CERTIFY_TOL = 1e-6

#: Quick exact pricing looks for a column of weight at least ``1 + QUICK_GAP``.
QUICK_GAP = 1e-4

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

    ``name`` keys the statistics of :func:`lp_bound`; ``certifies`` marks exact pricers.

    Examples
    --------
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


class _HeuristicPricer:
    """Shared parameters of the heuristic pricers."""

    name = ""
    certifies = False

    def __init__(self, max_columns: int = 32, local_search: bool = True) -> None:
        self.max_columns = check_positive_int(max_columns, "max_columns")
        self.local_search = bool(local_search)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(max_columns={self.max_columns}, local_search={self.local_search})"

    def _masks(
        self,
        graph: IndexedGraph,
        y: np.ndarray,
        rng: np.random.Generator,
        stats: Stats,
        time_limit: float | None = None,
    ) -> list[int]:
        raise NotImplementedError

    def price(
        self,
        graph: GraphLike,
        duals: npt.ArrayLike,
        seed: SeedLike = None,
        *,
        time_limit: float | None = None,
    ) -> PricingResult:
        """Heavy maximal independent sets under the vertex weights ``duals``.

        Parameters
        ----------
        graph : networkx.Graph, ndarray of shape (n, n) or IndexedGraph
        duals : array-like of shape (n,)
            Vertex weights ``>= 0`` in index order; zero-weight vertices are left out of
            the sampled problem and only enter when sets are extended.
        seed : None, int or numpy.random.Generator
        time_limit : float, optional
            Seconds the call may take: QAOA samples fewer vertices (qubits) when its
            calls so far show that the full width would not fit; the other heuristics,
            which take milliseconds, ignore it.

        Returns
        -------
        PricingResult
            With ``upper = inf``.
        """
        start = time.perf_counter()
        g = IndexedGraph.coerce(graph)
        y = _check_duals(g, duals)
        rng = check_random_state(seed)
        stats = new_stats()
        masks = self._masks(g, y, rng, stats, time_limit) if g.n else []
        result = _result(g, masks, y, self.max_columns, start, search=self.local_search)
        add_stats(result.stats, stats)
        return result


class GreedyPricer(_HeuristicPricer):
    """Heaviest-first greedy sets, started from each of the ``starts`` heaviest vertices.

    Parameters
    ----------
    starts : int, default=16
    max_columns : int, default=32
        Heaviest distinct sets returned.
    local_search : bool, default=True
        Improve every set by 1-swaps (add a vertex, drop its neighbours) before extending.

    Examples
    --------
    >>> import networkx as nx
    >>> graph = nx.cycle_graph(6)
    >>> result = GreedyPricer(starts=6).price(graph, [1.0, 0.2, 1.0, 0.2, 1.0, 0.2], seed=0)
    >>> bin(result.masks[0]), result.best
    ('0b10101', 3.0)
    """

    name = "greedy"

    def __init__(self, starts: int = 16, max_columns: int = 32, local_search: bool = True) -> None:
        super().__init__(max_columns, local_search)
        self.starts = check_positive_int(starts, "starts")

    def _masks(
        self,
        graph: IndexedGraph,
        y: np.ndarray,
        rng: np.random.Generator,
        stats: Stats,
        time_limit: float | None = None,
    ) -> list[int]:
        return [0] + [1 << int(v) for v in _support(y, self.starts)]


class RandomPricer(_HeuristicPricer):
    """Uniformly random bitstrings on the positive-dual vertices: the baseline.

    Parameters
    ----------
    shots : int, default=256
        Bitstrings per call.
    max_vertices : int, optional
        Keep only this many largest-dual vertices (as :class:`QAOAPricer` does).
    max_columns : int, default=32
    local_search : bool, default=False
        Improve every set by 1-swaps before extending. Off by default so that the columns
        counted for this pricer are its own samples (repaired and extended only).

    Examples
    --------
    >>> import networkx as nx
    >>> graph = IndexedGraph.from_graph(nx.cycle_graph(6))
    >>> result = RandomPricer(shots=64).price(graph, [0.5] * 6, seed=1)
    >>> all(graph.is_independent(mask) for mask in result.masks), result.best <= 1.5
    (True, True)
    """

    name = "random"

    def __init__(
        self,
        shots: int = 256,
        max_vertices: int | None = None,
        max_columns: int = 32,
        local_search: bool = False,
    ) -> None:
        super().__init__(max_columns, local_search)
        self.shots = check_positive_int(shots, "shots")
        self.max_vertices = None if max_vertices is None else check_positive_int(max_vertices, "max_vertices")

    def _masks(
        self,
        graph: IndexedGraph,
        y: np.ndarray,
        rng: np.random.Generator,
        stats: Stats,
        time_limit: float | None = None,
    ) -> list[int]:
        support = _support(y, self.max_vertices)
        return _rows_to_masks(rng.integers(0, 2, size=(self.shots, len(support))), support)


class AnnealPricer(_HeuristicPricer):
    """Simulated annealing of the weighted MIS QUBO on all positive-dual vertices.

    Parameters
    ----------
    reads : int, default=64
    sweeps : int, default=200
    penalty : float, default=2.0
        Edge penalty relative to the largest dual (weights are scaled to a maximum of
        1); it must exceed 1 so that QUBO optima are independent sets.
    beta_range : (float, float), default=(0.1, 100.0)
    max_columns : int, default=32
    local_search : bool, default=True
        Improve every set by 1-swaps (add a vertex, drop its neighbours) before extending.

    Examples
    --------
    >>> import networkx as nx
    >>> result = AnnealPricer(reads=16, sweeps=100).price(nx.cycle_graph(6), [0.5] * 6, seed=1)
    >>> result.best
    1.5
    """

    name = "anneal"

    def __init__(
        self,
        reads: int = 64,
        sweeps: int = 200,
        penalty: float = 2.0,
        beta_range: Sequence[float] = (0.1, 100.0),
        max_columns: int = 32,
        local_search: bool = True,
    ) -> None:
        super().__init__(max_columns, local_search)
        self.reads = check_positive_int(reads, "reads")
        self.sweeps = check_positive_int(sweeps, "sweeps")
        self.penalty = check_interval(penalty, "penalty", 1.0, math.inf)
        self.beta_range = check_beta_range(beta_range)

    def _masks(
        self,
        graph: IndexedGraph,
        y: np.ndarray,
        rng: np.random.Generator,
        stats: Stats,
        time_limit: float | None = None,
    ) -> list[int]:
        support = _support(y)
        if not len(support):
            return [0]
        problem = _subproblem(graph, support, y, self.penalty)
        rows = simulated_annealing(
            problem, num_reads=self.reads, num_sweeps=self.sweeps, beta_range=self.beta_range, seed=rng
        )
        return _rows_to_masks(rows, support)


#: Qubits of a QAOA pricer's first call under a time limit (then as many as its calls show fit).
QAOA_FIRST_QUBITS = 12


class QAOAPricer(_HeuristicPricer):
    """Single-layer QAOA of the weighted MIS QUBO on the shared quantum MIS solver.

    The pricing problem keeps the positive-dual vertices, largest dual first, up to
    ``max_vertices`` (default the solver's width, so no circuit is cut); each sampled
    bitstring is repaired and extended to a maximal set on the full graph.

    Parameters
    ----------
    backend : str, default="aer"
        Backend spec, used when ``solver`` is not given.
    shots : int, default=1024
        Used when ``solver`` is not given.
    max_qubits : int, optional
        Used when ``solver`` is not given (default: the device, at most 24).
    penalty : float, default=2.0
        Edge penalty relative to the largest dual, > 1.
    max_vertices : int, optional
        Vertices of the pricing problem (default ``solver.width()``).
    solver : QuantumMISSolver, optional
        The solver shared with branching and clustering.
    max_columns : int, default=32
    local_search : bool, default=False
        Improve every set by 1-swaps before extending. Off by default so that the columns
        counted for this pricer are its own samples (repaired and extended only).

    Examples
    --------
    >>> import networkx as nx
    >>> result = QAOAPricer(shots=128).price(nx.cycle_graph(5), [0.5] * 5, seed=1)
    >>> result.best, int(result.stats["circuits"])
    (1.0, 1)
    """

    name = "qaoa"

    def __init__(
        self,
        backend: str = "aer",
        shots: int = 1024,
        max_qubits: int | None = None,
        penalty: float = 2.0,
        max_vertices: int | None = None,
        solver: QuantumMISSolver | None = None,
        max_columns: int = 32,
        local_search: bool = False,
    ) -> None:
        super().__init__(max_columns, local_search)
        if solver is not None and not isinstance(solver, QuantumMISSolver):
            raise InvalidParameterError(f"solver must be a QuantumMISSolver, got {solver!r}")
        self.solver = solver or QuantumMISSolver(backend, shots=shots, max_qubits=max_qubits)
        self.penalty = check_interval(penalty, "penalty", 1.0, math.inf)
        self.max_vertices = None if max_vertices is None else check_positive_int(max_vertices, "max_vertices")

        # Seconds of the slowest call seen per number of qubits, to fit calls in their time limit.
        self._seconds: dict[int, float] = {}

    def __repr__(self) -> str:
        return f"QAOAPricer(solver={self.solver!r}, max_vertices={self.max_vertices})"

    def qubits_within(self, seconds: float | None, width: int) -> int:
        """Most qubits (at most ``width``) whose circuit the calls so far say takes at most ``seconds``.

        A simulated circuit's time doubles with each qubit, so a call on ``k`` qubits is
        predicted from the slowest one seen on the most qubits ``q <= k`` as
        ``t_q * 2 ** (k - q)``. Before any call, a finite limit allows
        :data:`QAOA_FIRST_QUBITS` qubits; when nothing fits, the fewest qubits seen.

        Examples
        --------
        >>> pricer = QAOAPricer(shots=16)
        >>> pricer.qubits_within(None, 24), pricer.qubits_within(1.0, 24)
        (24, 12)
        >>> pricer._seconds = {10: 0.1}
        >>> pricer.qubits_within(0.45, 24), pricer.qubits_within(0.01, 24)
        (12, 10)
        """
        if seconds is None or math.isinf(seconds):
            return width
        if not self._seconds:
            return min(width, QAOA_FIRST_QUBITS)
        for k in range(width, 0, -1):
            below = [q for q in self._seconds if q <= k]
            q = max(below) if below else min(self._seconds)
            if self._seconds[q] * 2.0 ** max(0, k - q) <= seconds:
                return k
        return min(width, min(self._seconds))

    def _masks(
        self,
        graph: IndexedGraph,
        y: np.ndarray,
        rng: np.random.Generator,
        stats: Stats,
        time_limit: float | None = None,
    ) -> list[int]:
        width = self.max_vertices or self.solver.width()
        support = _support(y, self.qubits_within(time_limit, width))
        if not len(support):
            return [0]
        start = time.perf_counter()
        samples = self.solver.sample(_subproblem(graph, support, y, self.penalty), seed=rng)
        seconds = time.perf_counter() - start
        self._seconds[len(support)] = max(seconds, self._seconds.get(len(support), 0.0))
        add_stats(stats, samples.stats, skip=("calls", "seconds"))
        return _rows_to_masks(samples.bits, support)


def device_work(stats: Mapping[str, Mapping[str, float]]) -> Stats:
    """What the pricers of one :func:`lp_bound` sent to quantum devices, summed over pricers.

    Parameters
    ----------
    stats : mapping of str to mapping of str to float
        :attr:`LPBound.stats` (per pricer name, its counters).

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


def edge_clique_cover(
    graph: IndexedGraph, vertices: Sequence[int] | np.ndarray | None = None
) -> list[list[int]]:
    """Greedy cliques covering every edge of the subgraph induced by ``vertices``.

    Each clique grows from an uncovered edge, adding the common neighbour that covers
    the most uncovered edges (ties: the most candidates kept). ``sum_{v in K} x_v <= 1``
    over these cliques is a tighter MWIS formulation than one row per edge.

    Parameters
    ----------
    graph : IndexedGraph
    vertices : sequence of int, optional
        Default all.

    Returns
    -------
    list of list of int
        Cliques of at least two vertices; every edge lies in one of them.

    Examples
    --------
    >>> import networkx as nx
    >>> edge_clique_cover(IndexedGraph.from_graph(nx.complete_graph(4)))
    [[0, 1, 2, 3]]
    """
    chosen = list(range(graph.n)) if vertices is None else [int(v) for v in vertices]
    inside = sum(1 << v for v in chosen)
    uncovered = {v: graph.neighbors[v] & inside for v in chosen}
    cliques = []
    for v in sorted(chosen, key=lambda v: (-graph.degree[v], v)):
        while uncovered[v]:
            u = (uncovered[v] & -uncovered[v]).bit_length() - 1
            clique, members = [v, u], (1 << v) | (1 << u)
            candidates = graph.neighbors[v] & graph.neighbors[u] & inside
            while candidates:
                w = max(
                    bit_indices(candidates),
                    key=lambda w: (
                        (uncovered[w] & members).bit_count(),
                        (candidates & graph.neighbors[w]).bit_count(),
                        -w,
                    ),
                )
                clique.append(w)
                members |= 1 << w
                candidates &= graph.neighbors[w]
            for a in clique:
                uncovered[a] &= ~members
            cliques.append(sorted(clique))
    return cliques


class ExactPricer:
    """Exact maximum-weight independent set by HiGHS MILP: the certifying pricer.

    Binary ``x_v`` for the positive-dual vertices, ``sum_{v in K} x_v <= 1`` for the
    cliques of a greedy edge clique cover (:func:`edge_clique_cover`). ``upper`` in the
    result is the MILP's dual bound (plus the duals dropped as zero), so it stays a proven
    upper bound on ``w*`` even when the time limit stops the search. ``optimal`` and
    ``upper`` rely on HiGHS's tolerances (``mip_rel_gap``, feasibility 1e-6), which
    :func:`~bbqmis.coloring.master.safe_ceil` absorbs.

    Parameters
    ----------
    max_columns : int, default=1
        Only the optimum is returned (HiGHS gives one solution).
    mip_rel_gap : float, default=1e-9
        Relative gap at which HiGHS stops.

    Examples
    --------
    >>> import networkx as nx
    >>> result = ExactPricer().price(nx.path_graph(3), [1.0, 1.5, 1.0])
    >>> result.masks, result.best, result.optimal
    ([5], 2.0, True)
    """

    name = "exact"
    certifies = True

    def __init__(self, max_columns: int = 1, mip_rel_gap: float = 1e-9) -> None:
        self.max_columns = check_positive_int(max_columns, "max_columns")
        self.mip_rel_gap = check_probability(mip_rel_gap, "mip_rel_gap")

    def __repr__(self) -> str:
        return f"ExactPricer(mip_rel_gap={self.mip_rel_gap:g})"

    def price(
        self,
        graph: GraphLike,
        duals: npt.ArrayLike,
        seed: SeedLike = None,
        *,
        time_limit: float | None = None,
        target: float | None = None,
    ) -> PricingResult:
        """Maximum-weight independent set under the vertex weights ``duals``.

        Parameters
        ----------
        graph : networkx.Graph, ndarray of shape (n, n) or IndexedGraph
        duals : array-like of shape (n,)
            Vertex weights ``>= 0`` in index order.
        seed : None, int or numpy.random.Generator
            Unused (HiGHS is deterministic).
        time_limit : float, optional
            Seconds for HiGHS; a stopped search is not ``optimal`` but keeps its ``upper``.
        target : float, optional
            Quick mode: look only for a set of weight ``>= target`` and stop at the first
            one HiGHS finds (far faster than proving optimality while improving columns
            exist). The result is then never ``optimal`` and its ``upper`` is ``inf``;
            HiGHS's feasibility tolerance (1e-6) may let a slightly lighter set through.

        Returns
        -------
        PricingResult
            ``masks[0]`` the best set found (extended to a maximal one; none when HiGHS
            found none), ``upper`` a proven bound on the maximum weight (the MILP's dual
            bound, also after a time limit), ``optimal`` whether HiGHS proved optimality.

        Raises
        ------
        InvalidParameterError
            If ``duals`` has the wrong shape or a negative value, or ``time_limit`` or
            ``target`` is not positive.

        Examples
        --------
        >>> import networkx as nx
        >>> result = ExactPricer().price(nx.cycle_graph(5), [0.5] * 5)
        >>> result.best, result.optimal, bin(result.masks[0]).count("1")
        (1.0, True, 2)
        """
        start = time.perf_counter()
        g = IndexedGraph.coerce(graph)
        y = _check_duals(g, duals)
        options: dict[str, Any] = {"mip_rel_gap": self.mip_rel_gap}
        if time_limit is not None:
            options["time_limit"] = check_interval(time_limit, "time_limit", 0.0, math.inf)
        if target is not None:
            target = check_interval(target, "target", 0.0, math.inf)
            options["mip_max_improving_sols"] = 1  # HiGHS stops at its first solution
        support = _support(y)
        dropped = float(y.sum() - y[support].sum())
        if not len(support):
            return _result(g, [0], y, self.max_columns, start, upper=dropped, optimal=target is None)
        cliques = edge_clique_cover(g, support)
        position = {int(v): i for i, v in enumerate(support)}
        constraints = []
        if cliques:
            rows = np.repeat(np.arange(len(cliques)), [len(k) for k in cliques])
            cols = np.array([position[v] for k in cliques for v in k])
            a = sp.csr_array((np.ones(len(cols)), (rows, cols)), shape=(len(cliques), len(support)))
            constraints.append(LinearConstraint(a, -np.inf, 1.0))
        if target is not None:
            constraints.append(LinearConstraint(y[support][None, :], target, np.inf))
        with warnings.catch_warnings():
            # scipy passes options it does not know (mip_max_improving_sols) to HiGHS verbatim.
            warnings.filterwarnings("ignore", "Unrecognized options", RuntimeWarning)
            res = milp(
                -y[support],
                integrality=np.ones(len(support)),
                bounds=Bounds(0.0, 1.0),
                constraints=constraints,
                options=options,
            )
        masks = []
        if res.x is not None:
            masks.append(sum(1 << int(v) for v in support[np.asarray(res.x) > 0.5]))
        optimal = target is None and res.status == 0
        upper = math.inf
        dual_bound = getattr(res, "mip_dual_bound", None)
        if target is None and dual_bound is not None and np.isfinite(dual_bound):
            upper = -float(dual_bound) + dropped
        result = _result(g, masks, y, self.max_columns, start, optimal=optimal)
        result.upper = max(upper, result.best)  # never below a set it found
        return result


_PRICERS: dict[str, Callable[..., Pricer]] = {
    "qaoa": QAOAPricer,
    "anneal": AnnealPricer,
    "greedy": GreedyPricer,
    "random": RandomPricer,
    "exact": ExactPricer,
}

#: What :func:`lp_bound` accepts as a pricer: a name of :func:`get_pricer` or a Pricer.
PricerLike: TypeAlias = "str | Pricer"


def get_pricer(pricer: PricerLike, **options: Any) -> Pricer:
    """A pricer by name, or a pricer object as is.

    Parameters
    ----------
    pricer : {"qaoa", "anneal", "greedy", "random", "exact"} or Pricer
    **options
        Keyword arguments of the named pricer's constructor.

    Returns
    -------
    Pricer

    Raises
    ------
    InvalidParameterError
        For an unknown name, or options given with a pricer object.

    Examples
    --------
    >>> get_pricer("greedy", starts=4).name
    'greedy'
    >>> pricer = ExactPricer()
    >>> get_pricer(pricer) is pricer
    True
    >>> get_pricer("magic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: pricer must be one of ...; got 'magic'
    """
    named = build_named(pricer, "pricer", _PRICERS, options)
    if named is not None:
        return named
    if isinstance(pricer, Pricer):
        return pricer
    raise InvalidParameterError(f"pricer must be a name or a Pricer, got {pricer!r}")


@dataclass
class LPBound:
    """Result of :func:`lp_bound`.

    Attributes
    ----------
    value : float
        Value of the last restricted master: the fractional chromatic number when
        ``certified``, otherwise only an upper bound on it.
    bound : int
        A proven lower bound on the chromatic number: ``ceil(value - 1e-6)`` when
        certified, otherwise Farley's ``ceil(sum(y) / w* - 1e-6)`` from the best exact
        pricing (0 when no exact pricing ran). Both come from Farley's formula, which at
        certification (``w* <= 1 + 1e-6``) equals the LP value up to that tolerance.
    certified : bool
        Whether the exact pricer proved that no column is missing.
    columns : ColumnPool
        The final pool, to seed the master at other tree nodes.
    rounds : int
        Master LPs solved.
    status : str
        ``"optimal"`` (certified), ``"settled"`` (``settle=True``: Farley's integer
        bound reached ``ceil`` of the master value, so more columns cannot raise it),
        ``"deadline"``, ``"stopped"`` (``stop`` said so), ``"max_rounds"``,
        ``"exhausted"`` (heuristics found nothing and
        ``exact=False``), ``"short"`` (the bound cannot reach ``target``) or ``"stalled"``
        (the exact pricer's improving column was already in the pool: numerical trouble).
    farley : float
        Best real-valued Farley bound (0 when no exact pricing ran).
    stats : dict of str to Stats
        Per pricer name: ``calls``, ``improving_columns`` (new columns with negative
        reduced cost it contributed), ``seconds``, plus the quantum solver's counters
        (``circuits``, ``shots``, ``quantum_seconds``, ...) for ``"qaoa"`` and
        ``quick_calls`` (calls in quick mode, included in ``calls``) for ``"exact"``;
        and ``"master"`` with ``calls``, ``seconds``, ``initial_columns``.
    seconds : float
        Wall time.

    Examples
    --------
    The fractional chromatic number of the 5-cycle is 5/2, so it needs at least 3 colours:

    >>> import networkx as nx
    >>> result = lp_bound(nx.cycle_graph(5), seed=0)
    >>> round(result.value, 6), result.bound, result.certified, result.status
    (2.5, 3, True, 'optimal')
    """

    value: float
    bound: int
    certified: bool
    columns: ColumnPool
    rounds: int
    status: str
    farley: float = 0.0
    stats: dict[str, Stats] = field(default_factory=dict)
    seconds: float = 0.0


def _remaining(deadline: float | None) -> float:
    return math.inf if deadline is None else deadline - time.perf_counter()


def lp_bound(
    graph: GraphLike,
    columns: ColumnPool | Iterable[Iterable[Hashable]] = (),
    pricers: Sequence[PricerLike] = ("anneal",),
    *,
    exact: bool | Pricer = True,
    deadline: float | None = None,
    max_rounds: int = 1000,
    quick: bool = True,
    settle: bool = False,
    target: int | None = None,
    seed: SeedLike = None,
    stop: Callable[[], bool] | None = None,
) -> LPBound:
    """Fractional chromatic number by column generation, and a proven lower bound on chi.

    Each round solves the restricted master and prices with the heuristic ``pricers`` in
    order, stopping at the first that adds a column of negative reduced cost (weight
    ``> 1 + 1e-9``). When none does, the exact pricer either adds an improving column or
    certifies that none is missing; every exact pricing run to optimality (or stopped by
    the deadline) also yields Farley's bound.

    With ``quick`` an :class:`ExactPricer` first only looks for a column of weight
    ``>= 1 + 1e-4`` and stops at the first one (:meth:`ExactPricer.price` with
    ``target``); the full optimisation runs when that finds none. In the tail of column
    generation, where the heuristics fail every round, this saves most MILP time.

    Parameters
    ----------
    graph : networkx.Graph, ndarray of shape (n, n) or IndexedGraph
    columns : ColumnPool or iterable of iterables of node labels, default=()
        Seed columns: every MIS the tree sampled, or another node's pool (labels not in
        ``graph`` are dropped, so a parent's columns seed a residual graph). A DSATUR
        colouring's classes and a set through every uncovered vertex are added.
    pricers : sequence of str or Pricer, default=("anneal",)
        Heuristic pricers (see :func:`get_pricer`), tried in this order.
    exact : bool or Pricer, default=True
        Certify with :class:`ExactPricer` (or this pricer); False stops when the
        heuristics find nothing, with no bound.
    deadline : float, optional
        Absolute :func:`time.perf_counter` time; checked between rounds and pricers, and
        passed to every pricer call as its time limit. A heuristic pricer whose mean call
        so far takes longer than the time left is not called again.
    max_rounds : int, default=1000
        Most master LPs solved.
    quick : bool, default=True
        Quick exact pricing first (see above). Quick calls give no Farley bound.
    settle : bool, default=False
        Stop, uncertified, as soon as ``ceil(farley) >= ceil(value)`` (both rounded by
        :func:`~bbqmis.coloring.master.safe_ceil`): the master value only decreases
        towards ``chi_f >= farley``, so the integer bound is final. What a tree node
        needs; pair it with ``quick=False`` so that every exact call yields Farley's bound.
    target : int, optional
        Stop (status ``"short"``) as soon as a master value shows that the bound cannot
        reach ``target``: the value only decreases towards ``chi_f``, so
        ``safe_ceil(value) < target`` is final. A tree node that needs ``target`` to be
        pruned learns this from one master LP.
    seed : None, int or numpy.random.Generator
    stop : callable, optional
        Asked between rounds and after every pricer call; True ends column generation
        (status ``"stopped"``, the bound so far kept), as a run's stop request does.

    Returns
    -------
    LPBound

    Raises
    ------
    InvalidParameterError
        For a bad parameter, or a seed column that is not independent.

    Examples
    --------
    >>> import networkx as nx
    >>> result = lp_bound(nx.petersen_graph(), seed=0)
    >>> round(result.value, 6), result.bound, result.certified
    (2.5, 3, True)

    A stop request ends it before the first round:

    >>> lp_bound(nx.petersen_graph(), seed=0, stop=lambda: True).status
    'stopped'
    """
    start = time.perf_counter()
    g = IndexedGraph.coerce(graph)
    max_rounds = check_positive_int(max_rounds, "max_rounds")
    if deadline is not None and not (isinstance(deadline, int | float) and math.isfinite(deadline)):
        raise InvalidParameterError(f"deadline must be a perf_counter time in seconds, got {deadline!r}")
    if isinstance(pricers, str):
        raise InvalidParameterError(f"pricers must be a sequence of pricers, got the string {pricers!r}")
    heuristics = [get_pricer(p) for p in pricers]
    if isinstance(exact, bool):
        certifier: Pricer | None = ExactPricer() if exact else None
    elif isinstance(exact, Pricer) and exact.certifies:
        certifier = exact
    else:
        raise InvalidParameterError(f"exact must be a bool or a certifying Pricer, got {exact!r}")
    rng = check_random_state(seed)

    pool = ColumnPool(g)
    pool.add(columns.sets() if isinstance(columns, ColumnPool) else columns)
    if g.n:
        colors = dsatur(g.adjacency)
        pool.add_masks(sum(1 << int(v) for v in np.flatnonzero(colors == c)) for c in range(colors.max() + 1))
    pool.cover()
    stats: dict[str, Stats] = {"master": new_stats(initial_columns=len(pool))}
    for pricer in [*heuristics, *([certifier] if certifier else [])]:
        stats.setdefault(pricer.name, new_stats(calls=0, improving_columns=0, seconds=0))

    quick = bool(quick) and isinstance(certifier, ExactPricer)
    settle = bool(settle)

    def run(
        pricer: Pricer, y: np.ndarray, time_limit: float | None = None, **extra: float
    ) -> tuple[PricingResult, int]:
        result = pricer.price(g, y, rng, time_limit=time_limit, **extra)
        improving = [m for m, w in zip(result.masks, result.weights, strict=True) if w > 1 + IMPROVE_TOL]
        added = pool.add_masks(improving, y)
        add_stats(stats[pricer.name], result.stats)
        stats[pricer.name]["improving_columns"] += added
        return result, added

    def stopped() -> bool:
        return stop is not None and stop()

    def affordable(pricer: Pricer, left: float) -> bool:
        calls = stats[pricer.name]["calls"]
        return left > 0 and (not calls or stats[pricer.name]["seconds"] <= left * calls)

    rounds, farley, value, certified, status = 0, 0.0, float(g.n > 0), False, "max_rounds"
    while g.n:
        if rounds >= max_rounds:
            status = "max_rounds"
            break
        if stopped():
            status = "stopped"
            break
        if _remaining(deadline) <= 0:
            status = "deadline"
            break
        master = solve_master(pool)
        rounds += 1
        stats["master"]["calls"] += 1
        stats["master"]["seconds"] += master.seconds
        value, y = master.value, master.duals
        if settle and farley > 0 and safe_ceil(farley) >= safe_ceil(value):
            status = "settled"
            break
        if target is not None and safe_ceil(value) < target:
            status = "short"
            break
        improved = False
        for pricer in heuristics:
            left = _remaining(deadline)
            if stopped() or left <= 0:
                break
            if not affordable(pricer, left):
                continue
            if run(pricer, y, None if deadline is None else left)[1]:
                improved = True
                break
        if improved:
            continue
        if stopped():
            status = "stopped"
            break
        if certifier is None:
            status = "exhausted"
            break
        if quick and _remaining(deadline) > 0:
            left = _remaining(deadline)
            stats[certifier.name]["quick_calls"] += 1
            if run(certifier, y, None if deadline is None else left, target=1 + QUICK_GAP)[1]:
                continue
        left = _remaining(deadline)
        if left <= 0:
            status = "deadline"
            break
        result, added = run(certifier, y, None if deadline is None else left)
        if np.isfinite(result.upper) and result.upper > 0:
            farley = max(farley, float(y.sum()) / result.upper)
        if added:
            continue
        if result.optimal and result.upper <= 1 + CERTIFY_TOL:
            certified, status = True, "optimal"
        elif not result.optimal:
            status = "deadline"
        else:
            status = "stalled"
        break
    if not g.n:
        certified, status, value = True, "optimal", 0.0
    # Farley's bound from the certifying round is sum(y) / w* with w* <= 1 + 1e-6, i.e. the LP
    # value up to tolerance; it stays valid whatever the numerical state of the master.
    bound = safe_ceil(farley) if farley > 0 else 0
    return LPBound(
        value=value,
        bound=bound,
        certified=certified,
        columns=pool,
        rounds=rounds,
        status=status,
        farley=farley,
        stats=stats,
        seconds=time.perf_counter() - start,
    )
