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
    indptr : ndarray of shape (n + 1,) of int
        The edges at vertex ``u`` are ``incident[indptr[u]:indptr[u + 1]]``. Every array is
        int32 where the sizes allow, int64 otherwise.
    incident : ndarray of shape (2 m,) of int
        Edge ids grouped by vertex, each group ordered by the neighbour across the edge.
    triangle_edge : ndarray of shape (t,) of int
        Edge ``e = (u, v)`` of every (edge, common neighbour ``f``) pair, non-decreasing;
        a triangle appears once for each of its three edges.
    triangle_u, triangle_v : ndarrays of shape (t,) of int
        Ids of the edges ``(u, f)`` and ``(v, f)``, with ``u = edges[e, 0]``, ``v = edges[e, 1]``.

    Examples
    --------
    >>> a = adjacency([(0, 1), (1, 2)], 3)  # the path 0 - 1 - 2: no triangle
    >>> u = 1
    >>> a.indptr.tolist(), a.incident[a.indptr[u] : a.indptr[u + 1]].tolist(), a.triangle_edge.size
    ([0, 1, 3, 4], [0, 1], 0)
    """

    indptr: npt.NDArray[np.integer]
    incident: npt.NDArray[np.integer]
    triangle_edge: npt.NDArray[np.integer]
    triangle_u: npt.NDArray[np.integer]
    triangle_v: npt.NDArray[np.integer]


def _ragged_arange(lengths: npt.NDArray[np.integer]) -> npt.NDArray[np.integer]:
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
    pairs = np.asarray(edges).reshape(-1, 2)
    m, n = pairs.shape[0], int(num_nodes)
    # 32-bit indices where they fit: half the memory traffic, and no fresh pages per call.
    index = np.int32 if max(n, 2 * m + 1) < 2**31 else np.int64
    eu, ev = pairs[:, 0].astype(index), pairs[:, 1].astype(index)
    low, high, ids = np.minimum(eu, ev), np.maximum(eu, ev), np.arange(1, m + 1, dtype=index)
    key = low.astype(np.int64) * n + high
    if np.any(key[1:] < key[:-1]):
        order = np.argsort(key)
        low, high, ids = low[order], high[order], ids[order]
    # CSR with sorted neighbours; data = edge id + 1, so that a missing entry reads 0. scipy
    # groups the entries by row keeping their order: listing the pairs (high, low) of the
    # sorted edges before the pairs (low, high) makes every row sorted, and saves a sort.
    graph = sp.csr_array(
        (np.concatenate((ids, ids)), (np.concatenate((high, low)), np.concatenate((low, high)))), shape=(n, n)
    )
    indptr, incident = graph.indptr.astype(index, copy=False), graph.data - 1
    degree = np.diff(indptr)
    # Common neighbours: walk the lower-degree endpoint's edges and look each neighbour up in
    # the other endpoint's row (scipy searches the sorted row).
    pivot_is_u = degree[eu] <= degree[ev]
    pivot, other = np.where(pivot_is_u, eu, ev), np.where(pivot_is_u, ev, eu)
    steps = degree[pivot]
    edge = np.repeat(np.arange(m, dtype=index), steps)
    half = np.repeat(indptr[pivot], steps) + _ragged_arange(steps).astype(index, copy=False)
    w, b = graph.indices[half], other[edge]
    distinct = w != b  # the edge itself
    edge, half, w, b = edge[distinct], half[distinct], w[distinct], b[distinct]
    closing = np.asarray(graph[b, w]) if half.size else half
    hit = closing > 0
    edge, pivot_side, other_side = edge[hit], incident[half[hit]], closing[hit] - 1
    on_u = pivot_is_u[edge]
    return Adjacency(
        indptr=indptr,
        incident=incident,
        triangle_edge=edge,
        triangle_u=np.where(on_u, pivot_side, other_side),
        triangle_v=np.where(on_u, other_side, pivot_side),
    )
