r"""The LP lower bound: column generation for the fractional chromatic number.

:func:`lp_bound` solves the set-cover LP of colouring over independent sets (Mehrotra and
Trick, "A column generation approach for graph coloring", INFORMS J. Comput. 8, 1996) by
column generation. The restricted master (:mod:`~bbqmis.coloring.lp.master`) is seeded with
every maximal independent set the search has sampled; its duals ``y >= 0`` turn pricing
into a maximum-*weight* independent set problem (:mod:`~bbqmis.coloring.lp.pricing`): a
set ``S`` with ``y(S) > 1`` has a negative reduced cost ``1 - y(S)`` and enters the master.

The LP value is a bound only when certified. Before that, any exact pricing still gives
Farley's bound ``chi >= chi_f >= sum(y) / w*(y)`` (valid for every ``y >= 0``, since
``y / w*`` is dual feasible), as used by Held, Cook and Sewell ("Maximum-weight stable
sets and safe lower bounds for graph coloring", Math. Prog. Comput. 4, 2012), whose
concern with numerically *safe* bounds :func:`~bbqmis.coloring.lp.master.safe_ceil`
follows: a value of 4.0000001 proves 4 colours, not 5. Quantum pricers inside
branch-and-price are studied by QCBP (arXiv:2508.18887).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_positive_int, check_random_state

from ...samples import Stats, add_stats, new_stats
from ..classical.bounds import dsatur
from .exact_pricer import ExactPricer
from .master import ColumnPool, GraphLike, IndexedGraph, safe_ceil, solve_master
from .pricers import PricerLike, get_pricer
from .pricing import IMPROVE_TOL, Pricer, PricingResult

__all__ = [
    "LPBound",
    "lp_bound",
]

#: The exact pricer certifies the master when ``w* <= 1 + CERTIFY_TOL`` (HiGHS's LP duals
#: are accurate to about 1e-7; the bound itself always comes from Farley's formula).
CERTIFY_TOL = 1e-6

#: Quick exact pricing looks for a column of weight at least ``1 + QUICK_GAP``.
QUICK_GAP = 1e-4


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
        :func:`~bbqmis.coloring.lp.master.safe_ceil`): the master value only decreases
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
    heuristics, certifier = _checked_pricers(pricers, exact)
    rng = check_random_state(seed)
    generation = _Generation(g, _seed_pool(g, columns), heuristics, certifier, rng, deadline, stop)
    quick = bool(quick) and isinstance(certifier, ExactPricer)
    rounds, value, status = _generate(generation, max_rounds, quick, bool(settle), target)
    if not g.n:
        status, value = "optimal", 0.0
    # Farley's bound from the certifying round is sum(y) / w* with w* <= 1 + 1e-6, i.e. the LP
    # value up to tolerance; it stays valid whatever the numerical state of the master.
    farley = generation.farley
    return LPBound(
        value=value,
        bound=safe_ceil(farley) if farley > 0 else 0,
        certified=status == "optimal",
        columns=generation.pool,
        rounds=rounds,
        status=status,
        farley=farley,
        stats=generation.stats,
        seconds=time.perf_counter() - start,
    )


def _checked_pricers(
    pricers: Sequence[PricerLike], exact: bool | Pricer
) -> tuple[list[Pricer], Pricer | None]:
    """The heuristic pricers of :func:`lp_bound` and its certifier (None when ``exact`` is False)."""
    if isinstance(pricers, str):
        raise InvalidParameterError(f"pricers must be a sequence of pricers, got the string {pricers!r}")
    heuristics = [get_pricer(p) for p in pricers]
    if isinstance(exact, bool):
        return heuristics, ExactPricer() if exact else None
    if isinstance(exact, Pricer) and exact.certifies:
        return heuristics, exact
    raise InvalidParameterError(f"exact must be a bool or a certifying Pricer, got {exact!r}")


def _seed_pool(graph: IndexedGraph, columns: ColumnPool | Iterable[Iterable[Hashable]]) -> ColumnPool:
    """The first pool: the seed ``columns``, a DSATUR colouring's classes and a set through every vertex."""
    pool = ColumnPool(graph)
    pool.add(columns.sets() if isinstance(columns, ColumnPool) else columns)
    if graph.n:
        colors = dsatur(graph.adjacency)
        pool.add_masks(sum(1 << int(v) for v in np.flatnonzero(colors == c)) for c in range(colors.max() + 1))
    pool.cover()
    return pool


