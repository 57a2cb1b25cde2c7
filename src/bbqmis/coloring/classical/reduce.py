"""Structure settled without search: components, easy graph classes, low-degree vertices.

A graph's chromatic number is the largest of its connected components', so each component
(:func:`components`; the isolated vertices together) is coloured on its own and the
colourings are laid side by side (:func:`merge_colorings`).
Some components need no search at all (:func:`easy_coloring`): an edgeless one takes one
colour, a bipartite one two (found by breadth-first search), a complete one ``n``, an odd
cycle three. And a vertex of degree below a clique's size, outside that clique, can be
removed (:func:`peel`): any colouring of the rest uses at least as many colours as the
clique, so the vertex always finds a free colour when it is put back
(:func:`extend_coloring`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import networkx as nx
import numpy as np
from scipy.sparse.csgraph import connected_components

from .matrices import csr_adjacency

__all__ = ["components", "easy_coloring", "extend_coloring", "merge_colorings", "peel"]

Coloring = dict[Hashable, int]


def components(graph: nx.Graph) -> list[nx.Graph]:
    """Connected components as graphs of their own, largest first; the trivial ones in two last parts.

    A connected graph of more than two vertices is returned as it is, not copied (its
    node attributes included); callers must not change the parts.

    The single edges are put together (a matching, coloured with two colours) and so are
    the isolated vertices (an edgeless graph, one colour), so that a graph of many of
    them costs one part each, not one per component.

    Examples
    --------
    >>> [c.number_of_nodes() for c in components(nx.union(nx.path_graph(2), nx.cycle_graph(range(2, 7))))]
    [5, 2]
    >>> [c.number_of_edges() for c in components(nx.empty_graph(1000))]
    [0]
    >>> [c.number_of_edges() for c in components(nx.union(nx.path_graph(2), nx.path_graph(range(2, 8))))]
    [5, 1]
    """
    nodes = list(graph)
    _, labels = connected_components(csr_adjacency(graph, nodes), directed=False)
    by_label = np.argsort(labels, kind="stable")  # each component's vertices in graph order
    starts = np.flatnonzero(np.diff(labels[by_label], prepend=-1))
    members = [[nodes[i] for i in chunk] for chunk in np.split(by_label, starts[1:])] if nodes else []
    parts = sorted(
        (part for part in members if len(part) > 2), key=lambda part: (-len(part), min(map(str, part)))
    )
    if len(parts) == 1 and len(parts[0]) == len(nodes):  # connected: no copy (a second of a million edges)
        return [graph]
    order = {v: i for i, v in enumerate(nodes)}
    matched = sorted((v for part in members if len(part) == 2 for v in part), key=order.__getitem__)
    isolated = sorted((v for part in members if len(part) == 1 for v in part), key=order.__getitem__)
    return [_closed_part(graph, part) for part in [*parts, matched, isolated] if part]


def _closed_part(graph: nx.Graph, nodes: list[Hashable]) -> nx.Graph:
    """The subgraph on ``nodes``, which no edge leaves, without node attributes (a fast copy).

    Each vertex's neighbour dict is copied whole, all its neighbours being in the part:
    a second on a million edges, where ``add_edges_from`` takes four. The edge
    attribute dicts are the graph's own, as they are in a connected graph returned
    uncopied by :func:`components`.
    """
    part = nx.Graph()
    part.add_nodes_from(nodes)
    adjacency = graph.adj
    part._adj.update((v, dict(adjacency[v])) for v in nodes)  # the empty neighbour dicts replaced
    return part


def easy_coloring(graph: nx.Graph) -> tuple[Coloring, str] | None:
    """An optimal colouring of a connected graph of an easy class, with the class's name.

    Parameters
    ----------
    graph : networkx.Graph
        A connected graph (one component).

    Returns
    -------
    (dict, str) or None
        ``(colouring, kind)`` with ``kind`` one of ``"empty"``, ``"edgeless"``,
        ``"bipartite"``, ``"complete"``, ``"odd-cycle"``, or ``"matching"`` (disjoint
        edges, the one disconnected class accepted); ``None`` when the graph is of
        none of these classes.

    Examples
    --------
    >>> coloring, kind = easy_coloring(nx.cycle_graph(7))
    >>> kind, len(set(coloring.values()))
    ('odd-cycle', 3)
    """
    n, m = graph.number_of_nodes(), graph.number_of_edges()
    if n == 0:
        return {}, "empty"
    if m == 0:
        return dict.fromkeys(graph, 0), "edgeless"
    if 2 * m == n * (n - 1):
        return {v: i for i, v in enumerate(graph)}, "complete"
    if 2 * m == n and all(degree == 1 for _, degree in graph.degree):
        return {v: side for edge in graph.edges() for side, v in enumerate(edge)}, "matching"
    sides = _two_coloring(graph)
    if sides is not None:
        return sides, "bipartite"
    if m == n and all(degree == 2 for _, degree in graph.degree):
        cycle = [u for u, _ in nx.find_cycle(graph)]
        coloring = {v: i % 2 for i, v in enumerate(cycle)}
        coloring[cycle[-1]] = 2
        return coloring, "odd-cycle"
    return None


def _two_coloring(graph: nx.Graph) -> Coloring | None:
    """A 2-colouring by breadth-first search, or None when an edge joins two vertices of one side."""
    start = next(iter(graph))
    side = {start: 0}
    queue = [start]
    for u in queue:
        for w in graph[u]:
            if w not in side:
                side[w] = 1 - side[u]
                queue.append(w)
            elif side[w] == side[u]:
                return None
    return side


def peel(graph: nx.Graph, clique: Iterable[Hashable]) -> tuple[set[Hashable], list[Hashable]]:
    """Remove, repeatedly, vertices outside ``clique`` whose degree is below the clique's size.

    Parameters
    ----------
    graph : networkx.Graph
    clique : iterable of vertices
        A clique of ``graph``; its size ``k`` is a lower bound on every colouring of the core.

    Returns
    -------
    core : set
        The vertices left; the clique is among them.
    peeled : list
        The removed vertices in removal order; :func:`extend_coloring` puts them back in
        reverse order, each with fewer than ``k`` coloured neighbours.

    Examples
    --------
    >>> core, peeled = peel(nx.lollipop_graph(4, 3), clique=range(4))
    >>> sorted(core), peeled
    ([0, 1, 2, 3], [6, 5, 4])
    """
    keep = set(clique)
    k = len(keep)
    degree = dict(graph.degree)
    core = set(graph)
    stack = [v for v in graph if v not in keep and degree[v] < k]
    queued = set(stack)
    peeled: list[Hashable] = []
    while stack:
        v = stack.pop()
        core.discard(v)
        peeled.append(v)
        for w in graph[v]:
            if w in core:
                degree[w] -= 1
                if w not in keep and w not in queued and degree[w] < k:
                    queued.add(w)
                    stack.append(w)
    return core, peeled


def extend_coloring(graph: nx.Graph, coloring: Coloring, peeled: list[Hashable]) -> Coloring:
    """Colour the peeled vertices, last peeled first, each with its smallest free colour.

    Every peeled vertex had fewer than ``k`` neighbours left when it was removed, and
    ``coloring`` uses at least ``k`` colours (the clique), so no new colour is opened.

    Returns
    -------
    dict
        A new colouring of the core and the peeled vertices.

    Examples
    --------
    >>> graph = nx.lollipop_graph(4, 3)
    >>> core, peeled = peel(graph, clique=range(4))
    >>> coloring = extend_coloring(graph, {v: v for v in core}, peeled)
    >>> len(coloring), max(coloring.values()) + 1
    (7, 4)
    >>> all(coloring[u] != coloring[v] for u, v in graph.edges)
    True
    """
    result = dict(coloring)
    for v in reversed(peeled):
        taken = {result[w] for w in graph[v] if w in result}
        result[v] = next(c for c in range(len(taken) + 1) if c not in taken)
    return result


def merge_colorings(colorings: Iterable[Coloring]) -> Coloring:
    """Colourings of disjoint components side by side; colours are shared, not offset.

    Examples
    --------
    >>> merge_colorings([{"a": 0, "b": 1}, {"c": 0}])
    {'a': 0, 'b': 1, 'c': 0}
    """
    merged: Coloring = {}
    for coloring in colorings:
        merged.update(coloring)
    return merged
