"""Mycielskian lower bounds: a clique's Mycielskian structure grown inside the graph, level by level.

The bound of gc-cdcl (Hebrard and Katsirelos, ChromSAT's ``mycielski.hpp``), with the edge
rule of ZykovColor. Start from a clique ``K`` of ``G`` as the subgraph ``H`` and repeat:

1. for each vertex ``v`` of ``H``, its *shadow candidates* ``S_v`` are the vertices of ``G``
   adjacent to every ``H``-neighbour of ``v`` (``v`` itself among them);
2. ``W`` is the set of vertices of ``G`` adjacent to some member of every ``S_v``; stop when
   it is empty;
3. ``w`` is the first vertex of ``W`` and, for each ``v``, its shadow ``u_v`` is the first
   member of ``S_v`` adjacent to ``w``;
4. ``H`` gains ``w``, every ``u_v``, and the edges ``u_v-w`` and ``u_v-x`` for every
   ``H``-neighbour ``x`` of ``v`` (always, as ZykovColor does, not only for a new ``u_v``).

Each level raises the chromatic number of ``H`` by one, so ``|K| + levels`` is a lower bound
on ``chi(G)``: take a colouring of the new ``H`` with ``k`` colours and ``w`` coloured ``a``;
recolour every old vertex ``v`` of colour ``a`` with the colour of ``u_v``, which differs from
``a`` (``u_v ~ w``) and from the colours of ``v``'s old neighbours (``u_v ~ x``), none of which
had colour ``a``. This colours the old ``H`` properly with ``k - 1`` colours. The argument
holds for any subgraph ``H``, whether ``w`` or ``u_v`` are new vertices or not.

A Mycielski graph ``myciel_k`` (clique number 2, chromatic number ``k + 1``) is rebuilt from
one of its edges, so its bound is exact; queens graphs gain nothing over their cliques.

:func:`extend_clique` works on neighbourhood bitsets and returns the bound with its
witness (:class:`MycielskiWitness`: the clique, then per level ``w``, the shadows, the new
vertices and the edges added), which :func:`check_witness` re-checks from the graph alone.
:func:`mycielski_bound` tries the cliques of a networkx graph; :func:`quotient_adjacency`
builds the graph whose bound limits the colourings extending a partial one (used by the
DSATUR search of :mod:`~bbqmis.coloring.classical.dsatur_search`).

References
----------
J. Mycielski, "Sur le coloriage des graphes", Colloquium Mathematicum 3 (1955).
E. Hebrard and G. Katsirelos, "Constraint and satisfiability reasoning for graph
coloring", JAIR 69 (2020) (gc-cdcl, ChromSAT).

Examples
--------
>>> import networkx as nx
>>> witness = mycielski_bound(nx.mycielski_graph(5))  # chi = 5, clique number 2
>>> witness.bound, len(witness.clique), len(witness.levels)
(5, 2, 3)
>>> check_witness(nx.mycielski_graph(5), witness)
5
"""

from __future__ import annotations

import time
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from backends.utils.errors import InvalidParameterError

__all__ = [
    "MycielskiLevel",
    "MycielskiWitness",
    "check_witness",
    "extend_clique",
    "greedy_cliques",
    "mycielski_bound",
    "quotient_adjacency",
]

#: Start vertices (those of highest degree) from which :func:`greedy_cliques` grows cliques.
_CLIQUE_STARTS = 64


