r"""Single-layer (p = 1) QAOA for Ising problems with local fields: circuit, angles and sampling.

The state is :math:`|\gamma, \beta\rangle = e^{-i\beta \sum_u X_u} e^{-i\gamma C} |+\rangle^{n}`
with :math:`C = \text{offset} + \sum_u h_u Z_u + \sum_{u<v} J_{uv} Z_u Z_v`, the Ising form
of a QUBO (:meth:`bbqmis.MISProblem.ising`). Its circuit (:func:`circuit`) is a Hadamard layer,
``RZ(2 gamma h_u)`` and ``RZZ(2 gamma J_uv)`` gates, and an ``RX(2 beta)`` mixer.

Its energy has a closed form, evaluated by :mod:`bbqmis.mis.closed_form`
(:class:`~bbqmis.mis.closed_form.ClosedForm`, :func:`~bbqmis.mis.closed_form.expectation` and
``DENSE_MAX_ENTRIES``, re-exported here); :func:`optimize` trains the angles on it, and
:func:`sample` runs the circuit on a backend. Problems are any :data:`~bbqmis.mis.ising.IsingLike`:
an object with ``ising()`` such as :class:`~bbqmis.mis.problem.MISProblem`, or a tuple
``(h, J, offset)``.

Bit order: qubit ``u`` is ``problem.nodes[u]``; counts use qiskit's order (qubit 0 is the
rightmost character).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np
import scipy.optimize
from qiskit.circuit import Parameter, QuantumCircuit

from backends.base import QuantumBackend
from backends.registry import shared_backend
from backends.utils.validation import check_finite_pair, check_positive_int

from .closed_form import DENSE_MAX_ENTRIES, ClosedForm, expectation
from .ising import IsingLike, ising_matrices

__all__ = [
    "DENSE_MAX_ENTRIES",
    "ClosedForm",
    "QAOAAngles",
    "check_angles",
    "circuit",
    "expectation",
    "optimize",
    "sample",
]


@dataclass(frozen=True)
class QAOAAngles:
    """Trained single-layer QAOA angles.

    Attributes
    ----------
    gamma, beta : float
        Cost and mixer angles (radians).
    energy : float
        Closed-form expectation of the QUBO cost at these angles.
    evaluations : int
        Closed-form evaluations spent (grid points plus optimiser calls).
    seconds : float
        Wall time of the optimisation (s).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> problem = MISProblem(nx.path_graph(3))
    >>> angles = optimize(problem)
    >>> abs(expectation(problem, angles.gamma, angles.beta) - angles.energy) < 1e-12, angles.energy < 0
    (True, True)
    """

    gamma: float
    beta: float
    energy: float
    evaluations: int
    seconds: float

    def to_json(self) -> dict:
        """Plain-dict form with the attribute names as keys.

        Examples
        --------
        >>> QAOAAngles(gamma=0.4, beta=0.2, energy=-1.5, evaluations=810, seconds=0.01).to_json()
        {'gamma': 0.4, 'beta': 0.2, 'energy': -1.5, 'evaluations': 810, 'seconds': 0.01}
        """
        return asdict(self)


def check_angles(angles: object) -> tuple[float, float]:
    """Return QAOA angles (a :class:`QAOAAngles` or a pair ``(gamma, beta)``) as two finite floats.

    Parameters
    ----------
    angles : QAOAAngles or (float, float)
        Cost and mixer angles (radians).

    Returns
    -------
    gamma, beta : float

    Raises
    ------
    InvalidParameterError
        If ``angles`` is not a pair, or an angle is not a finite number.

    Examples
    --------
    >>> check_angles((0.4, 0.2))
    (0.4, 0.2)
    >>> check_angles((0.4,))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: angles must be a pair (gamma, beta) or have attributes \
