"""Small vertex separators that split a graph into components of bounded size."""

from __future__ import annotations

from collections.abc import Collection, Hashable
from itertools import combinations
from typing import NamedTuple

import networkx as nx

from backends.utils.validation import check_choice, check_nonnegative_int, check_positive_int

from .errors import NoSeparatorError

__all__ = ["Separation", "find_separators", "separator_components", "EXACT_MAX_NODES"]

#: ``method="auto"`` searches exactly up to this many vertices, greedily beyond.
EXACT_MAX_NODES = 20


class Separation(NamedTuple):
    """A vertex separator and the components it leaves.

    Attributes
    ----------
    separator : frozenset of graph nodes
        The separator ``S``.
    components : list of frozenset of graph nodes
        Connected components of ``G - S``, ordered by their first node in graph order.

    Examples
    --------
    >>> separation = find_separators(nx.cycle_graph(6), 2)
    >>> sorted(separation.separator), [sorted(c) for c in separation.components]
    ([0, 3], [[1, 2], [4, 5]])
    """

    separator: frozenset[Hashable]
    components: list[frozenset[Hashable]]


def _masks_to_components(masks: list[int], nodes: list[Hashable]) -> list[frozenset[Hashable]]:
    """Node sets of component bitmasks (bit ``i`` is ``nodes[i]``), ordered by their lowest bit."""
    ordered = sorted(masks, key=lambda m: m & -m)
    return [frozenset(nodes[i] for i in range(len(nodes)) if mask >> i & 1) for mask in ordered]


def _component_masks(adjacency: list[int], remaining: int) -> list[int]:
    """Return the connected components of the vertex set ``remaining`` (bitmasks)."""
    components: list[int] = []
    while remaining:
        component = frontier = remaining & -remaining
        while frontier:
            reached = 0
            while frontier:
                low = frontier & -frontier
                reached |= adjacency[low.bit_length() - 1]
                frontier ^= low
            frontier = reached & remaining & ~component
            component |= frontier
        components.append(component)
        remaining &= ~component
    return components


def _exact(graph: nx.Graph, max_component: int, max_size: int) -> Separation:
    """Smallest separator by exhaustive search over vertex subsets of increasing size."""
    nodes = list(graph)
    index = {v: i for i, v in enumerate(nodes)}
    adjacency = [sum(1 << index[w] for w in graph[v] if w != v) for v in nodes]
    full = (1 << len(nodes)) - 1
    for size in range(max_size + 1):
        best: tuple[int, tuple[int, ...], list[int]] | None = None
        for subset in combinations(range(len(nodes)), size):
            masks = _component_masks(adjacency, full & ~sum(1 << i for i in subset))
            largest = max((m.bit_count() for m in masks), default=0)
            if largest <= max_component and (best is None or largest < best[0]):
                best = (largest, subset, masks)
        if best is not None:
            return Separation(frozenset(nodes[i] for i in best[1]), _masks_to_components(best[2], nodes))
    raise NoSeparatorError(
        f"no separator of at most {max_size} vertices leaves components of at most "
        f"{max_component} vertices in this {len(nodes)}-vertex graph"
    )


def separator_components(graph: nx.Graph, separator: Collection[Hashable]) -> list[frozenset[Hashable]]:
    """Connected components of ``G - S``, ordered by their first node in graph order.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected graph; it is not modified.
    separator : collection of graph nodes
        The vertices ``S`` to remove (nodes not in ``graph`` are ignored).

    Returns
    -------
    list of frozenset of graph nodes

    Examples
    --------
    >>> separator_components(nx.path_graph(5), {2})
    [frozenset({0, 1}), frozenset({3, 4})]
    """
    order = {v: i for i, v in enumerate(graph)}
    rest = graph.subgraph(v for v in graph if v not in separator)
    return sorted(
        (frozenset(c) for c in nx.connected_components(rest)), key=lambda c: min(order[v] for v in c)
    )