@dataclass(frozen=True)
class MycielskiLevel:
    """One level of a Mycielskian structure: the vertex ``w``, the shadows and what ``H`` gained.

    Attributes
    ----------
    w : hashable
        The vertex adjacent to every shadow.
    shadows : tuple of (v, u_v) pairs
        One pair per vertex ``v`` of ``H`` before this level.
    vertices : tuple
        Vertices new to ``H`` at this level (``w`` and shadows not in ``H`` before).
    edges : tuple of (a, b) pairs
        Edges new to ``H`` at this level (``u_v-w`` and ``u_v-x`` for ``x`` adjacent to ``v``).

    Examples
    --------
    >>> level = MycielskiLevel(w=2, shadows=((0, 0), (1, 1)), vertices=(2,), edges=((0, 2), (1, 2)))
    >>> level.w, len(level.shadows)
    (2, 2)
    """

    w: Any
    shadows: tuple[tuple[Any, Any], ...]
    vertices: tuple[Any, ...]
    edges: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class MycielskiWitness:
    """A clique and the Mycielskian levels grown from it: ``bound = len(clique) + len(levels)``.

    Attributes
    ----------
    clique : tuple
        Pairwise adjacent vertices.
    levels : tuple of MycielskiLevel

    Examples
    --------
    >>> MycielskiWitness(clique=(0, 1, 2), levels=()).bound
    3
    """

    clique: tuple[Any, ...]
    levels: tuple[MycielskiLevel, ...]

    @property
    def bound(self) -> int:
        """The lower bound on the chromatic number this witness proves."""
        return len(self.clique) + len(self.levels)

    def relabel(self, names: Sequence[Hashable]) -> MycielskiWitness:
        """The same witness with vertex ``i`` renamed ``names[i]``.

        Examples
        --------
        >>> MycielskiWitness(clique=(0, 1), levels=()).relabel("ab").clique
        ('a', 'b')
        """
        levels = tuple(
            MycielskiLevel(
                names[level.w],
                tuple((names[v], names[u]) for v, u in level.shadows),
                tuple(names[v] for v in level.vertices),
                tuple((names[a], names[b]) for a, b in level.edges),
            )
            for level in self.levels
        )
        return MycielskiWitness(tuple(names[v] for v in self.clique), levels)


def _bits(x: int) -> Iterable[int]:
    """The positions of the set bits of ``x``, lowest first."""
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def _lowest(x: int) -> int:
    return (x & -x).bit_length() - 1


def _next_level(adj: Sequence[int], inside: dict[int, int], everything: int) -> MycielskiLevel | None:
    """The next level of the structure ``inside`` (vertex -> its ``H``-neighbour bitset), if there is one."""
    candidates: dict[int, int] = {}
    reach_of: dict[int, int] = {}
    reachable = everything if inside else 0
    if not reachable:
        return None
    for v, around in inside.items():
        common = everything
        for x in _bits(around):
            common &= adj[x]
        candidates[v] = common
        reach = reach_of.get(common)
        if reach is None:
            reach = 0
            for u in _bits(common):
                reach |= adj[u]
            reach_of[common] = reach
        reachable &= reach
        if not reachable:
            return None
    w = _lowest(reachable)
    shadows = tuple((v, _lowest(candidates[v] & adj[w])) for v in inside)
    new_vertices = {w} | {u for _, u in shadows}
    new_vertices -= inside.keys()
    edges: list[tuple[int, int]] = []
    for v, u in shadows:
        for x in (w, *_bits(inside[v])):
            edge = (min(u, x), max(u, x))
            if not (inside.get(u, 0) >> x) & 1:
                edges.append(edge)
    return MycielskiLevel(w, shadows, tuple(sorted(new_vertices)), tuple(sorted(set(edges))))


def extend_clique(
    adj: Sequence[int],
    clique: Iterable[int],
    *,
    target: int | None = None,
    deadline: float | None = None,
) -> MycielskiWitness:
    """Grow the Mycielskian structure of ``clique`` inside the graph with neighbourhood bitsets ``adj``.

    Parameters
    ----------
    adj : sequence of int
        Bit ``u`` of ``adj[v]`` is set iff ``u ~ v`` (symmetric, no self-loops).
    clique : iterable of int
        Pairwise adjacent vertices (not checked: :func:`check_witness` does).
    target : int, optional
        Stop once the bound reaches ``target``.
    deadline : float, optional
        :func:`time.perf_counter` time after which no new level is started.

    Returns
    -------
    MycielskiWitness
        Over the indices of ``adj``; ``bound >= len(clique)``.

    Examples
    --------
    >>> five_cycle = [0b10010, 0b00101, 0b01010, 0b10100, 0b01001]
    >>> witness = extend_clique(five_cycle, [0, 1])
    >>> witness.bound, witness.levels[0].w
    (3, 3)
    """
    clique = tuple(clique)
    everything = 0
    for a in adj:
        everything |= a
    members = 0
    for v in clique:
        members |= 1 << v
    inside = {v: adj[v] & members for v in clique}
    levels: list[MycielskiLevel] = []
    while target is None or len(clique) + len(levels) < target:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        level = _next_level(adj, inside, everything)
        if level is None:
            break
        for v in level.vertices:
            inside[v] = 0
        for a, b in level.edges:
            inside[a] |= 1 << b
            inside[b] |= 1 << a
        levels.append(level)
    return MycielskiWitness(clique, tuple(levels))