gamma and beta, got (0.4,)
    >>> check_angles((float("nan"), 0.2))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: gamma must be a finite number, got nan
    """
    return check_finite_pair(angles, "angles", ("gamma", "beta"))


def circuit(problem: IsingLike, *, measure: bool = True) -> QuantumCircuit:
    """Parametrised p = 1 QAOA circuit.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
        Anything with an ``ising()`` method, or its Ising coefficients.
    measure : bool, default=True
        Append ``measure_all`` (register ``meas``; clbit ``u`` holds qubit ``u``).

    Returns
    -------
    QuantumCircuit
        ``n`` qubits; qubit ``u`` is vertex ``u``. Zero fields and couplings get no gate. Its
        two parameters are the angles (radians), named ``"gamma"`` (cost) and ``"beta"``
        (mixer). ``circuit.parameters`` lists them in qiskit's order, by name:
        ``(beta, gamma)``; bind them by name, ``circuit.assign_parameters({"gamma": g,
        "beta": b})``. A circuit without any field or coupling (no vertex, or ``h`` and ``J``
        all zero) has no ``gamma``: bind with ``strict=False`` to cover it.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> qc = circuit(MISProblem(nx.path_graph(3)))
    >>> [p.name for p in qc.parameters]
    ['beta', 'gamma']
    >>> dict(qc.assign_parameters({"gamma": 0.4, "beta": 0.2}).count_ops())
    {'h': 3, 'rx': 3, 'measure': 3, 'rzz': 2, 'rz': 1, 'barrier': 1}
    """
    h, J, _ = ising_matrices(problem)
    n = h.size
    gamma, beta = Parameter("gamma"), Parameter("beta")
    qc = QuantumCircuit(n, name="qaoa")
    qc.h(range(n))
    for u in np.flatnonzero(h):
        qc.rz(2 * float(h[u]) * gamma, int(u))
    coo = J.tocoo()
    for u, v, value in zip(coo.row, coo.col, coo.data, strict=True):
        if value:
            qc.rzz(2 * float(value) * gamma, int(u), int(v))
    qc.rx(2 * beta, range(n))
    if measure:
        qc.measure_all()
    return qc


def _minimise_over_beta(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, betas: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Best ``beta`` for every ``gamma`` from its coefficients: the grid's best, polished by Newton.

    With ``x = 2 beta`` the energy less its offset is ``a sin x + (b / 2) sin 2x + (c / 2) sin^2 x``,
    a trigonometric polynomial whose derivatives are exact and cheap.

    Parameters
    ----------
    a, b, c : ndarrays of shape (k,)
        :meth:`~bbqmis.mis.closed_form.ClosedForm.coefficients` of ``k`` values of ``gamma``.
    betas : ndarray of shape (j,)
        Grid of ``beta`` (radians).

    Returns
    -------
    beta, value : ndarrays of shape (k,)
        The best ``beta`` and the energy there, offset excluded.
    """
    a, b, c = a[:, None], b[:, None], c[:, None]

    def value(x: np.ndarray) -> np.ndarray:
        return a * np.sin(x) + b * np.sin(2 * x) / 2 + c * np.sin(x) ** 2 / 2

    grid = value(2 * betas)
    best = grid.argmin(axis=1)
    x = 2 * betas[best][:, None]
    step = 2 * np.pi / betas.size
    for _ in range(8):
        sin_x, sin_2x, cos_2x = np.sin(x), np.sin(2 * x), np.cos(2 * x)
        slope = a * np.cos(x) + b * cos_2x + c * sin_2x / 2
        curvature = -a * sin_x - 2 * b * sin_2x + c * cos_2x
        convex = curvature > 0  # a Newton step only towards a minimum, at most one grid step
        newton = slope / np.where(convex, curvature, 1)
        move = np.where(convex, np.maximum(-step, np.minimum(step, newton)), 0)
        x = x - move
        if np.abs(move).max() < 1e-13:
            break
    polished = value(x)[:, 0]
    at_grid = grid[np.arange(best.size), best]
    better = polished < at_grid
    return np.where(better, x[:, 0] / 2, betas[best]), np.where(better, polished, at_grid)