def _greedy(graph: nx.Graph, max_component: int, max_size: int) -> Separation:
    """Minimal separator by greedy removal of the most splitting vertex, then pruning.

    The removal gives up once it holds more than ``2 * max_size + 2`` vertices: pruning
    rarely halves a separator, and a dense graph would otherwise lose most of its vertices
    one betweenness computation at a time.
    """
    graph = nx.Graph(graph)  # a plain copy: subgraph views of views make every lookup slow
    order = {v: i for i, v in enumerate(graph)}
    separator: list[Hashable] = []
    while True:
        components = separator_components(graph, set(separator))
        largest = max(components, key=len, default=frozenset())
        if len(largest) <= max_component:
            break
        if len(separator) > 2 * max_size + 2:
            raise NoSeparatorError(
                f"the greedy heuristic removed {len(separator)} vertices and still leaves a component of "
                f"{len(largest)} vertices, more than max_component={max_component}; max_size={max_size}"
            )
        sub = graph.subgraph(largest)
        betweenness = nx.betweenness_centrality(sub)

        def left(
            v: Hashable,
            sub: nx.Graph = sub,
            largest: frozenset[Hashable] = largest,
            betweenness: dict[Hashable, float] = betweenness,
        ) -> tuple[int, float, int]:
            rest = sub.subgraph(largest - {v})
            return max(map(len, nx.connected_components(rest)), default=0), -betweenness[v], order[v]

        separator.append(min(largest, key=left))
    for v in reversed(list(separator)):
        trial = set(separator) - {v}
        if max(map(len, separator_components(graph, trial)), default=0) <= max_component:
            separator.remove(v)
    if len(separator) > max_size:
        raise NoSeparatorError(
            f"the greedy heuristic needs {len(separator)} separator vertices to leave components of at most "
            f"{max_component} vertices, more than max_size={max_size}"
        )
    return Separation(frozenset(separator), separator_components(graph, set(separator)))


def find_separators(
    graph: nx.Graph, max_component: int, *, max_size: int | None = None, method: str = "auto"
) -> Separation:
    """Find a small vertex separator ``S`` leaving components of at most ``max_component`` vertices.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected graph; it is not modified.
    max_component : int
        Largest allowed connected component of ``G - S``.
    max_size : int, optional
        Largest allowed separator; default: no bound.
    method : {"auto", "exact", "greedy"}, default="auto"
        ``"exact"`` tries every vertex subset by increasing size and returns a smallest
        separator (ties: the smallest largest component, then the first in node order);
        its cost grows like ``C(n, |S|)``. ``"greedy"`` is a heuristic: it repeatedly removes
        from the largest component the vertex whose removal leaves the smallest largest piece
        (ties: highest betweenness centrality), then puts
        back every vertex whose return keeps the bound (last removed first); its separator
        is minimal (no vertex can be dropped) but not necessarily minimum, and it gives up
        once it has removed more than ``2 * max_size + 2`` vertices. ``"auto"`` is exact
        for graphs of at most ``EXACT_MAX_NODES`` (20) vertices, greedy beyond.

    Returns
    -------
    Separation
        ``(separator, components)``: a frozenset of nodes and the list of components of
        ``G - S`` (frozensets), ordered by their first node in graph order.

    Raises
    ------
    InvalidParameterError
        If ``max_component`` is not a positive integer, ``max_size`` is negative, or ``method``
        is unknown.
    NoSeparatorError
        If no separator of at most ``max_size`` vertices exists (exact) or the heuristic needs more.

    Examples
    --------
    >>> find_separators(nx.path_graph(5), 2)
    Separation(separator=frozenset({2}), components=[frozenset({0, 1}), frozenset({3, 4})])
    """
    max_component = check_positive_int(max_component, "max_component")
    method = check_choice(method, "method", ("auto", "exact", "greedy"))
    n = graph.number_of_nodes()
    max_size = n if max_size is None else min(n, check_nonnegative_int(max_size, "max_size"))
    if method == "exact" or (method == "auto" and n <= EXACT_MAX_NODES):
        return _exact(graph, max_component, max_size)
    return _greedy(graph, max_component, max_size)