def greedy_cliques(adj: Sequence[int], starts: int = _CLIQUE_STARTS) -> list[tuple[int, ...]]:
    """Distinct cliques grown greedily from the ``starts`` vertices of highest degree, largest first.

    From each start the candidate with most candidate neighbours joins until none is left.

    Examples
    --------
    >>> triangle_and_tail = [0b0110, 0b0101, 0b1011, 0b0100]
    >>> greedy_cliques(triangle_and_tail)
    [(0, 1, 2), (2, 3)]
    """
    order = sorted(range(len(adj)), key=lambda v: (-adj[v].bit_count(), v))[:starts]
    found: dict[int, tuple[int, ...]] = {}
    for start in order:
        members, candidates = 1 << start, adj[start]
        while candidates:
            pick = max(_bits(candidates), key=lambda u: ((adj[u] & candidates).bit_count(), -u))
            members |= 1 << pick
            candidates &= adj[pick]
        found.setdefault(members, tuple(_bits(members)))
    return sorted(found.values(), key=lambda c: (-len(c), c))


def mycielski_bound(
    graph: nx.Graph,
    cliques: Iterable[Iterable[Hashable]] = (),
    *,
    greedy: bool = True,
    target: int | None = None,
    deadline: float | None = None,
) -> MycielskiWitness:
    """The best Mycielskian bound of ``graph`` over some cliques, with its witness.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected, without self-loops.
    cliques : iterable of iterables of vertices, optional
        Cliques to extend first, in order.
    greedy : bool, default=True
        Then extend the cliques of :func:`greedy_cliques`, largest first.
    target : int, optional
        Stop as soon as a witness reaches this bound.
    deadline : float, optional
        :func:`time.perf_counter` time after which no new clique or level is started.

    Returns
    -------
    MycielskiWitness
        Over the vertices of ``graph``; the empty witness for a graph without vertices.

    Raises
    ------
    InvalidParameterError
        If ``graph`` has a self-loop, or a given clique is not one.

    Examples
    --------
    >>> mycielski_bound(nx.mycielski_graph(6)).bound
    6
    >>> mycielski_bound(nx.complete_graph(4), cliques=[[0, 1]], greedy=False).bound
    4
    """
    nodes = list(graph)
    index = {v: i for i, v in enumerate(nodes)}
    adj = _bitsets(graph, index)
    starts = [tuple(index[v] for v in clique) for clique in cliques]
    for clique in starts:
        _check_clique(adj, clique, nodes)
    if greedy:
        starts += greedy_cliques(adj)
    best = MycielskiWitness((), ())
    for clique in starts:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if target is not None and best.bound >= target:
            break
        witness = extend_clique(adj, clique, target=target, deadline=deadline)
        if witness.bound > best.bound:
            best = witness
    return best.relabel(nodes)


