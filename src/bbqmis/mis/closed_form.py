r"""Closed-form energy of single-layer (p = 1) QAOA on an Ising problem with local fields.

:class:`ClosedForm` evaluates :math:`\langle C \rangle` for the state of
:mod:`bbqmis.mis.qaoa`, :math:`|\gamma, \beta\rangle = e^{-i\beta \sum_u X_u} e^{-i\gamma C} |+\rangle^{n}`
with :math:`C = \text{offset} + \sum_u h_u Z_u + \sum_{u<v} J_{uv} Z_u Z_v`, in closed form (Ozaeta,
van Dam and McMahon, arXiv:2012.03421), with no simulation:

.. math::

    \langle Z_u \rangle = \sin 2\beta \, \sin 2\gamma h_u \prod_{w \in N(u)} \cos 2\gamma J_{uw},

    \langle Z_u Z_v \rangle = \tfrac{1}{2}\sin 4\beta \, \sin 2\gamma J_{uv}
        \Big[\cos 2\gamma h_u \prod_{w \in N(u) \setminus v} \cos 2\gamma J_{uw}
        + \cos 2\gamma h_v \prod_{w \in N(v) \setminus u} \cos 2\gamma J_{vw}\Big]
        + \tfrac{1}{2}\sin^2 2\beta \prod_{w \in N(u) \setminus N[v]} \cos 2\gamma J_{uw}
        \prod_{w \in N(v) \setminus N[u]} \cos 2\gamma J_{vw}
        \Big[\cos 2\gamma (h_u - h_v) \prod_{f} \cos 2\gamma (J_{uf} - J_{vf})
        - \cos 2\gamma (h_u + h_v) \prod_{f} \cos 2\gamma (J_{uf} + J_{vf})\Big],

with ``f`` over the common neighbours of ``u`` and ``v``. :class:`ClosedForm` evaluates this
with whole-array numpy operations: dense ``(n, n)`` products on small graphs, and on larger ones
``O(m + triangles)`` work per ``gamma`` from the problem's adjacency (computed once and cached on
an :class:`~bbqmis.mis.problem.MISProblem`). ``beta`` enters only through ``sin 2beta``,
``sin 4beta`` and ``sin^2 2beta``, so a whole grid costs little more than its ``gamma`` values.
:func:`expectation` is the one-call form. Both need no qiskit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from backends.utils.validation import check_choice, check_finite_array

from .adjacency import Adjacency, adjacency
from .ising import IsingLike, ising_edge_list

__all__ = ["DENSE_MAX_ENTRIES", "ClosedForm", "expectation"]


#: ``method="auto"`` uses dense products while ``n * (n + 2 m)`` stays below this.
DENSE_MAX_ENTRIES = 4096


class _Segments:
    """Products over consecutive runs of columns, one run per segment (empty runs give 1).

    Parameters
    ----------
    counts : ndarray of shape (s,) of int
        Number of columns of every segment, in column order.
    """

    def __init__(self, counts: np.ndarray) -> None:
        nonempty = counts > 0
        self._starts = (np.cumsum(counts) - counts)[nonempty]
        self._present = None if nonempty.all() else np.flatnonzero(nonempty)
        self._count = counts.size

    def prod(self, values: np.ndarray) -> np.ndarray:
        """Segment products of ``values`` (shape (..., columns)), shape (..., s)."""
        if self._present is None:
            return np.multiply.reduceat(values, self._starts, axis=-1)
        out = np.ones(values.shape[:-1] + (self._count,))
        if self._starts.size:
            out[..., self._present] = np.multiply.reduceat(values, self._starts, axis=-1)
        return out


class _DenseProducts:
    """Neighbourhood products from dense ``(n, n)`` couplings: few, large operations, for small graphs.

    With ``J`` zero off the edges, ``cos 2 gamma J_uw = 1`` wherever ``w`` is no neighbour, so
    products over neighbourhoods are products over whole rows.
    """

    def __init__(self, num_nodes: int, edges: np.ndarray, couplings: np.ndarray) -> None:
        dense = np.zeros((num_nodes, num_nodes))
        dense[edges[:, 0], edges[:, 1]] = couplings
        dense += dense.T
        u_rows, v_rows = dense[edges[:, 0]], dense[edges[:, 1]]
        # Rows whose cosines multiply up: J_u. (vertices), J_u. - J_v. and J_u. + J_v. (edges).
        self._rows = np.concatenate((dense, u_rows - v_rows, u_rows + v_rows))
        self._n, self._m = num_nodes, couplings.size
        #: Temporary array entries per ``gamma``.
        self.width = self._rows.size

    def products(self, g2: np.ndarray, cos_j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Products over neighbourhoods for ``g2 = 2 gamma`` of shape (k, 1).

        Returns
        -------
        around : ndarray of shape (k, n)
            ``prod_{w in N(u)} cos 2 gamma J_uw`` for every vertex ``u``.
        minus, plus : ndarrays of shape (k, m)
            ``prod_{w != u, v} cos 2 gamma (J_uw -/+ J_vw)`` for every edge ``(u, v)``. Over all
            ``w``, ``w = u`` and ``w = v`` add ``cos^2 2 gamma J_uv``, divided out again: a
            cosine of a float is never 0, and the quotient keeps the product's relative precision.
        """
        rows = np.cos(g2[:, :, None] * self._rows).prod(-1)
        n, m, square = self._n, self._m, cos_j * cos_j
        return rows[:, :n], rows[:, n : n + m] / square, rows[:, n + m :] / square


