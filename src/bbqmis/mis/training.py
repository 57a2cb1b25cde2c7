r"""QAOA angles trained on a backend: a classical optimiser over energies estimated from samples.

The closed form (:func:`bbqmis.mis.qaoa.optimize`) gives the exact p = 1 optimum with no
circuit; :func:`train` runs a variational program's hybrid loop instead, on energies the
caller's ``estimate`` takes from a backend (:func:`sample_energy`, or :func:`cutting.expectation`
on a cut plan): a scipy search (COBYLA by default), then a *model fit* that averages the shot
noise over many evaluations instead of trusting the lowest noisy one (:func:`train` says
how). :class:`TrainedAngles` compares the result with the closed-form optimum exactly (the
optimum's energy is never used in training; its angles are the default start), and
:class:`Training` holds the options. No warm start: each problem starts afresh.

Counters: :func:`count_device_work` adds a phase's circuits, shots and quantum seconds
(``training_*`` or ``sampling_*``) from its timing records, and :func:`training_summary`
turns a solver's counters into the ``training`` object of a colouring run's JSON output.

Bit order: qiskit's (qubit 0 is the rightmost character of a count's key).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np
import scipy.optimize

from backends.base import QuantumBackend
from backends.timing import TimingRecord
from backends.utils.errors import InvalidParameterError
from backends.utils.validation import (
    SeedLike,
    check_choice,
    check_nonnegative,
    check_positive_int,
    check_random_state,
)

from . import qaoa
from .ising import IsingLike, ising_edge_list
from .problem import bits_from_strings

__all__ = [
    "ANGLES",
    "METHODS",
    "STARTS",
    "SampledEnergy",
    "TrainedAngles",
    "Training",
    "check_angle_mode",
    "count_device_work",
    "counts_energy",
    "sample_energy",
    "train",
    "training_summary",
]

#: Where angles come from: the closed form (exact, no circuit) or training on the backend.
ANGLES = ("closed-form", "trained")

#: Optimisers by name -> the :func:`scipy.optimize.minimize` method; all derivative-free.
METHODS = {"cobyla": "COBYLA", "nelder-mead": "Nelder-Mead", "powell": "Powell"}

#: Starting points of the training.
STARTS = ("closed-form", "random")

#: First step of the search, as a share of the angles' scales: small near the closed form.
_FIRST_STEP = {"closed-form": 0.05, "random": 0.1}

#: The search stops at steps below this share of its first step (finer ones compare noise).
_SEARCH_TOLERANCE = 0.25

#: The model fit's stencil, in units of :data:`_RADIUS`: centre, axis points, corners.
_STENCIL = np.array([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)], float)

#: Half-widths of the stencil and of one move of the fit, in scaled ``(gamma, beta)``.
_RADIUS = np.array([0.05, 0.1])


class SampledEnergy(NamedTuple):
    """An energy estimated from samples.

    Attributes
    ----------
    value : float
        Mean Ising cost (offset included) over the samples.
    standard_error : float
        Standard error of the mean (0 for a single distinct outcome).

    Examples
    --------
    >>> SampledEnergy(-1.5, 0.02).value
    -1.5
    """

    value: float
    standard_error: float


@dataclass(frozen=True)
class Training:
    """How angles are trained on a backend; checks itself.

    Parameters
    ----------
    evaluations : int, default=40
        Budget of energy evaluations (backend runs) per problem; the optimiser may stop
        earlier when it converges.
    shots : int, optional
        Shots per circuit of an evaluation; default the sampler's shots.
    start : {"closed-form", "random"}, default="closed-form"
        The closed-form optimum, or the best of ``evaluations // 4`` (at least 1) uniformly
        random points over a period of the angles (seeded by the caller's seed; they count
        as evaluations).
    method : {"cobyla", "nelder-mead", "powell"}, default="cobyla"
        The :func:`scipy.optimize.minimize` method of the search.
    tolerance : float, default=0.005
        The model fit stops once its expected gap (from the estimates' standard errors) is
        at most ``tolerance`` times the magnitude of its energy; 0 spends the whole budget.
        With fewer than 18 evaluations there is no fit (the search takes them all).

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range; the message names it.

    Examples
    --------
    >>> Training(evaluations=20, start="random")
    Training(evaluations=20, shots=None, start='random', method='cobyla', tolerance=0.005)
    >>> Training(evaluations=0)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: evaluations must be a positive integer, got 0
    """

    evaluations: int = 40
    shots: int | None = None
    start: str = "closed-form"
    method: str = "cobyla"
    tolerance: float = 0.005

    def __post_init__(self) -> None:
        object.__setattr__(self, "evaluations", check_positive_int(self.evaluations, "evaluations"))
        if self.shots is not None:
            object.__setattr__(self, "shots", check_positive_int(self.shots, "shots"))
        check_choice(self.start, "start", STARTS)
        check_choice(self.method, "method", tuple(METHODS))
        object.__setattr__(self, "tolerance", check_nonnegative(self.tolerance, "tolerance"))

    def to_json(self) -> dict:
        """Plain-dict form.

        Examples
        --------
        >>> Training().to_json()
        {'evaluations': 40, 'shots': None, 'start': 'closed-form', 'method': 'cobyla', 'tolerance': 0.005}
        """
        return asdict(self)


def check_angle_mode(angles: object) -> Training | None:
    """Return the training that ``angles`` asks for: None for the closed form.

    Parameters
    ----------
    angles : {"closed-form", "trained"} or Training
        ``"trained"`` means ``Training()`` (its defaults).

    Raises
    ------
    InvalidParameterError
        For any other value.

    Examples
    --------
    >>> check_angle_mode("closed-form") is None, check_angle_mode("trained").evaluations
    (True, 40)
    >>> check_angle_mode("learned")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: angles must be one of 'closed-form', 'trained' \
or a Training; got 'learned'
    """
    if isinstance(angles, Training):
        return angles
    if angles == "closed-form":
        return None
    if angles == "trained":
        return Training()
    raise InvalidParameterError(
        f"angles must be one of 'closed-form', 'trained' or a Training; got {angles!r}"
    )


@dataclass(frozen=True)
class TrainedAngles:
    """Angles trained on a backend, and how they compare with the closed-form optimum.

    Attributes
    ----------
    gamma, beta : float
        Trained angles (radians).
    energy : float
        Exact (closed-form) energy at the trained angles.
    estimate : float
        The backend's estimate of the energy at the trained angles (shot noise included):
        the fitted model's value there, or without a fit the optimiser's best evaluation.
    optimum : float
        Exact energy at the closed-form optimum.
    start : (float, float)
        Starting angles ``(gamma, beta)`` of the optimiser (from a random start, the best
        random point).
    evaluations : int
        Backend evaluations spent, search and model fit together.
    seconds : float
        Wall time of the training (s).
    fit_evaluations : int, default=0
        Of ``evaluations``, those spent on the model fit's stencils.

    Examples
    --------
    >>> angles = TrainedAngles(0.5, 0.3, -1.9, -1.95, -2.0, (0.4, 0.2), 12, 0.1)
    >>> round(angles.gap, 6), round(angles.relative_gap, 6)
    (0.1, 0.05)
    """

    gamma: float
    beta: float
    energy: float
    estimate: float
    optimum: float
    start: tuple[float, float]
    evaluations: int
    seconds: float
    fit_evaluations: int = 0

    @property
    def gap(self) -> float:
        """``energy - optimum`` (>= 0 up to rounding: the closed form is the p = 1 optimum)."""
        return self.energy - self.optimum

    @property
    def relative_gap(self) -> float:
        """``gap / |optimum|``; 0 when the optimum is 0."""
        return self.gap / abs(self.optimum) if self.optimum else 0.0

    def to_json(self) -> dict:
        """Plain-dict form, with ``gap`` and ``relative_gap``.

        Examples
        --------
        >>> TrainedAngles(0.5, 0.3, -1.9, -1.95, -2.0, (0.4, 0.2), 12, 0.1).to_json()["evaluations"]
        12
        """
        return {**asdict(self), "start": list(self.start), "gap": self.gap, "relative_gap": self.relative_gap}


def counts_energy(problem: IsingLike, counts: Mapping[str, float]) -> SampledEnergy:
    """Mean Ising cost of sampled bitstrings, and its standard error.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
        Cost ``offset + sum h_u z_u + sum J_uv z_u z_v`` with ``z_u = 1 - 2 x_u`` (for an
        :class:`~bbqmis.mis.problem.MISProblem`, its QUBO cost).
    counts : mapping of str to number
        Bitstring (qiskit order) -> times sampled.

    Returns
    -------
    SampledEnergy

    Raises
    ------
    InvalidParameterError
        If ``counts`` is empty or its total is not positive.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> problem = MISProblem(nx.path_graph(3))  # cost: -|x| + 2 per edge inside x
    >>> counts_energy(problem, {"101": 3, "011": 1})  # costs -2 (3 times) and 0
    SampledEnergy(value=-1.5, standard_error=0.5)
    """
    h, edges, couplings, offset = ising_edge_list(problem)
    weights = np.fromiter(counts.values(), dtype=float, count=len(counts))
    total = weights.sum() if weights.size else 0.0
    if not total > 0:
        raise InvalidParameterError(f"counts must hold at least one sample, got {dict(counts)!r}")
    z = 1.0 - 2.0 * bits_from_strings(list(counts), h.size).astype(float)
    costs = offset + z @ h + (z[:, edges[:, 0]] * z[:, edges[:, 1]]) @ couplings
    mean = float(weights @ costs / total)
    spread = float(weights @ (costs - mean) ** 2 / total)
    return SampledEnergy(mean, float(np.sqrt(spread / max(total - 1.0, 1.0))))


def sample_energy(
    problem: IsingLike,
    angles: tuple[float, float],
    backend: QuantumBackend,
    shots: int,
    seed: int | None = None,
) -> SampledEnergy:
    """Run the QAOA circuit at ``angles`` once and estimate its energy from the counts.

    Examples
    --------
    >>> import networkx as nx
    >>> from backends import shared_backend
    >>> from bbqmis.mis import MISProblem
    >>> problem = MISProblem(nx.cycle_graph(5))
    >>> estimate = sample_energy(problem, (0.6, 0.2), shared_backend("aer"), shots=4000, seed=1)
    >>> bool(abs(estimate.value - qaoa.expectation(problem, 0.6, 0.2)) < 4 * estimate.standard_error)
    True
    """
    return counts_energy(problem, qaoa.sample(problem, angles, backend, shots=shots, seed=seed))


def _periods(closed_form: qaoa.ClosedForm) -> np.ndarray:
    """Scales of ``(gamma, beta)``: the closed form's search range in ``gamma``, and ``pi`` in ``beta``."""
    scale = closed_form.scale
    return np.array([np.pi / scale if scale > 0 else np.pi, np.pi])


def train(
    problem: IsingLike,
    estimate: Callable[[float, float], tuple[float, float]],
    training: Training | None = None,
    *,
    seed: SeedLike = None,
    closed_form: qaoa.QAOAAngles | None = None,
) -> TrainedAngles:
    """Minimise the estimated energy over ``(gamma, beta)``: a scipy search, then a model fit.

    Angles are divided by their scales (``pi / max|h, J|`` for ``gamma``, ``pi`` for ``beta``).
    The search stops at steps of a quarter of its first, or at ``evaluations - 18`` (at least
    8). The fit evaluates a 3 x 3 stencil (half-widths 0.05 and 0.1) around the incumbent and
    fits the p = 1 energy's exact form in ``beta``, ``offset + a sin 2beta + b sin(4beta)/2 +
    c sin^2(2beta)/2`` with ``a, b, c`` quadratic in ``gamma``, to every evaluation within 1.5
    half-widths in ``gamma`` (weighted least squares, by the standard errors); it moves to
    the fit's minimum within one half-width, and repeats until the fit's expected gap
    ``tr(H^-1 G C G^T) / 2`` (``H`` its Hessian, ``G C G^T`` its gradient's covariance) is
    at most ``tolerance * |fitted energy|``. Each call of ``estimate`` is one evaluation.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
    estimate : callable ``(gamma, beta) -> (value, standard_error)``
        One backend evaluation, e.g. ``lambda g, b: sample_energy(problem, (g, b), backend, shots)``
        or ``lambda g, b: cutting.expectation(plan, g, b, backend, shots)``.
    training : Training, optional
        Default ``Training()``; its ``shots`` is the caller's business (``estimate``).
    seed : None, int or numpy.random.Generator
        Seeds the random start.
    closed_form : QAOAAngles, optional
        The closed-form optimum of ``problem`` if already known (else computed); its angles
        are the default start, its energy is only reported.

    Returns
    -------
    TrainedAngles

    Examples
    --------
    >>> import networkx as nx
    >>> from backends import shared_backend
    >>> from bbqmis.mis import MISProblem
    >>> problem = MISProblem(nx.cycle_graph(6))
    >>> aer = shared_backend("aer")
    >>> trained = train(problem, lambda g, b: sample_energy(problem, (g, b), aer, 2000, seed=3),
    ...                 Training(evaluations=30, start="random"), seed=1)
    >>> trained.evaluations <= 30, trained.relative_gap < 0.1
    (True, True)
    """
    start_time = time.perf_counter()
    training = training or Training()
    closed = closed_form or qaoa.optimize(problem)
    log = _Evaluations(estimate, _periods(qaoa.ClosedForm(problem)), training.evaluations)
    stencils = 2 * len(_STENCIL)  # the fit needs two stencils' worth of budget
    fit = training.evaluations >= stencils
    search = max(training.evaluations - stencils, 8) if fit else log.budget
    start, best, value = _search(log, training, search, seed, closed)
    searched = len(log.rows)
    if fit:
        best, value = _refine(log, best, value, ising_edge_list(problem)[3], training.tolerance)
    gamma, beta = (float(angle) for angle in best * log.scales)
    return TrainedAngles(
        gamma=gamma,
        beta=beta,
        energy=float(qaoa.expectation(problem, gamma, beta)),
        estimate=value,
        optimum=closed.energy,
        start=(float(start[0]), float(start[1])),
        evaluations=len(log.rows),
        seconds=time.perf_counter() - start_time,
        fit_evaluations=len(log.rows) - searched,
    )


class _BudgetSpent(Exception):
    """Raised by the objective when the evaluation budget is spent."""


class _Evaluations:
    """Every backend evaluation of one training, as rows (scaled gamma, scaled beta, value, error)."""

    def __init__(self, estimate: Callable[..., tuple[float, float]], scales: np.ndarray, budget: int):
        self.estimate, self.scales, self.budget = estimate, scales, budget
        self.rows: list[tuple[float, float, float, float]] = []

    def __call__(self, x: np.ndarray, limit: int | None = None) -> float:
        """The estimate at scaled angles ``x``; raises :class:`_BudgetSpent` at ``limit`` evaluations."""
        if len(self.rows) >= min(self.budget, limit or self.budget):
            raise _BudgetSpent
        gamma, beta = x * self.scales
        value, error = self.estimate(float(gamma), float(beta))
        self.rows.append((float(x[0]), float(x[1]), float(value), float(error)))
        return float(value)

    def best(self) -> tuple[np.ndarray, float]:
        """The scaled angles with the lowest estimate, and that estimate."""
        row = min(self.rows, key=lambda row: row[2])
        return np.array(row[:2]), row[2]


def _search(
    log: _Evaluations, training: Training, budget: int, seed: SeedLike, closed: qaoa.QAOAAngles
) -> tuple[np.ndarray, np.ndarray, float]:
    """Start, result and its estimate (scaled angles) of the scipy method, in ``budget`` evaluations."""

    def objective(x: np.ndarray) -> float:
        return log(x, budget)

    start = np.array([closed.gamma, closed.beta]) / log.scales
    if training.start == "random":  # the best of a quarter of the budget's random points (within it)
        rng = check_random_state(seed)
        for _ in range(max(1, training.evaluations // 4)):
            objective(rng.uniform(0.0, 1.0, size=2))
        start = log.best()[0]
    try:
        if len(log.rows) >= budget:
            raise _BudgetSpent
        options = _options(training, start, budget - len(log.rows))
        result = scipy.optimize.minimize(objective, start, method=METHODS[training.method], options=options)
        return start, np.asarray(result.x), float(result.fun)
    except _BudgetSpent:  # budget spent before the method stopped: the best estimate seen
        return (start, *log.best())


def _refine(
    log: _Evaluations, centre: np.ndarray, value: float, offset: float, tolerance: float
) -> tuple[np.ndarray, float]:
    """Fit until the expected gap is small: the last interior minimum (an edge one only moves the stencil)."""
    answer = centre, value
    while len(log.rows) < log.budget:
        for step in _STENCIL[: log.budget - len(log.rows)]:
            log(centre + _RADIUS * step)
        fitted = _model_minimum(log, centre, offset)
        if fitted is not None:  # else too few or degenerate points: one more stencil
            centre, value, expected_gap = fitted
            answer = (centre, value) if expected_gap < np.inf else answer
            if expected_gap <= tolerance * abs(value):
                break
    return answer


def _features(x: np.ndarray) -> np.ndarray:
    """Features of the energy less its offset at ``x`` (k, 2) = (gamma - centre, beta), scaled: (k, 9)."""
    x = np.atleast_2d(x)
    sine, beta = np.sin(2 * np.pi * x[:, 1]), np.pi * x[:, 1]
    terms = (sine, np.sin(4 * beta) / 2, sine**2 / 2)
    return np.column_stack([term * x[:, 0] ** power for term in terms for power in range(3)])


def _jacobian(x: np.ndarray, step: float = 1e-5) -> np.ndarray:
    """Derivatives of :func:`_features` at one point ``x`` (2,), by central differences: (2, 9)."""
    return np.stack([(_features(x + step * e) - _features(x - step * e))[0] / (2 * step) for e in np.eye(2)])


def _model_minimum(
    log: _Evaluations, centre: np.ndarray, offset: float
) -> tuple[np.ndarray, float, float] | None:
    """Weighted least-squares fit near ``centre``: its minimum within one half-width, value, expected gap.

    The expected gap is infinite unless the minimum lies inside the box and the fit is
    convex there; None when the points do not determine the fit.
    """
    rows = np.array(log.rows)
    rows = rows[np.abs(rows[:, 0] - centre[0]) <= 1.5 * _RADIUS[0]]
    x, errors = rows[:, :2] - (centre[0], 0.0), rows[:, 3]
    floor = float(np.median(errors))
    weights = 1.0 / np.maximum(errors, floor) if floor > 0 else np.ones(errors.size)
    design = _features(x) * weights[:, None]
    coef, _, rank, _ = np.linalg.lstsq(design, (rows[:, 2] - offset) * weights, rcond=None)
    if rank < design.shape[1]:
        return None
    covariance = np.linalg.pinv(design.T @ design) if floor > 0 else np.zeros((coef.size, coef.size))
    box = np.array([[-_RADIUS[0], _RADIUS[0]], [centre[1] - _RADIUS[1], centre[1] + _RADIUS[1]]])
    grid = np.stack(np.meshgrid(*(np.linspace(low, high, 41) for low, high in box)), -1).reshape(-1, 2)
    best = scipy.optimize.minimize(
        lambda y: float((_features(y) @ coef)[0]), grid[np.argmin(_features(grid) @ coef)], bounds=box
    ).x
    hessian = np.stack(
        [(_jacobian(best + 1e-4 * e) - _jacobian(best - 1e-4 * e)) @ coef / 2e-4 for e in np.eye(2)]
    )
    inside = bool(np.all(np.abs(best - (0.0, centre[1])) < 0.99 * _RADIUS))
    expected = np.inf
    if inside and np.linalg.eigvalsh(hessian).min() > 0:
        expected = 0.5 * float(
            np.trace(np.linalg.solve(hessian, _jacobian(best) @ covariance @ _jacobian(best).T))
        )
    return np.array([centre[0] + best[0], best[1]]), float((_features(best) @ coef)[0]) + offset, expected


def _options(training: Training, x0: np.ndarray, budget: int) -> dict[str, object]:
    """Options of :func:`scipy.optimize.minimize` for ``training`` from ``x0``: budget, first and last step.

    COBYLA needs ``len(x0) + 2`` evaluations (below that the budget check stops it);
    Nelder-Mead stops on the simplex's size alone (noisy values never settle).
    """
    step = _FIRST_STEP[training.start]
    last = _SEARCH_TOLERANCE * step
    if training.method == "cobyla":
        return {"maxiter": max(budget, x0.size + 2), "rhobeg": step, "tol": last}
    if training.method == "nelder-mead":
        simplex = np.vstack([x0, x0 + step * np.eye(x0.size)])
        return {"maxfev": budget, "xatol": last, "fatol": np.inf, "initial_simplex": simplex}
    return {"maxfev": budget, "xtol": last, "ftol": 1e-4, "direc": step * np.eye(x0.size)}


def count_device_work(stats: MutableMapping[str, float], phase: str, records: Iterable[TimingRecord]) -> None:
    """Add the circuits, shots and quantum seconds of ``records`` to the ``phase`` counters of ``stats``.

    Examples
    --------
    >>> record = TimingRecord("aer", 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, circuits=2, shots=100)
    >>> stats = {}
    >>> count_device_work(stats, "training", [record])
    >>> stats
    {'training_circuits': 2.0, 'training_shots': 200.0, 'training_quantum_seconds': 0.5}
    """
    for record in records:
        for key, value in (
            ("circuits", record.circuits),
            ("shots", record.shots * record.circuits),
            ("quantum_seconds", record.quantum_seconds),
        ):
            stats[f"{phase}_{key}"] = stats.get(f"{phase}_{key}", 0.0) + value


def training_summary(stats: Mapping[str, float]) -> dict[str, Any] | None:
    """The training and sampling counters of ``stats``, as the JSON output's ``training`` object.

    Parameters
    ----------
    stats : mapping of str to float
        Counters of :class:`bbqmis.solver.QuantumMISSolver` calls (or their sums, as a colouring run
        keeps them).

    Returns
    -------
    dict or None
        ``problems`` (problems whose angles were trained), ``evaluations``, ``circuits``,
        ``shots`` and ``quantum_seconds`` spent on training, ``sampling`` (the same three
        for the final sampling), ``mean_gap`` and ``mean_relative_gap`` (per trained
        problem; None when none was); None when ``stats`` has no training counters.

    Examples
    --------
    >>> summary = training_summary(dict(training_problems=2, training_evaluations=30,
    ...     training_circuits=30, training_gap=0.1, sampling_circuits=2))
    >>> summary["evaluations"], summary["sampling"]["circuits"], summary["mean_gap"]
    (30, 2, 0.05)
    >>> training_summary({"calls": 1}) is None
    True
    """
    if "training_problems" not in stats:
        return None
    problems = int(stats["training_problems"])

    def device(phase: str) -> dict[str, float]:
        return {
            "circuits": int(stats.get(f"{phase}_circuits", 0)),
            "shots": int(stats.get(f"{phase}_shots", 0)),
            "quantum_seconds": float(stats.get(f"{phase}_quantum_seconds", 0.0)),
        }

    return {
        "problems": problems,
        "evaluations": int(stats.get("training_evaluations", 0)),
        **device("training"),
        "sampling": device("sampling"),
        "mean_gap": stats.get("training_gap", 0.0) / problems if problems else None,
        "mean_relative_gap": stats.get("training_relative_gap", 0.0) / problems if problems else None,
    }
