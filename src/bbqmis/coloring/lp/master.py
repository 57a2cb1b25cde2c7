r"""The restricted master LP of branch-and-price colouring, over a pool of independent sets.

The fractional chromatic number is the value of the set-cover LP over all independent
sets :math:`\mathcal{S}` of a graph (Mehrotra and Trick, INFORMS J. Comput. 8, 1996):

.. math::

    \chi_f(G) = \min \sum_{S \in \mathcal{S}} x_S
    \quad \text{s.t.} \quad \sum_{S \ni v} x_S \ge 1 \;\; \forall v, \qquad x \ge 0 .

The *restricted* master keeps only the columns of a :class:`ColumnPool`; its duals
``y >= 0`` price new columns (:mod:`~bbqmis.coloring.lp.pricing`). Independent sets are
stored as Python ``int`` bitsets over vertex indices ``0..n-1`` (bit ``v`` set when vertex
``v`` is in the set) and every column is extended to a *maximal* independent set:
with ``y >= 0`` a superset never has a larger reduced cost, and covers more.

The graph is held as an :class:`IndexedGraph` (node labels, boolean adjacency and
neighbour bitsets), the form the pricers share. :func:`safe_ceil` turns a real-valued
bound into an integer one without rounding ``4.0000001`` up to 5.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import networkx as nx
import numpy as np
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_nonnegative

from ..errors import SearchError

__all__ = [
    "ColumnPool",
    "GraphLike",
    "IndexedGraph",
    "MasterSolution",
    "bit_indices",
    "safe_ceil",
    "solve_master",
]

#: What the pricers and :func:`~bbqmis.coloring.lp.lp_bound.lp_bound` accept as a graph: a
#: networkx graph, a symmetric boolean adjacency matrix of shape (n, n), or an IndexedGraph.
GraphLike: TypeAlias = "nx.Graph | np.ndarray | IndexedGraph"


def safe_ceil(x: float, tol: float = 1e-6) -> int:
    """Round a real-valued lower bound up to an integer, forgiving floating-point error.

    ``ceil(x - tol)``: a value within ``tol`` above an integer is taken as that integer,
    so a bound computed as 4.0000001 proves 4 colours, not 5. Rounding down in doubt
    keeps the bound valid.

    Parameters
    ----------
    x : float
        A finite real lower bound.
    tol : float, default=1e-6
        Slack for floating-point error, >= 0.

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        If ``x`` is not finite or ``tol`` is negative.

    Examples
    --------
    >>> safe_ceil(4.0000001), safe_ceil(4.2), safe_ceil(3.9999999), safe_ceil(2.5)
    (4, 5, 4, 3)
    """
    tol = check_nonnegative(tol, "tol")
    if not math.isfinite(x):
        raise InvalidParameterError(f"x must be a finite number, got {x!r}")
    return math.ceil(x - tol)


def bit_indices(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first.

    Examples
    --------
    >>> list(bit_indices(0b10110))
    [1, 2, 4]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class IndexedGraph:
    """A graph with vertices ``0..n-1``: labels, boolean adjacency and neighbour bitsets.

    Parameters
    ----------
    adjacency : ndarray of shape (n, n)
        Symmetric 0/1 or boolean matrix with a zero diagonal.
    nodes : sequence of hashable, optional
        Label of each index (default ``0..n-1``).

    Attributes
    ----------
    nodes : tuple
        ``nodes[v]`` is the label of index ``v``.
    adjacency : ndarray of shape (n, n), dtype bool
    neighbors : tuple of int
        ``neighbors[v]`` is the bitset of the neighbours of ``v``.
    degree : ndarray of shape (n,), dtype int64
    sparse : scipy.sparse.csr_array of shape (n, n), dtype float
        The adjacency as a sparse matrix (for weighted neighbourhood sums).

    Raises
    ------
    InvalidParameterError
        If ``adjacency`` is not square and symmetric, has a self-loop, or ``nodes`` has
        the wrong length or repeats a label.

    Examples
    --------
    >>> g = IndexedGraph.from_graph(nx.path_graph(3))
    >>> g.n, g.neighbors, g.extend(0b001)
    (3, (2, 5, 2), 5)
    """

    def __init__(self, adjacency: np.ndarray, nodes: Sequence[Hashable] | None = None) -> None:
        adj = np.asarray(adjacency)
        if adj.ndim != 2 or adj.shape[0] != adj.shape[1]:
            raise InvalidParameterError(f"adjacency must be a square matrix, got shape {adj.shape}")
        adj = adj.astype(bool)
        if not np.array_equal(adj, adj.T):
            raise InvalidParameterError("adjacency must be symmetric (an undirected graph)")
        if adj.diagonal().any():
            v = int(np.flatnonzero(adj.diagonal())[0])
            raise InvalidParameterError(
                f"adjacency has a self-loop at {v}: the graph has no proper colouring"
            )
        n = len(adj)
        labels = tuple(range(n)) if nodes is None else tuple(nodes)
        if len(labels) != n or len(set(labels)) != n:
            raise InvalidParameterError(f"nodes must be {n} distinct labels, got {len(set(labels))} distinct")
        self.nodes = labels
        self.index = {label: v for v, label in enumerate(labels)}
        self.adjacency = adj
        self.adjacency.setflags(write=False)
        self.degree = adj.sum(1).astype(np.int64)
        self.neighbors = tuple(sum(1 << int(u) for u in np.flatnonzero(row)) for row in adj)
        self.full = (1 << n) - 1
        self.sparse = sp.csr_array(adj.astype(float))
        # Unweighted extension order: smallest degree first (larger maximal sets).
        self._order = np.argsort(self.degree, kind="stable")

    @classmethod
    def from_graph(cls, graph: nx.Graph) -> IndexedGraph:
        """The graph ``graph`` with its nodes indexed in ``graph.nodes`` order.

        Raises
        ------
        InvalidParameterError
            If ``graph`` is directed, a multigraph, or has a self-loop.

        Examples
        --------
        >>> g = IndexedGraph.from_graph(nx.Graph([("a", "b"), ("b", "c")]))
        >>> g.nodes, g.degree.tolist()
        (('a', 'b', 'c'), [1, 2, 1])
        """
        if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
            raise InvalidParameterError(f"graph must be an undirected simple networkx.Graph, got {graph!r}")
        nodes = list(graph.nodes)
        return cls(nx.to_numpy_array(graph, nodelist=nodes, dtype=bool, weight=None), nodes)

    @classmethod
    def coerce(cls, graph: GraphLike) -> IndexedGraph:
        """An IndexedGraph as is, a networkx graph or an adjacency matrix converted.

        Examples
        --------
        >>> g = IndexedGraph.coerce(np.array([[0, 1], [1, 0]]))
        >>> g, IndexedGraph.coerce(g) is g
        (IndexedGraph(n=2, edges=1), True)
        """
        if isinstance(graph, IndexedGraph):
            return graph
        if isinstance(graph, nx.Graph):
            return cls.from_graph(graph)
        if isinstance(graph, np.ndarray):
            return cls(graph)
        raise InvalidParameterError(
            f"graph must be a networkx.Graph, an adjacency ndarray or an IndexedGraph, got {graph!r}"
        )

    @property
    def n(self) -> int:
        """Number of vertices."""
        return len(self.nodes)

    def __repr__(self) -> str:
        return f"IndexedGraph(n={self.n}, edges={int(self.degree.sum()) // 2})"

    def to_networkx(self, indices: Sequence[int] | np.ndarray | None = None) -> nx.Graph:
        """The subgraph induced by ``indices`` (default all), with integer nodes in that order.

        Examples
        --------
        >>> g = IndexedGraph.from_graph(nx.cycle_graph(5))
        >>> sorted(g.to_networkx([0, 1, 3]).edges)
        [(0, 1)]
        """
        chosen = np.arange(self.n) if indices is None else np.asarray(indices, dtype=np.int64)
        graph = nx.Graph()
        graph.add_nodes_from(chosen.tolist())
        rows, cols = np.nonzero(np.triu(self.adjacency[np.ix_(chosen, chosen)], 1))
        graph.add_edges_from(zip(chosen[rows].tolist(), chosen[cols].tolist(), strict=True))
        return graph

    def mask(self, nodes: Iterable[Hashable]) -> int:
        """Bitset of the labels ``nodes``; labels not in the graph are ignored.

        Examples
        --------
        >>> g = IndexedGraph.from_graph(nx.Graph([("a", "b"), ("b", "c")]))
        >>> bin(g.mask(["a", "c", "z"]))
        '0b101'
        """
        index = self.index
        return sum({1 << index[v] for v in nodes if v in index})

    def labels(self, mask: int) -> frozenset:
        """The labels selected by the bitset ``mask``.

        Examples
        --------
        >>> g = IndexedGraph.from_graph(nx.Graph([("a", "b"), ("b", "c")]))
        >>> sorted(g.labels(0b101))
        ['a', 'c']
        """
        return frozenset(self.nodes[v] for v in bit_indices(mask))

    def is_independent(self, mask: int) -> bool:
        """Whether no two vertices of ``mask`` are adjacent.

        Examples
        --------
        >>> g = IndexedGraph.from_graph(nx.path_graph(3))
        >>> g.is_independent(0b101), g.is_independent(0b011)
        (True, False)
        """
        return all(not self.neighbors[v] & mask for v in bit_indices(mask))

    def extend(self, mask: int, weights: np.ndarray | None = None) -> int:
        """Extend the independent set ``mask`` to a maximal one.

        Vertices are added greedily: the heaviest first when ``weights`` of shape (n,)
        are given (ties: smaller degree), otherwise the smallest degree first.

        Examples
        --------
        >>> g = IndexedGraph.from_graph(nx.star_graph(3))
        >>> bin(g.extend(0b0010)), bin(g.extend(0, weights=np.array([5.0, 1, 1, 1])))
        ('0b1110', '0b1')
        """
        blocked = mask
        for v in bit_indices(mask):
            blocked |= self.neighbors[v]
        free = self.full & ~blocked
        if not free:
            return mask
        order = self._order if weights is None else np.lexsort((self.degree, -np.asarray(weights)))
        for v in order.tolist():
            if free >> v & 1:
                mask |= 1 << v
                free &= ~(self.neighbors[v] | (1 << v))
                if not free:
                    break
        return mask


class ColumnPool:
    """Deduplicated maximal independent sets of one graph: the columns of the master LP.

    Parameters
    ----------
    graph : networkx.Graph, ndarray of shape (n, n) or IndexedGraph
        The graph (converted with :meth:`IndexedGraph.coerce`).
    sets : iterable of iterables of node labels, optional
        Initial columns, as for :meth:`add`.

    Attributes
    ----------
    graph : IndexedGraph
    masks : list of int
        The columns as bitsets, in insertion order; each one a maximal independent set.

    Examples
    --------
    >>> pool = ColumnPool(nx.cycle_graph(5))
    >>> pool.add([{0}, {0, 2}, {1, 3}]), len(pool), pool.add([{3, 1}])
    (2, 2, 0)
    >>> sorted(map(sorted, pool.sets()))
    [[0, 2], [1, 3]]
    """

    def __init__(self, graph: GraphLike, sets: Iterable[Iterable[Hashable]] = ()) -> None:
        self.graph = IndexedGraph.coerce(graph)
        self.masks: list[int] = []
        self._members: list[np.ndarray] = []
        self._seen: set[int] = set()
        self.add(sets)

    def __len__(self) -> int:
        return len(self.masks)

    def __repr__(self) -> str:
        return f"ColumnPool(n={self.graph.n}, columns={len(self)})"

    def __contains__(self, mask: object) -> bool:
        return mask in self._seen

    def add_masks(self, masks: Iterable[int], weights: np.ndarray | None = None) -> int:
        """Add bitset columns, each extended to a maximal independent set first.

        Parameters
        ----------
        masks : iterable of int
            Independent sets as bitsets over ``0..n-1``.
        weights : ndarray of shape (n,), optional
            Extension order, heaviest first (see :meth:`IndexedGraph.extend`).

        Returns
        -------
        int
            How many columns were new.

        Raises
        ------
        InvalidParameterError
            If a set is not independent, or has bits outside ``0..n-1``.

        Examples
        --------
        >>> pool = ColumnPool(nx.path_graph(4))
        >>> pool.add_masks([0b0001, 0b1001]), [bin(mask) for mask in pool.masks]
        (1, ['0b1001'])
        >>> pool.add_masks([0b0011])
        Traceback (most recent call last):
        ...
        backends.utils.errors.InvalidParameterError: sets must be independent; [0, 1] contains an edge
        """
        added = 0
        for mask in masks:
            mask = int(mask)
            if mask < 0 or mask & ~self.graph.full:
                raise InvalidParameterError(f"masks must be bitsets over 0..{self.graph.n - 1}, got {mask}")
            if not self.graph.is_independent(mask):
                raise InvalidParameterError(
                    f"sets must be independent; {sorted(self.graph.labels(mask), key=str)} contains an edge"
                )
            mask = self.graph.extend(mask, weights)
            if mask in self._seen:
                continue
            self._seen.add(mask)
            self.masks.append(mask)
            self._members.append(np.fromiter(bit_indices(mask), dtype=np.int64))
            added += 1
        return added

    def add(self, sets: Iterable[Iterable[Hashable]], weights: np.ndarray | None = None) -> int:
        """Add independent sets given by node labels; labels outside the graph are dropped.

        A set sampled on a residual subgraph (or a column of a supergraph's pool) thus
        becomes a column of this graph. Each set is extended to a maximal independent set.

        Parameters
        ----------
        sets : iterable of iterables of node labels
        weights : ndarray of shape (n,), optional
            Extension order, heaviest first.

        Returns
        -------
        int
            How many columns were new.

        Raises
        ------
        InvalidParameterError
            If a set is not independent in this graph.

        Examples
        --------
        >>> pool = ColumnPool(nx.path_graph(4))
        >>> pool.add([{1}, {0, 2, "not a node"}])
        2
        >>> sorted(map(sorted, pool.sets()))
        [[0, 2], [1, 3]]
        """
        return self.add_masks((self.graph.mask(s) for s in sets), weights)

    def cover(self) -> int:
        """Add a column through every vertex that no column covers yet (the LP is then feasible).

        Returns
        -------
        int
            How many columns were new.

        Examples
        --------
        >>> pool = ColumnPool(nx.complete_graph(3), sets=[{0}])
        >>> pool.cover(), sorted(map(sorted, pool.sets()))
        (2, [[0], [1], [2]])
        """
        covered = 0
        for mask in self.masks:
            covered |= mask
        added = 0
        for v in range(self.graph.n):
            if not covered >> v & 1:
                added += self.add_masks([1 << v])
                covered |= self.masks[-1]
        return added

    def sets(self) -> list[frozenset]:
        """The columns as frozensets of node labels.

        Examples
        --------
        >>> pool = ColumnPool(nx.Graph([("a", "b"), ("b", "c")]), sets=[{"a"}])
        >>> [sorted(s) for s in pool.sets()]
        [['a', 'c']]
        """
        return [self.graph.labels(mask) for mask in self.masks]

    def matrix(self) -> sp.csc_array:
        """Vertex-column incidence matrix.

        Returns
        -------
        scipy.sparse.csc_array of shape (n, m), dtype float
            Entry ``(v, j)`` is 1 when vertex ``v`` is in column ``j``.

        Examples
        --------
        >>> pool = ColumnPool(nx.path_graph(3), sets=[{0, 2}, {1}])
        >>> pool.matrix().toarray()
        array([[1., 0.],
               [0., 1.],
               [1., 0.]])
        """
        m = len(self.masks)
        lengths = np.array([len(members) for members in self._members], dtype=np.int64)
        indptr = np.concatenate(([0], np.cumsum(lengths)))
        indices = np.concatenate(self._members) if m else np.zeros(0, np.int64)
        return sp.csc_array((np.ones(len(indices)), indices, indptr), shape=(self.graph.n, m))

    def weights(self, duals: np.ndarray) -> np.ndarray:
        """Weight ``sum_{v in S} y_v`` of every column.

        Parameters
        ----------
        duals : ndarray of shape (n,)

        Returns
        -------
        ndarray of shape (m,)

        Examples
        --------
        >>> pool = ColumnPool(nx.path_graph(3), sets=[{0, 2}, {1}])
        >>> pool.weights(np.array([0.5, 0.75, 0.25]))
        array([0.75, 0.75])
        """
        return np.array([float(np.asarray(duals)[members].sum()) for members in self._members])


@dataclass(frozen=True)
class MasterSolution:
    """Optimum of the restricted master LP.

    Attributes
    ----------
    value : float
        ``sum x_S`` at the optimum.
    x : ndarray of shape (m,)
        Primal values, one per column of the pool.
    duals : ndarray of shape (n,)
        Covering-constraint duals ``y_v >= 0`` (tiny negative values clipped to 0);
        ``sum(duals)`` equals ``value`` up to solver tolerance.
    seconds : float
        HiGHS wall time.

    Examples
    --------
    >>> solution = solve_master(ColumnPool(nx.cycle_graph(5), sets=[{0, 2}, {1, 3}, {2, 4}, {3, 0}, {4, 1}]))
    >>> round(solution.value, 6), solution.x.round(6).tolist()
    (2.5, [0.5, 0.5, 0.5, 0.5, 0.5])
    """

    value: float
    x: np.ndarray
    duals: np.ndarray
    seconds: float


def solve_master(pool: ColumnPool) -> MasterSolution:
    """Solve ``min sum x_S s.t. sum_{S ∋ v} x_S >= 1, x >= 0`` over the pool with HiGHS.

    Parameters
    ----------
    pool : ColumnPool
        Must cover every vertex (:meth:`ColumnPool.cover`).

    Returns
    -------
    MasterSolution

    Raises
    ------
    InvalidParameterError
        If a vertex is in no column (the LP would be infeasible).
    SearchError
        If HiGHS does not return an optimum.

    Examples
    --------
    >>> pool = ColumnPool(nx.cycle_graph(5), [{0, 2}, {1, 3}, {2, 4}, {3, 0}, {4, 1}])
    >>> solution = solve_master(pool)
    >>> round(solution.value, 6), solution.duals.round(6).tolist()
    (2.5, [0.5, 0.5, 0.5, 0.5, 0.5])
    """
    n = pool.graph.n
    if n == 0:
        return MasterSolution(0.0, np.zeros(len(pool)), np.zeros(0), 0.0)
    a = pool.matrix()
    uncovered = np.flatnonzero(a.sum(axis=1) == 0)
    if len(uncovered):
        raise InvalidParameterError(
            f"pool covers no column through node {pool.graph.nodes[int(uncovered[0])]!r}; call cover() first"
        )
    from scipy.optimize import linprog  # HiGHS: imported by runs that solve an LP, not at start-up

    start = time.perf_counter()
    result = linprog(
        np.ones(a.shape[1]),
        A_ub=-a.tocsr(),
        b_ub=-np.ones(n),
        bounds=(0, None),
        method="highs",
    )
    seconds = time.perf_counter() - start
    if result.status != 0:
        raise SearchError(f"HiGHS failed on the master LP: {result.message}")
    # A_ub x <= b_ub with A_ub = -A: the marginals d(value)/d(b_ub) are <= 0; y = -marginals.
    duals = np.clip(-np.asarray(result.ineqlin.marginals, dtype=float), 0.0, None)
    return MasterSolution(float(result.fun), np.asarray(result.x, dtype=float), duals, seconds)
