"""Adjacency matrices of networkx graphs, built in one pass over the adjacency lists.

:func:`networkx.to_scipy_sparse_array` handles weights, multigraphs and directed graphs,
and takes about two seconds for a million edges; the colouring phases need only the 0/1
adjacency of a simple graph, which :func:`csr_adjacency` builds several times faster.
"""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx
import numpy as np
import scipy.sparse as sp

__all__ = ["csr_adjacency"]


def csr_adjacency(graph: nx.Graph, nodes: list[Hashable] | None = None) -> sp.csr_array:
    """The 0/1 adjacency matrix of a simple graph, in CSR form with sorted column indices.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected simple graph.
    nodes : list, optional
        Row and column order; default ``list(graph)``. Every vertex of ``graph`` must be
        in it (a component, not a subgraph: an edge leaving ``nodes`` raises ``KeyError``).

    Returns
    -------
    scipy.sparse.csr_array of shape (n, n), int64
        Entry ``(i, j)`` is 1 when ``nodes[i]`` and ``nodes[j]`` are adjacent, as
        ``networkx.to_scipy_sparse_array(graph, nodes, weight=None, format="csr")``.

    Examples
    --------
    >>> csr_adjacency(nx.path_graph(3)).toarray().tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    >>> csr_adjacency(nx.path_graph(3), nodes=[1, 0, 2]).toarray().tolist()
    [[0, 1, 1], [1, 0, 0], [1, 0, 0]]
    """
    order = list(graph) if nodes is None else nodes
    index = {v: i for i, v in enumerate(order)}
    n = len(order)
    degrees = np.fromiter((len(graph[v]) for v in order), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=indptr[1:])
    total = int(indptr[-1])
    indices = np.fromiter((index[w] for v in order for w in graph[v]), dtype=np.int64, count=total)
    matrix = sp.csr_array((np.ones(total, dtype=np.int64), indices, indptr), shape=(n, n))
    matrix.sort_indices()
    return matrix
