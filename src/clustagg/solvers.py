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
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from backends.utils.validation import check_choice, check_positive_int
from bbqmis.mis.classical import check_beta_range, maximum_independent_set, simulated_annealing
from bbqmis.mis.problem import MISProblem

from ._validation import check_round_seed
from .errors import InvalidParameterError

__all__ = [
    "ANGLES",
    "AnnealingSolver",
    "ExactSolver",
    "MWISSolver",
    "QAOASolver",
    "SOLVERS",
    "TRAINING_METHODS",
    "TRAINING_STARTS",
    "get_solver",
    "solve",
    "training_counters",
]

logger = logging.getLogger(__name__)

#: QAOA angles, training starts and optimisers, as :mod:`bbqmis.mis.training`'s (kept here so
#: that checking them imports no qiskit).
ANGLES = ("closed-form", "trained")
TRAINING_STARTS = ("closed-form", "random")
TRAINING_METHODS = ("cobyla", "nelder-mead", "powell")


class MWISSolver(Protocol):
    """What :func:`solve` calls: ``solver(problem, seed=seed) -> bits``.

    ``bits`` is array-like of 0/1, of shape (n,) or (k, n) with ``n = problem.num_nodes``.
    A solver may also count its fallbacks in an integer attribute ``fallbacks``.

    Examples
    --------
    Any callable with this signature will do, here one that always picks candidate 3:

    >>> import numpy as np
    >>> from clustagg.aggregate import Candidates, conflict_graph, mwis_problem
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> problem = mwis_problem(conflict_graph(candidates))
    >>> def only_three(problem, *, seed):
    ...     return [0, 0, 0, 1]
    >>> solve(problem, only_three).tolist()  # repaired to a maximal set
    [0, 0, 1, 1]
    """

    def __call__(self, problem: MISProblem, /, *, seed: int) -> ArrayLike:
        """Candidate selections for ``problem``, seeded by ``seed``."""
        ...


class AnnealingSolver:
    """Simulated annealing (dwave-samplers) with an explicit inverse-temperature range.

    Parameters
    ----------
    num_reads : int, default=50
    num_sweeps : int, default=1000
    beta_range : (float, float), default=(0.1, 100.0)
        The default range of ``SimulatedAnnealingSampler`` reaches the optimum in only a
        few per cent of reads at ``lambda = n``; this one in every read.

    Examples
    --------
    >>> import numpy as np
    >>> from clustagg.aggregate import Candidates, conflict_graph, mwis_problem
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> problem = mwis_problem(conflict_graph(candidates))
    >>> AnnealingSolver(num_reads=4, num_sweeps=100)(problem, seed=1).shape
    (4, 4)
    """

    def __init__(
        self, *, num_reads: int = 50, num_sweeps: int = 1000, beta_range: tuple[float, float] = (0.1, 100.0)
    ) -> None:
        self.num_reads = check_positive_int(num_reads, "num_reads")
        self.num_sweeps = check_positive_int(num_sweeps, "num_sweeps")
        self.beta_range = check_beta_range(beta_range)

    def __call__(self, problem: MISProblem, *, seed: int = 0) -> NDArray[np.uint8]:
        """Annealed samples, shape (num_reads, n)."""
        return simulated_annealing(
            problem,
            num_reads=self.num_reads,
            num_sweeps=self.num_sweeps,
            beta_range=self.beta_range,
            seed=check_round_seed(seed),
        )


class ExactSolver:
    """Exact maximum-weight independent set (bbqmis's clique search on the complement).

    Uses the exact integer node attribute ``weight`` when the graph has it (as
    :func:`clustagg.aggregate.mwis_problem` sets), else ``problem.weights``. Exponential
    time: meant for conflict graphs of up to a few dozen candidates.

    Examples
    --------
    The heaviest set is ``b``'s two clusters, which cover all four points:

    >>> import numpy as np
    >>> from clustagg.aggregate import Candidates, conflict_graph, mwis_problem
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> ExactSolver()(mwis_problem(conflict_graph(candidates))).tolist()
    [0, 0, 1, 1]
    """

    def __call__(self, problem: MISProblem, *, seed: int = 0) -> NDArray[np.uint8]:
        """Return the optimum, shape (n,)."""
        graph = problem.graph
        weights = "weight" if all("weight" in graph.nodes[v] for v in graph) else problem.weights
        return problem.to_bits(maximum_independent_set(graph, weights))


