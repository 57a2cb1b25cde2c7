"""The heuristic pricers: greedy, random, simulated annealing and single-layer QAOA.

Each finds heavy independent sets under the duals without proof (``upper`` is ``inf``);
every sample is repaired to an independent set and extended to a maximal one
(:mod:`~bbqmis.coloring.lp.pricing`). The QAOA pricer runs the weighted MIS QUBO on the
shared :class:`~bbqmis.solver.QuantumMISSolver`, on the largest duals up to its width.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_interval, check_positive_int, check_random_state

from ...mis.classical import check_beta_range, simulated_annealing
from ...samples import Stats, add_stats, new_stats
from .master import GraphLike, IndexedGraph
from .pricing import PricingResult, _check_duals, _result, _rows_to_masks, _subproblem, _support

if TYPE_CHECKING:  # the quantum stack is imported when a QAOA pricer is made
    from ...solver import QuantumMISSolver

__all__ = [
    "AnnealPricer",
    "GreedyPricer",
    "QAOAPricer",
    "QAOA_FIRST_QUBITS",
    "RandomPricer",
]


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
        from ...solver import QuantumMISSolver  # qiskit: only for pricers that run circuits

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