@dataclass
class _Generation:
    """One column generation: the pool, the pricers with their statistics, and Farley's bound so far."""

    graph: IndexedGraph
    pool: ColumnPool
    heuristics: list[Pricer]
    certifier: Pricer | None
    rng: np.random.Generator
    deadline: float | None
    stop: Callable[[], bool] | None
    farley: float = 0.0
    stats: dict[str, Stats] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.stats["master"] = new_stats(initial_columns=len(self.pool))
        for pricer in [*self.heuristics, *([self.certifier] if self.certifier else [])]:
            self.stats.setdefault(pricer.name, new_stats(calls=0, improving_columns=0, seconds=0))

    def left(self) -> float:
        """Seconds to the deadline (``inf`` without one)."""
        return _remaining(self.deadline)

    def stopped(self) -> bool:
        """Whether the caller's ``stop`` asks to end."""
        return self.stop is not None and self.stop()

    def run(self, pricer: Pricer, y: np.ndarray, left: float, **extra: float) -> tuple[PricingResult, int]:
        """Price with ``pricer`` for at most ``left`` seconds; its result and the columns it added."""
        time_limit = None if self.deadline is None else left
        result = pricer.price(self.graph, y, self.rng, time_limit=time_limit, **extra)
        improving = [m for m, w in zip(result.masks, result.weights, strict=True) if w > 1 + IMPROVE_TOL]
        added = self.pool.add_masks(improving, y)
        add_stats(self.stats[pricer.name], result.stats)
        self.stats[pricer.name]["improving_columns"] += added
        return result, added

    def affordable(self, pricer: Pricer, left: float) -> bool:
        """Whether ``pricer``'s mean call so far fits in ``left`` seconds."""
        calls = self.stats[pricer.name]["calls"]
        return left > 0 and (not calls or self.stats[pricer.name]["seconds"] <= left * calls)

    def price_heuristically(self, y: np.ndarray) -> bool:
        """Try the heuristic pricers in order; whether one added a column."""
        for pricer in self.heuristics:
            left = self.left()
            if self.stopped() or left <= 0:
                return False
            if not self.affordable(pricer, left):
                continue
            if self.run(pricer, y, left)[1]:
                return True
        return False

    def price_exactly(self, y: np.ndarray, quick: bool) -> str | None:
        """Price with the certifier: None when it added a column, else why column generation ends."""
        if self.stopped():
            return "stopped"
        if self.certifier is None:
            return "exhausted"
        if quick and self.left() > 0:
            left = self.left()
            self.stats[self.certifier.name]["quick_calls"] += 1
            if self.run(self.certifier, y, left, target=1 + QUICK_GAP)[1]:
                return None
        left = self.left()
        if left <= 0:
            return "deadline"
        result, added = self.run(self.certifier, y, left)
        if np.isfinite(result.upper) and result.upper > 0:
            self.farley = max(self.farley, float(y.sum()) / result.upper)
        if added:
            return None
        if result.optimal and result.upper <= 1 + CERTIFY_TOL:
            return "optimal"
        return "stalled" if result.optimal else "deadline"


def _generate(
    generation: _Generation, max_rounds: int, quick: bool, settle: bool, target: int | None
) -> tuple[int, float, str]:
    """Solve masters and price until a status ends it; the rounds, the last master value and the status."""
    rounds, value = 0, float(generation.graph.n > 0)
    while generation.graph.n:
        if rounds >= max_rounds:
            return rounds, value, "max_rounds"
        if generation.stopped():
            return rounds, value, "stopped"
        if generation.left() <= 0:
            return rounds, value, "deadline"
        master = solve_master(generation.pool)
        rounds += 1
        generation.stats["master"]["calls"] += 1
        generation.stats["master"]["seconds"] += master.seconds
        value, y = master.value, master.duals
        farley = generation.farley
        if settle and farley > 0 and safe_ceil(farley) >= safe_ceil(value):
            return rounds, value, "settled"
        if target is not None and safe_ceil(value) < target:
            return rounds, value, "short"
        if generation.price_heuristically(y):
            continue
        status = generation.price_exactly(y, quick)
        if status is not None:
            return rounds, value, status
    return rounds, value, "max_rounds"
