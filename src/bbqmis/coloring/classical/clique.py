"""Maximum clique by branch-and-bound with a colouring bound, interruptible by a deadline.

The clique number is the lower bound that every colouring solver starts from. This is the
MCQ algorithm of Tomita and Seki (DMTCS 2003) with the initial ordering of MCS (Tomita,
Sutani, Higashi, Takahashi and Wakatsuki, WALCOM 2010): candidates are coloured greedily,
and a branch is pruned when its clique plus the colours of its candidates cannot beat the
best clique. Vertex sets are Python integers used as bitsets, so a set operation costs one
machine word per 64 vertices.

Any clique found is a valid lower bound, so a search stopped by its deadline still returns
the best clique so far, with ``optimal=False``.

One bitset per vertex over all ``n`` vertices takes up to ``n^2 / 8`` bytes, so
:func:`graph_clique` searches graphs of more than :data:`MAX_BITSET_NODES` vertices one
neighbourhood at a time: a clique lies in the neighbourhood of its vertex of lowest
degree, among the neighbours of higher degree, and a vertex has at most ``sqrt(2m)``
of those (Chiba and Nishizeki, SIAM J. Comput. 1985), so each search is small.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass

import networkx as nx
import numpy as np

from backends.utils.validation import check_positive_int

__all__ = ["MAX_BITSET_NODES", "CliqueResult", "adjacency_bitsets", "graph_clique", "max_clique"]

#: Largest graph searched with one bitset per vertex over all vertices (at most 50 MB).
MAX_BITSET_NODES = 20_000


@dataclass(frozen=True)
class CliqueResult:
    """Outcome of :func:`max_clique`.

    Attributes
    ----------
    clique : tuple of int
        Vertex indices of the largest clique found.
    optimal : bool
        True when the search finished, so ``clique`` is a maximum clique.
    nodes : int
        Branch-and-bound nodes explored.

    Examples
    --------
    >>> result = max_clique(adjacency_bitsets(nx.wheel_graph(5)))
    >>> result.clique, result.size, result.optimal
    ((0, 1, 2), 3, True)
    """

    clique: tuple[int, ...]
    optimal: bool
    nodes: int

    @property
    def size(self) -> int:
        """Vertices in the clique."""
        return len(self.clique)


def adjacency_bitsets(graph: nx.Graph, nodes: list | None = None) -> list[int]:
    """Neighbourhoods as bitsets: bit ``j`` of entry ``i`` is set when ``nodes[i] ~ nodes[j]``.

    Parameters
    ----------
    graph : networkx.Graph
    nodes : list, optional
        Vertex order; default ``list(graph)``.

    Returns
    -------
    list of int, length n

    Examples
    --------
    >>> [bin(bits) for bits in adjacency_bitsets(nx.path_graph(3))]
    ['0b10', '0b101', '0b10']
    >>> [bin(bits) for bits in adjacency_bitsets(nx.path_graph(3), nodes=[1, 0, 2])]
    ['0b110', '0b1', '0b1']
    """
    order = list(graph) if nodes is None else nodes
    index = {v: i for i, v in enumerate(order)}
    row = np.zeros(len(order), dtype=bool)  # one row at a time: n bytes, not n^2
    bits = []
    for v in order:
        columns = [index[w] for w in graph[v] if w in index]
        row[columns] = True
        bits.append(int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little"))
        row[columns] = False
    return bits


def _colour_bound(candidates: int, order: list[int], neighbours: list[int]) -> list[tuple[int, int]]:
    """Greedy colouring of ``candidates`` in ``order``: ``(vertex, colour number)`` by increasing colour."""
    result: list[tuple[int, int]] = []
    uncoloured = candidates
    colour = 0
    while uncoloured:
        colour += 1
        available = uncoloured
        for v in order:
            if available >> v & 1:
                available &= ~neighbours[v]
                uncoloured &= ~(1 << v)
                result.append((v, colour))
    return result


def max_clique(
    neighbours: list[int],
    *,
    lower: int = 0,
    deadline: float | None = None,
    node_limit: int | None = None,
) -> CliqueResult:
    """A maximum clique of the graph with these neighbourhood bitsets.

    Parameters
    ----------
    neighbours : list of int, length n
        ``neighbours[i]`` has bit ``j`` set when ``i`` and ``j`` are adjacent (no self bits).
    lower : int, default=0
        Stop as soon as a clique of this size is found (a known upper bound on the clique
        number, such as a colouring's colour count; 0 for none).
    deadline : float, optional
        Absolute :func:`time.perf_counter` time at which to stop with the best clique so far.
    node_limit : int, optional
        Stop after this many branch-and-bound nodes.

    Returns
    -------
    CliqueResult

    Examples
    --------
    >>> result = max_clique(adjacency_bitsets(nx.complete_graph(4)))
    >>> result.size, result.optimal
    (4, True)
    >>> max_clique(adjacency_bitsets(nx.cycle_graph(5))).size
    2
    """
    node_limit = None if node_limit is None else check_positive_int(node_limit, "node_limit")
    n = len(neighbours)
    if n == 0:
        return CliqueResult((), True, 0)
    degree = [bits.bit_count() for bits in neighbours]
    order = sorted(range(n), key=lambda v: -degree[v])
    best: list[int] = [order[0]]
    nodes = 0
    stack: list[tuple[list[int], int]] = [([], (1 << n) - 1)]
    while stack:
        clique, candidates = stack.pop()
        nodes += 1
        if (deadline is not None and time.perf_counter() >= deadline) or (
            node_limit is not None and nodes >= node_limit
        ):
            return CliqueResult(tuple(sorted(best)), False, nodes)
        # Branch on the vertices of the highest colours first. When ``v`` is taken, the
        # candidates left (``v`` and those of lower colours) need at most ``colour``
        # colours, so no clique through them beats ``len(clique) + colour``; once that
        # cannot beat the best, neither can any vertex after it.
        for v, colour in reversed(_colour_bound(candidates, order, neighbours)):
            if len(clique) + colour <= len(best):
                break
            grown = [*clique, v]
            inside = candidates & neighbours[v]
            if not inside:
                if len(grown) > len(best):
                    best = grown
                    if lower and len(best) >= lower:
                        return CliqueResult(tuple(sorted(best)), True, nodes)
            else:
                stack.append((grown, inside))
            candidates &= ~(1 << v)
    return CliqueResult(tuple(sorted(best)), True, nodes)


def graph_clique(
    graph: nx.Graph, nodes: list[Hashable] | None = None, *, deadline: float | None = None
) -> CliqueResult:
    """A maximum clique of a networkx graph, in memory linear in its edges beyond :data:`MAX_BITSET_NODES`.

    Parameters
    ----------
    graph : networkx.Graph
    nodes : list, optional
        Vertex order, which the result's indices refer to; default ``list(graph)``.
    deadline : float, optional
        Absolute :func:`time.perf_counter` time at which to stop with the best clique so far.

    Returns
    -------
    CliqueResult
        Indices into ``nodes``.

    Examples
    --------
    >>> result = graph_clique(nx.lollipop_graph(4, 3))
    >>> result.clique, result.optimal
    ((0, 1, 2, 3), True)
    """
    order = list(graph) if nodes is None else nodes
    if len(order) <= MAX_BITSET_NODES:
        return max_clique(adjacency_bitsets(graph, order), deadline=deadline)
    return _clique_by_neighbourhoods(graph, order, deadline)


def _clique_by_neighbourhoods(graph: nx.Graph, order: list[Hashable], deadline: float | None) -> CliqueResult:
    """:func:`graph_clique` one vertex at a time, among its neighbours of higher (degree, index)."""
    rank = {v: (graph.degree(v), i) for i, v in enumerate(order)}
    best: tuple[Hashable, ...] = (order[0],)
    nodes = 0
    for v in sorted(order, key=rank.__getitem__, reverse=True):
        if deadline is not None and time.perf_counter() >= deadline:
            return _indexed(best, order, False, nodes)
        higher = [w for w in graph[v] if w in rank and rank[w] > rank[v]]
        if len(higher) < len(best):  # with v, no clique beats the best
            continue
        position = {w: j for j, w in enumerate(higher)}
        bits = [sum(1 << position[x] for x in graph[w] if x in position) for w in higher]
        found = max_clique(bits, deadline=deadline)
        nodes += found.nodes
        if found.size + 1 > len(best):
            best = (v, *(higher[j] for j in found.clique))
        if not found.optimal:
            return _indexed(best, order, False, nodes)
    return _indexed(best, order, True, nodes)


def _indexed(clique: tuple[Hashable, ...], order: list[Hashable], optimal: bool, nodes: int) -> CliqueResult:
    """A :class:`CliqueResult` of the vertices' indices in ``order``."""
    index = {v: i for i, v in enumerate(order)}
    return CliqueResult(tuple(sorted(index[v] for v in clique)), optimal, nodes)