def quotient_adjacency(adj: Sequence[int], classes: Sequence[int], uncoloured: int) -> list[int]:
    """Bitsets of the quotient graph of a partial colouring: each colour class merged into one vertex.

    Vertex ``u < n`` is vertex ``u`` if it is uncoloured (coloured ones are isolated), and
    vertex ``n + c`` is class ``c``: the classes are pairwise adjacent, and a class is
    adjacent to the uncoloured vertices next to one of its members. A colouring with ``k``
    colours that extends the partial one colours this graph with ``k`` colours, so a bound
    above ``k`` on its chromatic number proves that no such colouring exists.

    Parameters
    ----------
    adj : sequence of int
        Neighbourhood bitsets of the ``n`` vertices.
    classes : sequence of int
        Members of each colour class (disjoint bitsets).
    uncoloured : int
        The uncoloured vertices.

    Examples
    --------
    >>> path = [0b010, 0b101, 0b010]  # 0 - 1 - 2, with 0 coloured 0
    >>> [bin(a) for a in quotient_adjacency(path, [0b001], 0b110)]
    ['0b0', '0b1100', '0b10', '0b10']
    """
    n = len(adj)
    everyone = ((1 << len(classes)) - 1) << n
    quotient = [adj[u] & uncoloured if (uncoloured >> u) & 1 else 0 for u in range(n)]
    for c, members in enumerate(classes):
        around = 0
        for v in _bits(members):
            around |= adj[v]
        around &= uncoloured
        quotient.append(around | (everyone ^ (1 << (n + c))))
        for u in _bits(around):
            quotient[u] |= 1 << (n + c)
    return quotient


def check_witness(graph: nx.Graph, witness: MycielskiWitness) -> int:
    """Re-check ``witness`` against ``graph`` alone and return the bound it proves.

    Checks that the clique is one, and that at each level every vertex ``v`` of the
    structure so far has one shadow ``u_v`` with ``u_v ~ w`` and ``u_v ~ x`` in ``graph``
    for every neighbour ``x`` of ``v`` in the structure (which then gains those edges).

    Raises
    ------
    InvalidParameterError
        Naming the first clique pair, level or edge that fails.

    Examples
    --------
    >>> bad = MycielskiWitness(clique=(0, 2), levels=())
    >>> check_witness(nx.path_graph(3), bad)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: clique vertices 0 and 2 are not adjacent
    """
    clique = list(witness.clique)
    structure: dict[Hashable, set[Hashable]] = {v: set() for v in clique}
    for i, a in enumerate(clique):
        for b in clique[i + 1 :]:
            _need_edge(graph, a, b, "clique vertices")
            structure[a].add(b)
            structure[b].add(a)
    for number, level in enumerate(witness.levels, 1):
        shadows = dict(level.shadows)
        if set(shadows) != set(structure) or len(shadows) != len(level.shadows):
            raise InvalidParameterError(f"level {number} must give one shadow per vertex of the structure")
        gained: list[tuple[Hashable, Hashable]] = []
        for v, u in shadows.items():
            _need_edge(graph, u, level.w, f"level {number}: shadow and w")
            for x in structure[v]:
                _need_edge(graph, u, x, f"level {number}: shadow of {v!r} and neighbour")
                gained.append((u, x))
            gained.append((u, level.w))
        for a, b in gained:
            structure.setdefault(a, set()).add(b)
            structure.setdefault(b, set()).add(a)
    return len(clique) + len(witness.levels)


def _need_edge(graph: nx.Graph, a: Hashable, b: Hashable, what: str) -> None:
    if a == b or not graph.has_edge(a, b):
        raise InvalidParameterError(f"{what} {a!r} and {b!r} are not adjacent")


def _check_clique(adj: Sequence[int], clique: Sequence[int], nodes: Sequence[Hashable]) -> None:
    for i, a in enumerate(clique):
        for b in clique[i + 1 :]:
            if not (adj[a] >> b) & 1:
                raise InvalidParameterError(
                    f"cliques must hold pairwise adjacent vertices: {nodes[a]!r} and {nodes[b]!r} are not"
                )


def _bitsets(graph: nx.Graph, index: dict[Hashable, int]) -> list[int]:
    adj = []
    for v in graph:
        bits = 0
        for u in graph.adj[v]:
            if u == v:
                raise InvalidParameterError(f"graph has a self-loop at {v!r}: it has no proper colouring")
            bits |= 1 << index[u]
        adj.append(bits)
    return adj
