"""Adjacency of a simple graph given as an edge list: the edges at each vertex and the triangles on each edge.

Everything is computed with whole-array numpy operations (no loop over vertices or edges in
Python), in ``O(m log m + sum_e min(deg u, deg v))`` for ``m`` edges: the closed-form QAOA energy
(:mod:`bbqmis.mis.qaoa`) needs no more of the graph than this.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

__all__ = ["Adjacency", "adjacency"]


class Adjacency(NamedTuple):
    """Edges at each vertex and common neighbours of each edge, as flat integer arrays.

    Edges are identified by their row in the edge list that built this object.

    Attributes
    ----------
    indptr : ndarray of shape (n + 1,) of int64
        The edges at vertex ``u`` are ``incident[indptr[u]:indptr[u + 1]]``.
    incident : ndarray of shape (2 m,) of int64
        Edge ids grouped by vertex, each group ordered by the neighbour across the edge.
    triangle_edge : ndarray of shape (t,) of int64
        Edge ``e = (u, v)`` of every (edge, common neighbour ``f``) pair, non-decreasing;
        a triangle appears once for each of its three edges.
    triangle_u, triangle_v : ndarrays of shape (t,) of int64
        Ids of the edges ``(u, f)`` and ``(v, f)``, with ``u = edges[e, 0]``, ``v = edges[e, 1]``.
    """

    indptr: npt.NDArray[np.int64]
    incident: npt.NDArray[np.int64]
    triangle_edge: npt.NDArray[np.int64]
    triangle_u: npt.NDArray[np.int64]
    triangle_v: npt.NDArray[np.int64]


def _ragged_arange(lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Concatenation of ``arange(k)`` for every ``k`` in ``lengths``."""
    ends = np.cumsum(lengths)
    return np.arange(ends[-1] if ends.size else 0) - np.repeat(ends - lengths, lengths)


def adjacency(edges: npt.ArrayLike, num_nodes: int) -> Adjacency:
    """Incidence lists and per-edge common neighbours of a simple undirected graph.

    Parameters
    ----------
    edges : array-like of shape (m, 2) of int
        Distinct edges ``(u, v)`` between vertices ``0 .. num_nodes - 1``, no self-loops.
    num_nodes : int
        Number of vertices ``n``.

    Returns
    -------
    Adjacency

    Examples
    --------
    >>> a = adjacency([(0, 1), (0, 2), (1, 2), (2, 3)], 4)
    >>> a.incident.tolist()  # vertex 0: edges 0, 1; vertex 1: 0, 2; vertex 2: 1, 2, 3; vertex 3: 3
    [0, 1, 0, 2, 1, 2, 3, 3]
    >>> a.triangle_edge.tolist(), a.triangle_u.tolist(), a.triangle_v.tolist()
    ([0, 1, 2], [1, 0, 0], [2, 2, 1])
    """
    pairs = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    m, n = pairs.shape[0], int(num_nodes)
    eu, ev = pairs[:, 0], pairs[:, 1]
    low, high, ids = np.minimum(eu, ev), np.maximum(eu, ev), np.arange(1, m + 1)
    key = low * n + high
    if np.any(key[1:] < key[:-1]):
        order = np.argsort(key)
        low, high, ids = low[order], high[order], ids[order]
    # CSR with sorted neighbours; data = edge id + 1, so that a missing entry reads 0. scipy
    # groups the entries by row keeping their order: listing the pairs (high, low) of the
    # sorted edges before the pairs (low, high) makes every row sorted, and saves a sort.
    graph = sp.csr_array(
        (np.concatenate((ids, ids)), (np.concatenate((high, low)), np.concatenate((low, high)))), shape=(n, n)
    )
    indptr = graph.indptr.astype(np.int64, copy=False)
    incident = graph.data.astype(np.int64, copy=False) - 1
    degree = np.diff(indptr)
    # Common neighbours: walk the lower-degree endpoint's edges and look each neighbour up in
    # the other endpoint's row (scipy searches the sorted row).
    pivot_is_u = degree[eu] <= degree[ev]
    pivot, other = np.where(pivot_is_u, eu, ev), np.where(pivot_is_u, ev, eu)
    steps = degree[pivot]
    edge = np.repeat(np.arange(m), steps)
    half = np.repeat(indptr[pivot], steps) + _ragged_arange(steps)
    closing = np.asarray(graph[other[edge], graph.indices[half]]) if half.size else half
    hit = closing > 0
    edge, pivot_side, other_side = edge[hit], incident[half[hit]], closing[hit].astype(np.int64) - 1
    on_u = pivot_is_u[edge]
    return Adjacency(
        indptr=indptr,
        incident=incident,
        triangle_edge=edge,
        triangle_u=np.where(on_u, pivot_side, other_side),
        triangle_v=np.where(on_u, other_side, pivot_side),
    )