class QAOASolver:
    """Single-layer QAOA through the shared :class:`bbqmis.solver.QuantumMISSolver`.

    Closed-form angles or angles trained on the backend (:mod:`bbqmis.mis.training`),
    ``shots`` shots on ``backend``, circuit cutting for a conflict graph wider than
    ``max_qubits`` (trained through the cut reconstruction), and simulated annealing as the
    counted fallback (logged once per fallback).

    Parameters
    ----------
    backend : str, default="aer"
        A spec for :func:`backends.shared_backend`.
    shots : int, default=1024
    max_qubits : int, optional
        Widest circuit sent to the backend; default the device's qubits, at most
        :data:`bbqmis.solver.DEFAULT_MAX_QUBITS`.
    angles : {"closed-form", "trained"} or Training, default="closed-form"
        The closed-form p = 1 optimum (exact, no circuit), or angles trained on the backend
        by a scipy optimiser from sampled energies; a
        :class:`~bbqmis.mis.training.Training` sets every training option at once.
    training_evaluations : int, optional
        With ``angles="trained"``: energy evaluations per problem (default 40).
    training_shots : int, optional
        With ``angles="trained"``: shots per circuit of an evaluation (default ``shots``).
    training_start : {"closed-form", "random"}, optional
        With ``angles="trained"``: the optimiser's start (default the closed form).
    training_method : {"cobyla", "nelder-mead", "powell"}, optional
        With ``angles="trained"``: the scipy optimiser (default COBYLA).
    **options
        Other keyword arguments of :class:`~bbqmis.solver.QuantumMISSolver` (``cut``,
        ``max_cut_overhead``, ``sleep_factor``, ``fallback_sweeps``).

    Attributes
    ----------
    solver : QuantumMISSolver
        The solver; ``solver.stats`` totals circuits, shots, quantum seconds, cut
        problems and fallbacks.
    last_training : dict or None
        The training and sampling counters of the last call when the angles are trained
        (``training_problems``, ``training_evaluations``, ``training_circuits``, ...,
        ``sampling_shots``; see :func:`bbqmis.mis.training.training_summary`), else None.

    Raises
    ------
    InvalidParameterError
        If a training option is out of range (the message names it), given without
        ``angles="trained"``, or given beside a ``Training``.

    Examples
    --------
    On the local Aer simulator, QAOA's samples contain the optimum (``b``'s two clusters):

    >>> import numpy as np
    >>> from clustagg.aggregate import Candidates, conflict_graph, mwis_problem
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> problem = mwis_problem(conflict_graph(candidates))
    >>> qaoa = QAOASolver("aer", shots=256)
    >>> solve(problem, qaoa, seed=3).tolist(), qaoa.fallbacks, qaoa.last_training
    ([0, 0, 1, 1], 0, None)

    The same with angles trained on the simulator, 10 evaluations at most:

    >>> trained = QAOASolver("aer", shots=256, angles="trained", training_evaluations=10)
    >>> solve(problem, trained, seed=3).tolist(), trained.last_training["training_evaluations"] <= 10
    ([0, 0, 1, 1], True)
    """

    def __init__(
        self,
        backend: str = "aer",
        *,
        shots: int = 1024,
        max_qubits: int | None = None,
        angles: Any = "closed-form",
        training_evaluations: int | None = None,
        training_shots: int | None = None,
        training_start: str | None = None,
        training_method: str | None = None,
        **options: Any,
    ) -> None:
        from bbqmis.solver import QuantumMISSolver  # qiskit is imported only by processes that run circuits

        given = _training_options(training_evaluations, training_shots, training_start, training_method)
        self.solver = QuantumMISSolver(
            backend, shots=shots, max_qubits=max_qubits, angles=_angles(angles, given), **options
        )
        self.last_training: dict[str, float] | None = None

    @property
    def fallbacks(self) -> int:
        """Problems solved by the annealing fallback so far."""
        return int(self.solver.stats["fallbacks"])

    def __call__(self, problem: MISProblem, *, seed: int = 0) -> NDArray[np.uint8]:
        """Distinct sampled bitstrings, shape (k, n), most frequent first."""
        samples = self.solver.sample(problem, seed=check_round_seed(seed))
        if samples.stats["fallbacks"]:
            logger.warning(
                "conflict graph of %d candidates does not fit %d qubits, even cut: "
                "solved by simulated annealing, not QAOA",
                problem.num_nodes,
                self.solver.width(),
            )
        if self.solver.training is not None:
            self.last_training = {
                key: float(value)
                for key, value in samples.stats.items()
                if key.startswith(("training_", "sampling_"))
            }
            self.last_training.setdefault("training_problems", 0.0)
        return samples.bits


