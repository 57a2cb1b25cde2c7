"""MWIS solvers behind one interface: by name (``"anneal"``, ``"exact"``, ``"qaoa"``) or a callable.

A solver is called as ``solver(problem, seed=seed)`` with a :class:`bbqmis.problem.MISProblem`
and returns candidate selections, an array of shape (n,) or (k, n) of 0/1 bits indexed by
qubit. :func:`solve` repairs every candidate to a maximal independent set
(:meth:`MISProblem.repair`) and keeps the cheapest, so the tie-break bonus of
:func:`clustagg.aggregate.mwis_problem` decides between optima a sampler found, even when
the bonus is far below the sampler's energy resolution.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from bbqmis._validation import check_annealing
from bbqmis.classical import maximum_independent_set, simulated_annealing
from bbqmis.problem import MISProblem, bits_from_strings

from ._validation import check_positive_int, check_seed
from .errors import InvalidParameterError

__all__ = ["AnnealingSolver", "ExactSolver", "QAOASolver", "SOLVERS", "get_solver", "solve"]

logger = logging.getLogger(__name__)


class AnnealingSolver:
    """Simulated annealing (dwave-samplers) with an explicit inverse-temperature range.

    Parameters
    ----------
    num_reads : int, default=50
    num_sweeps : int, default=1000
    beta_range : (float, float), default=(0.1, 100.0)
        The default range of ``SimulatedAnnealingSampler`` reaches the optimum in only a
        few per cent of reads at ``lambda = n``; this one in every read.
    """

    def __init__(self, *, num_reads: int = 50, num_sweeps: int = 1000, beta_range=(0.1, 100.0)):
        self.num_reads, self.num_sweeps, self.beta_range = check_annealing(num_reads, num_sweeps, beta_range)

    def __call__(self, problem: MISProblem, *, seed: int = 0) -> np.ndarray:
        """Annealed samples, shape (num_reads, n)."""
        return simulated_annealing(
            problem,
            num_reads=self.num_reads,
            num_sweeps=self.num_sweeps,
            beta_range=self.beta_range,
            seed=check_seed(seed),
        )


class ExactSolver:
    """Exact maximum-weight independent set (bbqmis's clique search on the complement).

    Uses the exact integer node attribute ``weight`` when the graph has it (as
    :func:`clustagg.aggregate.mwis_problem` sets), else ``problem.weights``. Exponential
    time: meant for conflict graphs of up to a few dozen candidates.
    """

    def __call__(self, problem: MISProblem, *, seed: int = 0) -> np.ndarray:
        """Return the optimum, shape (n,)."""
        graph = problem.graph
        weights = "weight" if all("weight" in graph.nodes[v] for v in graph) else problem.weights
        return problem.to_bits(maximum_independent_set(graph, weights))


class QAOASolver:
    """Single-layer QAOA (bbqmis.qaoa) sampled on any backend.

    Parameters
    ----------
    backend : str or backends.QuantumBackend, default="aer"
        A spec for :func:`backends.get_backend` or a backend object.
    shots : int, default=1024
    max_qubits : int, default=20
        Widest conflict graph sent to the backend. A wider one falls back to
        :class:`AnnealingSolver`: the fallback is logged and counted in ``fallbacks``
        (circuit cutting will take over here).

    Attributes
    ----------
    fallbacks : int
        Problems solved by the annealing fallback so far.
    """

    def __init__(self, backend="aer", *, shots: int = 1024, max_qubits: int = 20):
        self.backend = backend
        self.shots = check_positive_int(shots, "shots")
        self.max_qubits = check_positive_int(max_qubits, "max_qubits")
        self.fallbacks = 0

    def __call__(self, problem: MISProblem, *, seed: int = 0) -> np.ndarray:
        """Distinct sampled bitstrings, shape (k, n)."""
        if problem.num_nodes > self.max_qubits:
            self.fallbacks += 1
            logger.warning(
                "conflict graph has %d candidates > max_qubits=%d: solved by simulated annealing, not QAOA",
                problem.num_nodes,
                self.max_qubits,
            )
            return AnnealingSolver()(problem, seed=seed)
        from bbqmis import qaoa  # qiskit is imported only by processes that run circuits

        angles = qaoa.optimize(problem)
        counts = qaoa.sample(problem, angles, backend=self.backend, shots=self.shots, seed=check_seed(seed))
        return bits_from_strings(list(counts), problem.num_nodes)


#: Solvers by name; each value builds a solver from keyword options.
SOLVERS: dict[str, Callable[..., Callable]] = {
    "anneal": AnnealingSolver,
    "exact": ExactSolver,
    "qaoa": QAOASolver,
}


def get_solver(solver, **options) -> Callable:
    """Return a solver from a name in :data:`SOLVERS` (built with ``options``) or a callable (as is).

    Raises
    ------
    InvalidParameterError
        If ``solver`` is neither a known name nor callable, or options are given with a callable.
    """
    if callable(solver):
        if options:
            raise InvalidParameterError(f"solver options {sorted(options)} apply to named solvers only")
        return solver
    if solver not in SOLVERS:
        raise InvalidParameterError(
            f"solver must be one of {', '.join(map(repr, SOLVERS))} or a callable; got {solver!r}"
        )
    return SOLVERS[solver](**options)


def solve(problem: MISProblem, solver, *, seed: int = 0) -> np.ndarray:
    """Best maximal independent set among the solver's candidates.

    Parameters
    ----------
    problem : MISProblem
    solver : callable
        ``solver(problem, seed=seed) -> bits`` of shape (n,) or (k, n).
    seed : int, default=0

    Returns
    -------
    bits : ndarray of shape (n,), dtype uint8
        The repaired candidate of least QUBO cost (ties: the lexicographically first).
    """
    samples = np.atleast_2d(np.asarray(solver(problem, seed=seed)))
    if samples.shape[1:] != (problem.num_nodes,) or len(samples) == 0:
        raise InvalidParameterError(
            f"solver must return bits of shape ({problem.num_nodes},) or (k, {problem.num_nodes}); "
            f"got {samples.shape}"
        )
    repaired = np.unique(
        np.array([problem.repair(bits, seed=seed) for bits in np.unique(samples, axis=0)]), axis=0
    )
    return repaired[np.argmin(problem.cost(repaired))]
