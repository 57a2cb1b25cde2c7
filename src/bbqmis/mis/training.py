r"""QAOA angles trained on a backend: a classical optimiser over energies estimated from samples.

The closed form (:func:`bbqmis.mis.qaoa.optimize`) gives the exact p = 1 optimum with no
circuit; this module runs the hybrid loop instead, as a variational program on a device
does: a scipy optimiser (COBYLA by default) proposes angles, the energy at them is
*estimated* on the backend, and the loop goes on until the evaluation budget is spent or
the optimiser converges. What an evaluation is belongs to the caller: :func:`sample_energy`
runs the QAOA circuit and averages the Ising cost over its counts
(:func:`counts_energy`); a cut circuit is evaluated by :func:`cutting.expectation`, the
expectation-value reconstruction. :func:`train` takes either as ``estimate``.

The result (:class:`TrainedAngles`) says how far the trained angles are from the
closed-form optimum, *exactly*: the closed form is exact at p = 1, so the energy at the
trained angles and the optimum energy are both computed without shot noise.

:class:`Training` holds the options (evaluation budget, shots per evaluation, start,
method) and checks them. Each problem starts from its own closed-form optimum or from a
seeded random point; nothing is carried from one problem to the next (no warm start: the
closed-form start of every problem is already its exact optimum, better than any angles
carried over from another problem).

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
from backends.utils.validation import SeedLike, check_choice, check_positive_int, check_random_state

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

#: First step of the optimiser, as a share of the angles' periods, from each start: small
#: near the closed-form optimum, larger from a random point.
_FIRST_STEP = {"closed-form": 0.05, "random": 0.1}


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
        The :func:`scipy.optimize.minimize` method.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range; the message names it.

    Examples
    --------
    >>> Training(evaluations=20, start="random")
    Training(evaluations=20, shots=None, start='random', method='cobyla')
    >>> Training(evaluations=0)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: evaluations must be a positive integer, got 0
    """

    evaluations: int = 40
    shots: int | None = None
    start: str = "closed-form"
    method: str = "cobyla"

    def __post_init__(self) -> None:
        object.__setattr__(self, "evaluations", check_positive_int(self.evaluations, "evaluations"))
        if self.shots is not None:
            object.__setattr__(self, "shots", check_positive_int(self.shots, "shots"))
        check_choice(self.start, "start", STARTS)
        check_choice(self.method, "method", tuple(METHODS))

    def to_json(self) -> dict:
        """Plain-dict form.

        Examples
        --------
        >>> Training().to_json()
        {'evaluations': 40, 'shots': None, 'start': 'closed-form', 'method': 'cobyla'}
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
        The backend's estimate of the energy at the trained angles (shot noise included).
    optimum : float
        Exact energy at the closed-form optimum.
    start : (float, float)
        Starting angles ``(gamma, beta)`` of the optimiser (from a random start, the best
        random point).
    evaluations : int
        Backend evaluations spent.
    seconds : float
        Wall time of the training (s).

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
    """Minimise the estimated energy over ``(gamma, beta)`` with a scipy optimiser.

    The optimiser works on angles divided by their scales (``pi / max|h, J|`` for
    ``gamma``, ``pi`` for ``beta``) so that one step size suits both; it stops at
    ``training.evaluations`` estimates, or earlier when it converges.

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
        The closed-form optimum of ``problem`` if already known (else computed).

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
    scales = _periods(qaoa.ClosedForm(problem))
    seen: list[tuple[float, np.ndarray]] = []

    def objective(x: np.ndarray) -> float:
        if len(seen) >= training.evaluations:
            raise _BudgetSpent
        angles = x * scales
        value = float(estimate(float(angles[0]), float(angles[1]))[0])
        seen.append((value, angles))
        return value

    if training.start == "random":  # the best of a quarter of the budget's random points
        rng = check_random_state(seed)
        for _ in range(max(1, training.evaluations // 4)):
            objective(rng.uniform(0.0, 1.0, size=2))
        start = min(seen, key=lambda item: item[0])[1]
    else:
        start = np.array([closed.gamma, closed.beta])
    try:
        if len(seen) >= training.evaluations:
            raise _BudgetSpent
        result = scipy.optimize.minimize(
            objective,
            start / scales,
            method=METHODS[training.method],
            options=_options(training, start / scales, training.evaluations - len(seen)),
        )
        best = np.asarray(result.x) * scales
        value = float(result.fun)
    except _BudgetSpent:  # budget spent before the method stopped: the best estimate seen
        value, best = min(seen, key=lambda item: item[0])
    gamma, beta = float(best[0]), float(best[1])
    return TrainedAngles(
        gamma=gamma,
        beta=beta,
        energy=float(qaoa.expectation(problem, gamma, beta)),
        estimate=value,
        optimum=closed.energy,
        start=(float(start[0]), float(start[1])),
        evaluations=len(seen),
        seconds=time.perf_counter() - start_time,
    )


class _BudgetSpent(Exception):
    """Raised by the objective when the evaluation budget is spent."""


def _options(training: Training, x0: np.ndarray, budget: int) -> dict[str, object]:
    """Options of :func:`scipy.optimize.minimize` for ``training`` from ``x0``: budget and first step.

    COBYLA needs at least ``len(x0) + 2`` evaluations; below that the objective's own
    budget check stops it.
    """
    step = _FIRST_STEP[training.start]
    if training.method == "cobyla":
        return {"maxiter": max(budget, x0.size + 2), "rhobeg": step, "tol": 1e-3}
    if training.method == "nelder-mead":
        simplex = np.vstack([x0, x0 + step * np.eye(x0.size)])
        return {"maxfev": budget, "xatol": 1e-3, "fatol": 1e-4, "initial_simplex": simplex}
    return {"maxfev": budget, "xtol": 1e-3, "ftol": 1e-4, "direc": step * np.eye(x0.size)}


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
