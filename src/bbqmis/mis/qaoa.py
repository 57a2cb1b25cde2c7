r"""Single-layer (p = 1) QAOA for Ising problems with local fields.

The state is :math:`|\gamma, \beta\rangle = e^{-i\beta \sum_u X_u} e^{-i\gamma C} |+\rangle^{n}`
with :math:`C = \text{offset} + \sum_u h_u Z_u + \sum_{u<v} J_{uv} Z_u Z_v`, the Ising form
of a QUBO (:meth:`bbqmis.MISProblem.ising`). Its circuit is a Hadamard layer, ``RZ(2 gamma h_u)``
and ``RZZ(2 gamma J_uv)`` gates, and an ``RX(2 beta)`` mixer.

:func:`expectation` evaluates :math:`\langle C \rangle` in closed form (Ozaeta, van Dam and
McMahon, arXiv:2012.03421), with no simulation:

.. math::

    \langle Z_u \rangle = \sin 2\beta \, \sin 2\gamma h_u \prod_{w \in N(u)} \cos 2\gamma J_{uw},

    \langle Z_u Z_v \rangle = \tfrac{1}{2}\sin 4\beta \, \sin 2\gamma J_{uv}
        \Big[\cos 2\gamma h_u \prod_{w \in N(u) \setminus v} \cos 2\gamma J_{uw}
        + \cos 2\gamma h_v \prod_{w \in N(v) \setminus u} \cos 2\gamma J_{vw}\Big]
        + \tfrac{1}{2}\sin^2 2\beta \prod_{w \in N(u) \setminus N[v]} \cos 2\gamma J_{uw}
        \prod_{w \in N(v) \setminus N[u]} \cos 2\gamma J_{vw}
        \Big[\cos 2\gamma (h_u - h_v) \prod_{f} \cos 2\gamma (J_{uf} - J_{vf})
        - \cos 2\gamma (h_u + h_v) \prod_{f} \cos 2\gamma (J_{uf} + J_{vf})\Big],

with ``f`` over the common neighbours of ``u`` and ``v``. The cost is O(sum of squared
degrees) per distinct ``gamma``; ``beta`` enters only through ``sin 2beta``, ``sin 4beta`` and
``sin^2 2beta``, so a whole grid costs little more than its distinct ``gamma`` values.

Bit order: qubit ``u`` is ``problem.nodes[u]``; counts use qiskit's order (qubit 0 is the
rightmost character).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import scipy.optimize
import scipy.sparse as sp
from qiskit.circuit import Parameter, QuantumCircuit

from backends.base import QuantumBackend
from backends.errors import InvalidParameterError
from backends.registry import shared_backend
from backends.validation import check_positive_int

__all__ = ["QAOAAngles", "circuit", "expectation", "optimize", "sample", "ClosedForm"]

#: An Ising problem: an object with ``ising() -> (h, J, offset)`` such as :class:`MISProblem`, or the
#: tuple itself.
IsingLike: TypeAlias = Any


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
    """

    gamma: float
    beta: float
    energy: float
    evaluations: int
    seconds: float

    def to_json(self) -> dict:
        """Plain-dict form with the attribute names as keys."""
        return asdict(self)


def _ising(problem: IsingLike) -> tuple[np.ndarray, sp.csr_array, float]:
    """(h, J upper triangular, offset) from a problem with ``.ising()`` or a tuple."""
    h, J, offset = problem.ising() if hasattr(problem, "ising") else problem
    h = np.asarray(h, dtype=float)
    J = sp.csr_array(sp.triu(sp.csr_array(J), k=1))
    if J.shape != (h.size, h.size):
        raise InvalidParameterError(f"J must have shape ({h.size}, {h.size}), got {J.shape}")
    return h, J, float(offset)


def circuit(
    problem: IsingLike, *, measure: bool = True
) -> tuple[QuantumCircuit, tuple[Parameter, Parameter]]:
    """Parametrised p = 1 QAOA circuit.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
        Anything with an ``ising()`` method, or its Ising coefficients.
    measure : bool, default=True
        Append ``measure_all`` (register ``meas``; clbit ``u`` holds qubit ``u``).

    Returns
    -------
    circuit : QuantumCircuit
        ``n`` qubits; qubit ``u`` is vertex ``u``. Zero fields and couplings get no gate.
    parameters : (Parameter, Parameter)
        ``(gamma, beta)``; bind with ``circuit.assign_parameters({gamma: g, beta: b})``.
    """
    h, J, _ = _ising(problem)
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
    return qc, (gamma, beta)