def _training_options(
    evaluations: int | None, shots: int | None, start: str | None, method: str | None
) -> dict[str, Any]:
    """The training options given (not None), checked, by :class:`~bbqmis.mis.training.Training` field."""
    given: dict[str, Any] = {}
    if evaluations is not None:
        given["evaluations"] = check_positive_int(evaluations, "training_evaluations")
    if shots is not None:
        given["shots"] = check_positive_int(shots, "training_shots")
    if start is not None:
        given["start"] = check_choice(start, "training_start", TRAINING_STARTS)
    if method is not None:
        given["method"] = check_choice(method, "training_method", TRAINING_METHODS)
    return given


def _angles(angles: Any, given: dict[str, Any]) -> Any:
    """``angles`` for :class:`~bbqmis.solver.QuantumMISSolver`: a name, or a Training of ``given``."""
    if isinstance(angles, str):
        check_choice(angles, "angles", ANGLES)
    if given and angles != "trained":
        first = f"training_{next(iter(given))}"
        raise InvalidParameterError(f"{first} needs angles='trained', got angles={angles!r}")
    if angles == "trained":
        from bbqmis.mis.training import Training

        return Training(**given)
    return angles


def training_counters(solver: object) -> dict[str, Any]:
    """``{"training": counters}`` of a solver's last call when it trained its angles, else ``{}``.

    What a quantum step adds to its selection (:func:`clustagg.steps.aggregate`), so that
    :meth:`clustagg.loop.LoopState.update` can total the training over the rounds.

    Parameters
    ----------
    solver : callable
        Any :class:`MWISSolver`; only a :class:`QAOASolver` with trained angles has counters.

    Returns
    -------
    dict

    Examples
    --------
    >>> training_counters(ExactSolver())
    {}
    >>> solver = QAOASolver("aer", angles="trained", training_evaluations=5)
    >>> solver.last_training = {"training_problems": 1.0, "training_evaluations": 5.0}
    >>> training_counters(solver)
    {'training': {'training_problems': 1.0, 'training_evaluations': 5.0}}
    """
    counters = getattr(solver, "last_training", None)
    return {} if counters is None else {"training": dict(counters)}


#: Solvers by name; each value builds a solver from keyword options.
SOLVERS: dict[str, Callable[..., MWISSolver]] = {
    "anneal": AnnealingSolver,
    "exact": ExactSolver,
    "qaoa": QAOASolver,
}


def get_solver(solver: str | MWISSolver, **options: Any) -> MWISSolver:
    """Return a solver from a name in :data:`SOLVERS` (built with ``options``) or a callable (as is).

    Raises
    ------
    InvalidParameterError
        If ``solver`` is neither a known name nor callable, or options are given with a callable.

    Examples
    --------
    >>> get_solver("anneal", num_reads=10).num_reads
    10
    >>> try:
    ...     get_solver("magic")
    ... except ValueError as error:
    ...     print(error)
    solver must be one of 'anneal', 'exact', 'qaoa' or a callable; got 'magic'
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


def solve(problem: MISProblem, solver: MWISSolver, *, seed: int = 0) -> NDArray[np.uint8]:
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

    Examples
    --------
    >>> import numpy as np
    >>> from clustagg.aggregate import Candidates, conflict_graph, mwis_problem
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> problem = mwis_problem(conflict_graph(candidates))
    >>> solve(problem, AnnealingSolver(num_reads=8, num_sweeps=200), seed=0).tolist()
    [0, 0, 1, 1]
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