class _SparseProducts:
    """Neighbourhood products from the graph's adjacency: ``O(m + triangles)`` work per ``gamma``."""

    def __init__(self, edges: np.ndarray, couplings: np.ndarray, adj: Adjacency) -> None:
        self._eu, self._ev = edges[:, 0], edges[:, 1]
        self._incident = adj.incident
        self._by_vertex = _Segments(np.diff(adj.indptr))
        self._triangle_u, self._triangle_v = adj.triangle_u, adj.triangle_v
        self._by_edge = _Segments(np.bincount(adj.triangle_edge, minlength=couplings.size))
        j_u, j_v = couplings[adj.triangle_u], couplings[adj.triangle_v]
        self._j_common = np.stack((j_u - j_v, j_u + j_v))
        #: Temporary array entries per ``gamma``.
        self.width = adj.incident.size + 6 * adj.triangle_edge.size

    def products(self, g2: np.ndarray, cos_j: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Products over neighbourhoods for ``g2 = 2 gamma`` of shape (k, 1), as :class:`_DenseProducts`.

        A neighbour ``w`` of ``u`` alone contributes ``cos 2 gamma J_uw`` to ``minus`` and
        ``plus``: that is ``around[u]`` with the edge itself and the common neighbours ``f``
        divided out (a cosine of a float is never 0). Common neighbours contribute
        ``cos 2 gamma (J_uf -/+ J_vf)``.
        """
        around = self._by_vertex.prod(cos_j[:, self._incident])
        both = around[:, self._eu] * around[:, self._ev] / (cos_j * cos_j)
        if not self._triangle_u.size:
            return around, both, both
        common = cos_j[:, self._triangle_u] * cos_j[:, self._triangle_v]
        terms = np.cos(g2 * self._j_common[:, None, :])
        minus, plus = self._by_edge.prod(terms) / self._by_edge.prod(common)
        return around, both * minus, both * plus


class ClosedForm:
    """Closed-form p = 1 QAOA energy of one Ising problem, prepared once, evaluated many times.

    An evaluation is a fixed number of whole-array numpy operations over the vertices and edges,
    for any number of ``gamma`` values at once; ``beta`` enters only through ``sin 2beta``,
    ``sin 4beta`` and ``sin^2 2beta``. Products over neighbourhoods come from dense ``(n, n)``
    couplings on small graphs, and on larger ones from the adjacency (incidence lists and the
    triangles on each edge), taken from the problem's ``adjacency`` when its ``edges`` are the
    ones used (an :class:`~bbqmis.mis.problem.MISProblem` computes it once and keeps it).

    Parameters
    ----------
    problem : MISProblem, object with ``ising()``, or tuple (h, J, offset)
        See :mod:`bbqmis.mis.ising`.
    method : {"auto", "dense", "sparse"}, default="auto"
        ``"dense"`` costs ``O(n (n + 2 m))`` per ``gamma`` and few operations; ``"sparse"``
        ``O(m + triangles)``. ``"auto"`` is dense while ``n (n + 2 m) <= DENSE_MAX_ENTRIES``.

    Attributes
    ----------
    method : {"dense", "sparse"}
        The products in use.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> energy = ClosedForm(MISProblem(nx.cycle_graph(5)))
    >>> round(float(energy(0.0, 0.0)), 6)  # |+>^n: every vertex with probability 1/2
    0.0
    >>> energy([0.3, 0.6], 0.2).round(6).tolist()  # one value per angle pair
    [0.776493, 1.14656]
    >>> round(float(ClosedForm(MISProblem(nx.cycle_graph(5)), method="sparse")(0.6, 0.2)), 6)
    1.14656
    """

    def __init__(self, problem: IsingLike, *, method: str = "auto") -> None:
        method = check_choice(method, "method", ("auto", "dense", "sparse"))
        h, edges, couplings, offset = ising_edge_list(problem)
        n, m = h.size, couplings.size
        if method == "auto":
            method = "dense" if n * (n + 2 * m) <= DENSE_MAX_ENTRIES else "sparse"
        self.method = method
        if method == "dense":
            self._products: _DenseProducts | _SparseProducts = _DenseProducts(n, edges, couplings)
        else:
            # The problem's own (cached) adjacency, when these are its edges (MISProblem).
            own = edges is getattr(problem, "edges", None) and hasattr(problem, "adjacency")
            adj = problem.adjacency if own else adjacency(edges, n)
            self._products = _SparseProducts(edges, couplings, adj)
        self._offset, self._h, self._J, self._edges = offset, h, couplings, edges
        # One cosine and one sine call per evaluation: 2 gamma times these.
        self._angles = np.concatenate((h, couplings))
        self._width = max(1, self._products.width + 4 * n + 6 * m)

    @property
    def scale(self) -> float:
        """Largest ``|h_u|`` or ``|J_uv|``: the fastest frequency of the energy in ``gamma``.

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis import MISProblem
        >>> ClosedForm(MISProblem(nx.path_graph(4))).scale  # J = penalty / 4
        0.5
        """
        return float(max(np.abs(self._J).max(initial=0.0), np.abs(self._h).max(initial=0.0)))

    def coefficients(
        self, gamma: npt.ArrayLike, *, chunk: int = 1 << 22
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Energy terms of ``sin 2beta``, ``sin 4beta / 2`` and ``sin^2 2beta / 2``.

        Parameters
        ----------
        gamma : array-like of shape (k,)
            Cost angles (radians).
        chunk : int
            Upper bound on the temporary array size (elements) per batch of ``gamma``
            (one ``gamma`` at a time takes ``O(n + m + triangles)`` whatever the bound).

        Returns
        -------
        a, b, c : ndarrays of shape (k,)
            ``E(gamma, beta) = offset + a sin 2beta + b sin(4beta)/2 + c sin^2(2beta)/2``.

        Raises
        ------
        InvalidParameterError
            If a ``gamma`` is not a finite number.

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis import MISProblem
        >>> a, b, c = ClosedForm(MISProblem(nx.path_graph(2))).coefficients([0.0, 0.5])
        >>> a.round(6).tolist(), b.round(6).tolist(), c.round(6).tolist()
        ([0.0, 0.0], [0.0, 0.479426], [0.0, 0.0])
        """
        flat = check_finite_array(gamma, "gamma").reshape(-1)
        step = max(1, chunk // self._width)
        if flat.size <= step:
            return self._coefficients(flat)
        parts = [self._coefficients(flat[i : i + step]) for i in range(0, flat.size, step)]
        a, b, c = (np.concatenate(column) for column in zip(*parts, strict=True))
        return a, b, c

    def _coefficients(self, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`coefficients` for finite ``gamma`` of shape (k,), in one batch."""
        n, m = self._h.size, self._J.size
        eu, ev = self._edges[:, 0], self._edges[:, 1]
        g2 = 2 * gamma.reshape(-1, 1)
        angles = g2 * self._angles
        cosines, sines = np.cos(angles), np.sin(angles)
        cos_h, cos_j, sin_h = cosines[:, :n], cosines[:, n:], sines[:, :n]
        around, minus, plus = self._products.products(g2, cos_j)
        # Sums as multiply-and-sum, not ``@``: BLAS threads gain nothing on these sizes and stall
        # when the cores are busy.
        a = (sin_h * around * self._h).sum(-1)
        if m == 0:
            return a, np.zeros_like(a), np.zeros_like(a)
        # <Z_u Z_v>, first part: cos 2 gamma h_u prod_{w in N(u) \ v} cos 2 gamma J_uw + (u <-> v),
        # with the edge's own cosine divided out of around[u] (a cosine of a float is never 0).
        ends = around * cos_h
        b = (sines[:, n:] / cos_j * (ends[:, eu] + ends[:, ev]) * self._J).sum(-1)
        # Second part: minus cos 2 gamma (h_u - h_v) - plus cos 2 gamma (h_u + h_v), expanded.
        cos_cos, sin_sin = cos_h[:, eu] * cos_h[:, ev], sin_h[:, eu] * sin_h[:, ev]
        c = (((minus - plus) * cos_cos + (minus + plus) * sin_sin) * self._J).sum(-1)
        return a, b, c

    def __call__(
        self, gamma: npt.ArrayLike, beta: npt.ArrayLike, *, chunk: int = 1 << 22
    ) -> float | np.ndarray:
        """Expected QUBO cost at broadcastable arrays of angles.

        Parameters
        ----------
        gamma, beta : float or array-like
            Angles in radians; broadcast together. The graph terms are computed once per
            entry of ``gamma``: for a grid pass ``gamma[:, None]`` and ``beta[None, :]``.
        chunk : int
            Upper bound on the temporary array size (elements) per batch of ``gamma``.

        Returns
        -------
        float, or ndarray of the broadcast shape.

        Raises
        ------
        InvalidParameterError
            If an angle is not a finite number.

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis import MISProblem
        >>> energy = ClosedForm(MISProblem(nx.path_graph(2)))
        >>> energy(np.linspace(0, 1, 3)[:, None], np.array([0.1, 0.3])).round(4).tolist()
        [[-0.5, -0.5], [-0.4067, -0.2766], [-0.3362, -0.1079]]
        """
        gamma, beta = check_finite_array(gamma, "gamma"), check_finite_array(beta, "beta")
        a, b, c = self.coefficients(gamma, chunk=chunk)
        if gamma.ndim == 0:  # numpy scalars: cheaper arithmetic than 0-d arrays
            a, b, c = a[0], b[0], c[0]
        else:
            a, b, c = a.reshape(gamma.shape), b.reshape(gamma.shape), c.reshape(gamma.shape)
        beta = beta if beta.ndim else float(beta)
        sin2 = np.sin(2 * beta)
        energy = self._offset + a * sin2 + b * np.sin(4 * beta) / 2 + c * sin2 * sin2 / 2
        return float(energy) if energy.ndim == 0 else energy


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

    Raises
    ------
    InvalidParameterError
        If an angle is not a finite number.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import MISProblem
    >>> round(expectation(MISProblem(nx.path_graph(2)), 0.0, 0.3), 12)
    -0.5
    """
    return ClosedForm(problem)(gamma, beta)