def _segment_prod(values: np.ndarray, segments: np.ndarray, count: int) -> np.ndarray:
    """Products of ``values[..., k]`` grouped by sorted segment ids; empty segments give 1."""
    out = np.ones(values.shape[:-1] + (count,))
    if segments.size:
        starts = np.flatnonzero(np.r_[True, segments[1:] != segments[:-1]])
        out[..., segments[starts]] = np.multiply.reduceat(values, starts, axis=-1)
    return out


class ClosedForm:
    """Closed-form p = 1 QAOA energy of one Ising problem, prepared once, evaluated many times.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> energy = ClosedForm(MISProblem(nx.cycle_graph(5)))
    >>> round(float(energy(0.0, 0.0)), 6)  # |+>^n: every vertex with probability 1/2
    0.0
    """

    def __init__(self, problem: IsingLike) -> None:
        h, J, offset = _ising(problem)
        n = h.size
        coo = J.tocoo()
        keep = coo.data != 0
        eu, ev, ej = coo.row[keep].astype(np.int64), coo.col[keep].astype(np.int64), coo.data[keep]
        order = np.lexsort((ev, eu))
        eu, ev, ej = eu[order], ev[order], ej[order]
        # Directed half-edges sorted by (source, target): the CSR layout of the symmetric J.
        src, dst = np.r_[eu, ev], np.r_[ev, eu]
        order = np.lexsort((dst, src))
        src, dst, hj = src[order], dst[order], np.r_[ej, ej][order]
        indptr = np.r_[0, np.cumsum(np.bincount(src, minlength=n))]
        keys = src * n + dst

        def around(centre: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, ...]:
            """Half-edges (centre, w), w != other, for every edge, split by w's adjacency to other."""
            degree = indptr[centre + 1] - indptr[centre]
            edge = np.repeat(np.arange(eu.size), degree)
            half = np.repeat(indptr[centre], degree) + _ragged_arange(degree)
            w = dst[half]
            mask = w != other[edge]
            edge, half, w = edge[mask], half[mask], w[mask]
            partner_key = other[edge] * n + w
            pos = np.minimum(np.searchsorted(keys, partner_key), keys.size - 1)
            common = keys[pos] == partner_key if keys.size else np.zeros(0, bool)
            return edge, half, common, pos

        edge_u, half_u, common_u, partner_u = around(eu, ev)
        edge_v, half_v, common_v, _ = around(ev, eu)
        self._n, self._offset, self._h = n, offset, h
        self._src, self._hj = src, hj
        self._eu, self._ev, self._ej = eu, ev, ej
        self._only_u = (edge_u[~common_u], half_u[~common_u])
        self._only_v = (edge_v[~common_v], half_v[~common_v])
        # Common neighbours f of edge (u, v): half-edges (u, f) and (v, f), same order.
        self._common = (edge_u[common_u], half_u[common_u], partner_u[common_u])

    def coefficients(self, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Energy terms of ``sin 2beta``, ``sin 4beta / 2`` and ``sin^2 2beta / 2``.

        Parameters
        ----------
        gamma : ndarray of shape (k,)

        Returns
        -------
        a, b, c : ndarrays of shape (k,)
            ``E(gamma, beta) = offset + a sin 2beta + b sin(4beta)/2 + c sin^2(2beta)/2``.
        """
        g = np.asarray(gamma, dtype=float)[:, None]
        m, n = self._eu.size, self._n
        cos_half = np.cos(2 * g * self._hj)
        node = _segment_prod(cos_half, self._src, n)
        a = (self._h * np.sin(2 * g * self._h) * node).sum(-1)
        if m == 0:
            return a, np.zeros_like(a), np.zeros_like(a)
        only_u = _segment_prod(cos_half[:, self._only_u[1]], self._only_u[0], m)
        only_v = _segment_prod(cos_half[:, self._only_v[1]], self._only_v[0], m)
        edge, half_u, half_v = self._common
        common_u = _segment_prod(cos_half[:, half_u], edge, m)
        common_v = _segment_prod(cos_half[:, half_v], edge, m)
        j_plus, j_minus = self._hj[half_u] + self._hj[half_v], self._hj[half_u] - self._hj[half_v]
        plus = _segment_prod(np.cos(2 * g * j_plus), edge, m)
        minus = _segment_prod(np.cos(2 * g * j_minus), edge, m)
        hu, hv = self._h[self._eu], self._h[self._ev]
        first = np.sin(2 * g * self._ej) * (
            np.cos(2 * g * hu) * only_u * common_u + np.cos(2 * g * hv) * only_v * common_v
        )
        second = only_u * only_v * (np.cos(2 * g * (hu - hv)) * minus - np.cos(2 * g * (hu + hv)) * plus)
        return a, (self._ej * first).sum(-1), (self._ej * second).sum(-1)

    def __call__(
        self, gamma: npt.ArrayLike, beta: npt.ArrayLike, *, chunk: int = 1 << 22
    ) -> float | np.ndarray:
        """Expected QUBO cost at broadcastable arrays of angles.

        Parameters
        ----------
        gamma, beta : float or array-like
            Angles in radians; broadcast together.
        chunk : int
            Upper bound on the temporary array size (elements) per batch of ``gamma``.

        Returns
        -------
        float, or ndarray of the broadcast shape.
        """
        gamma, beta = np.broadcast_arrays(np.asarray(gamma, float), np.asarray(beta, float))
        distinct, inverse = np.unique(gamma, return_inverse=True)
        width = max(
            1, 2 * self._eu.size + self._only_u[0].size + self._only_v[0].size + 4 * self._common[0].size
        )
        step = max(1, chunk // width)
        parts = [self.coefficients(distinct[i : i + step]) for i in range(0, distinct.size, step)]
        a, b, c = (
            np.concatenate(column)[inverse.reshape(gamma.shape)] for column in zip(*parts, strict=True)
        )
        energy = (
            self._offset + a * np.sin(2 * beta) + b * np.sin(4 * beta) / 2 + c * np.sin(2 * beta) ** 2 / 2
        )
        return float(energy) if energy.ndim == 0 else energy


def _ragged_arange(lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(l)`` for every ``l`` in ``lengths``."""
    total = int(lengths.sum())
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(total) - starts


def expectation(problem: IsingLike, gamma: npt.ArrayLike, beta: npt.ArrayLike) -> float | np.ndarray:
    """Closed-form expectation of the QUBO cost for p = 1 QAOA.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
    gamma, beta : float or array-like
        Angles in radians, broadcast together.

    Returns
    -------
    float, or ndarray of the broadcast shape
        ``<gamma, beta| f |gamma, beta>`` including the constant offset.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> round(expectation(MISProblem(nx.path_graph(2)), 0.0, 0.3), 12)
    -0.5
    """
    return ClosedForm(problem)(gamma, beta)


def optimize(
    problem: IsingLike,
    *,
    grid: tuple[int, int] = (40, 20),
    gamma_max: float | None = None,
    method: str = "L-BFGS-B",
) -> QAOAAngles:
    """Train p = 1 angles on the closed form: a coarse grid, then scipy's minimiser.

    Parameters
    ----------
    problem : MISProblem or tuple (h, J, offset)
    grid : (int, int), default=(40, 20)
        Grid points in ``gamma`` over ``[0, gamma_max]`` and in ``beta`` over ``[0, pi)``.
        Together with ``E(-gamma, -beta) = E(gamma, beta)`` and period ``pi`` in ``beta``
        this covers every ``beta``.
    gamma_max : float, optional
        Default ``pi / max|J|`` (a full period for unit-weight MIS).
    method : str, default="L-BFGS-B"
        Any bounded method of :func:`scipy.optimize.minimize`.

    Returns
    -------
    QAOAAngles
    """
    start = time.perf_counter()
    energy = ClosedForm(problem)
    n_gamma, n_beta = (check_positive_int(k, "grid") for k in grid)
    if gamma_max is None:
        scale = max(np.abs(energy._ej).max(initial=0.0), np.abs(energy._h).max(initial=0.0))
        gamma_max = np.pi / scale if scale > 0 else np.pi
    gammas = np.linspace(0, gamma_max, n_gamma + 1)[1:]
    betas = np.linspace(0, np.pi, n_beta, endpoint=False)
    values = np.asarray(energy(gammas[:, None], betas[None, :]))
    i, j = np.unravel_index(np.argmin(values), values.shape)
    result = scipy.optimize.minimize(
        lambda x: float(energy(x[0], x[1])),
        x0=[gammas[i], betas[j]],
        method=method,
        bounds=[(0.0, gamma_max), (-np.pi, 2 * np.pi)],
    )
    best = (float(result.x[0]), float(result.x[1]), float(result.fun))
    if values[i, j] < best[2]:
        best = (float(gammas[i]), float(betas[j]), float(values[i, j]))
    return QAOAAngles(
        gamma=best[0],
        beta=best[1],
        energy=best[2],
        evaluations=int(values.size + result.nfev),
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
    """
    shots = check_positive_int(shots, "shots")
    if isinstance(angles, QAOAAngles):
        angles = (angles.gamma, angles.beta)
    qc, (gamma, beta) = circuit(problem)
    bound = qc.assign_parameters({gamma: float(angles[0]), beta: float(angles[1])})
    if backend is None or isinstance(backend, str):
        backend = shared_backend(backend or "aer")
    return backend.run([bound], shots=shots, seed=seed)[0]