def optimize(
    problem: IsingLike,
    *,
    grid: tuple[int, int] = (40, 20),
    gamma_max: float | None = None,
    xatol: float = 1e-10,
) -> QAOAAngles:
    """Train p = 1 angles on the closed form: a grid, then a one-dimensional search in ``gamma``.

    For every ``gamma`` the energy is a trigonometric polynomial in ``beta`` with known
    coefficients (:meth:`~bbqmis.mis.closed_form.ClosedForm.coefficients`), so the best
    ``beta`` follows from a grid and Newton steps with exact derivatives. Only ``gamma`` is
    searched: over the grid, then by Brent's bounded method
    (:func:`scipy.optimize.minimize_scalar`) between the grid neighbours of the best point.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
    grid : (int, int), default=(40, 20)
        Grid points in ``gamma`` over ``(0, gamma_max]`` and in ``beta`` over ``[0, pi)``.
        Together with ``E(-gamma, -beta) = E(gamma, beta)`` and period ``pi`` in ``beta``
        this covers every ``beta``.
    gamma_max : float, optional
        Default ``pi / max(|h|, |J|)`` (a full period for unit-weight MIS).
    xatol : float, default=1e-10
        Absolute tolerance on ``gamma`` (radians) of the bounded search.

    Returns
    -------
    QAOAAngles

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> problem = MISProblem(nx.cycle_graph(5))
    >>> angles = optimize(problem)
    >>> round(angles.energy, 4)  # the optimum, 2 vertices, has cost -2; |+>^n has 0
    -1.3774
    >>> abs(expectation(problem, angles.gamma, angles.beta) - angles.energy) < 1e-12
    True
    """
    start = time.perf_counter()
    energy = ClosedForm(problem)
    n_gamma, n_beta = (check_positive_int(k, "grid") for k in grid)
    if gamma_max is None:
        scale = energy.scale
        gamma_max = np.pi / scale if scale > 0 else np.pi
    gammas = np.linspace(0, gamma_max, n_gamma + 1)
    betas = np.linspace(0, np.pi, n_beta, endpoint=False)
    beta, value = _minimise_over_beta(*energy.coefficients(gammas[1:]), betas)
    i = int(np.argmin(value))

    def profile(gamma: float) -> float:
        return float(_minimise_over_beta(*energy.coefficients([gamma]), betas)[1][0])

    result = scipy.optimize.minimize_scalar(
        profile,
        bounds=(gammas[i], gammas[min(i + 2, n_gamma)]),
        method="bounded",
        options={"xatol": xatol},
    )
    best_gamma, best_beta = float(gammas[i + 1]), float(beta[i])
    if result.fun < value[i]:
        best_gamma = float(result.x)
        best_beta = float(_minimise_over_beta(*energy.coefficients([best_gamma]), betas)[0][0])
    return QAOAAngles(
        gamma=best_gamma,
        beta=best_beta,
        energy=float(energy(best_gamma, best_beta)),
        evaluations=int(n_gamma * n_beta + result.nfev),
        seconds=time.perf_counter() - start,
    )


def sample(
    problem: IsingLike,
    angles: QAOAAngles | tuple[float, float],
    backend: str | QuantumBackend | None = None,
    shots: int = 1024,
    seed: int | None = None,
) -> dict[str, int]:
    """Sample bitstrings from the p = 1 QAOA state.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
    angles : QAOAAngles or (gamma, beta)
    backend : None, str or backends.QuantumBackend
        ``None`` runs Aer locally (spec ``"aer"``); a string is a spec for
        :func:`backends.shared_backend` (built once per process).
    shots : int, default=1024
    seed : int, optional
        Simulator and transpiler seed.

    Returns
    -------
    dict[str, int]
        Counts keyed by ``n``-character bitstrings in qiskit order (qubit 0 rightmost).

    Raises
    ------
    InvalidParameterError
        If ``shots`` is not a positive integer or ``angles`` not a pair of finite numbers.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> problem = MISProblem(nx.path_graph(4))
    >>> counts = sample(problem, optimize(problem), shots=1000, seed=1)
    >>> sum(counts.values()), max(counts, key=counts.get)  # most frequent: vertices 0 and 3
    (1000, '1001')
    """
    shots = check_positive_int(shots, "shots")
    gamma, beta = check_angles(angles)
    bound = circuit(problem).assign_parameters({"gamma": gamma, "beta": beta}, strict=False)
    if backend is None or isinstance(backend, str):
        backend = shared_backend(backend or "aer")
    return backend.run([bound], shots=shots, seed=seed)[0]
