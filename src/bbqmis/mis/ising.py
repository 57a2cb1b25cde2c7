r"""Ising problems given as objects or as tuples, read into the arrays the QAOA code works on.

An Ising problem has the cost :math:`C = \text{offset} + \sum_u h_u Z_u + \sum_{u<v} J_{uv} Z_u Z_v`.
It is given either as an object with ``ising() -> (h, J, offset)``, such as
:class:`~bbqmis.mis.problem.MISProblem`, or as the tuple ``(h, J, offset)`` itself. An object
that also lists its couplings per edge (``ising_terms() -> (h, couplings, offset)`` and
``edges``, as :class:`~bbqmis.mis.problem.MISProblem` does) is read without building a
sparse matrix. Objects are recognised by these methods, not by their class, so this module
imports no problem class.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError

__all__ = ["IsingLike", "ising_matrices", "ising_edge_list"]

#: An Ising problem: an object with ``ising() -> (h, J, offset)`` such as
#: :class:`~bbqmis.mis.problem.MISProblem`, or the tuple itself.
IsingLike: TypeAlias = Any


def ising_matrices(problem: IsingLike) -> tuple[np.ndarray, sp.csr_array, float]:
    """Fields, upper-triangular couplings and offset of an Ising problem.

    Parameters
    ----------
    problem : object with ``ising()``, or tuple (h, J, offset)
        ``h`` array-like of shape (n,); ``J`` dense or sparse of shape (n, n), of which
        only the entries above the diagonal count.

    Returns
    -------
    h : ndarray of shape (n,)
    J : scipy.sparse.csr_array of shape (n, n)
        Strictly upper triangular.
    offset : float

    Raises
    ------
    InvalidParameterError
        If ``J`` is not of shape (n, n).

    Examples
    --------
    >>> h, J, offset = ising_matrices(([1.0, 0.0], [[0.0, 0.5], [0.5, 0.0]], 2))
    >>> h.tolist(), J.toarray().tolist(), offset  # the lower triangle is dropped
    ([1.0, 0.0], [[0.0, 0.5], [0.0, 0.0]], 2.0)
    >>> ising_matrices(([1.0, 0.0], [[0.5]], 0.0))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: J must have shape (2, 2), got (1, 1)
    """
    h, J, offset = problem.ising() if hasattr(problem, "ising") else problem
    h = np.asarray(h, dtype=float)
    J = sp.csr_array(sp.triu(sp.csr_array(J), k=1))
    if J.shape != (h.size, h.size):
        raise InvalidParameterError(f"J must have shape ({h.size}, {h.size}), got {J.shape}")
    return h, J, float(offset)


def ising_edge_list(problem: IsingLike) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """An Ising problem as fields, the pairs with a nonzero coupling, their couplings and the offset.

    Parameters
    ----------
    problem : object with ``ising()``, or tuple (h, J, offset)
        An object with ``ising_terms()`` and ``edges`` (such as
        :class:`~bbqmis.mis.problem.MISProblem`) is read from those directly.

    Returns
    -------
    h : ndarray of shape (n,)
    edges : ndarray of shape (m, 2) of int
        Qubit pairs ``(u, v)`` with ``u < v``.
    couplings : ndarray of shape (m,)
        ``J`` of every pair in ``edges``.
    offset : float

    Raises
    ------
    InvalidParameterError
        As :func:`ising_matrices`.

    Examples
    --------
    >>> J = [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    >>> h, edges, couplings, offset = ising_edge_list(([1.0, 0.0, 0.0], J, 0.0))
    >>> edges.tolist(), couplings.tolist()  # the pairs without coupling are left out
    ([[0, 1]], [0.5])
    """
    if hasattr(problem, "ising_terms") and hasattr(problem, "edges"):
        h, couplings, offset = problem.ising_terms()
        return h, problem.edges, couplings, offset
    h, J, offset = ising_matrices(problem)
    coo = J.tocoo()
    keep = coo.data != 0
    return h, np.stack((coo.row[keep], coo.col[keep]), axis=1).astype(np.int64), coo.data[keep], offset
