"""Zykov reasoning at the root of a k-colourability question: cliques of size k, and the pairs they merge.

A graph asked for a k-colouring whose clique ``C`` has exactly ``k`` vertices must use
every colour once on ``C``. Two consequences, true in every k-colouring and so sound to
add to any encoding of the question (they never remove a colouring):

- **every colour appears in C** (:func:`implied_clauses`, ``ALO(C, c)``): with the edges'
  "not both" clauses this makes ``C`` a permutation of the colours. On queen9_9 asked for
  9 colours, every row, column and long diagonal is such a clique, and the question
  becomes the partition of the board into nine 9-queens solutions, which CaDiCaL refutes
  in about a second instead of not at all in minutes;
- **Zykov merges** (:func:`forced_merges`): a vertex ``v`` outside ``C`` adjacent to every
  vertex of ``C`` but ``u`` must take ``u``'s colour, the colour ``C`` leaves it (the
  "positive pruning" rule of ZykovColor's propagator, here at the root). In Zykov's
  terms ``u`` and ``v`` are contracted; in the assignment encoding the merge is the
  binary clauses ``x[u, c] <-> x[v, c]``. A merge of two adjacent vertices proves that no
  k-colouring exists.

This module imports only the standard library: the SAT child process
(:mod:`bbqmis.coloring.classical.sat_worker`) loads it by its path, without the package.
Vertices are ``0..n-1`` and neighbourhoods are bitsets (Python integers).

References
----------
.. [1] A. A. Zykov, "On some properties of linear complexes", Mat. Sbornik 24 (1949).
.. [2] E. Hebrard and G. Katsirelos, "Clause learning and new bounds for graph colouring",
   CP 2018 (gc-cdcl).
.. [3] G. Brand, D. Faber, S. Held and P. Mutzel, "ZykovColor", ALENEX 2026.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

__all__ = [
    "MAX_CLIQUES",
    "MAX_STEPS",
    "forced_merges",
    "implied_clauses",
    "implied_structure",
    "k_cliques",
    "neighbour_bitsets",
]

#: Most cliques of size k that :func:`k_cliques` returns: each gives k clauses of k literals.
MAX_CLIQUES = 10_000
#: Most search steps (calls) of :func:`k_cliques`: a dense graph with many large cliques
#: ends the search early with the cliques found so far (any subset is sound).
MAX_STEPS = 200_000


def neighbour_bitsets(n: int, edges: Sequence[Sequence[int]]) -> list[int]:
    """The neighbourhood of each vertex ``0..n-1`` as a bitset.

    Examples
    --------
    >>> neighbour_bitsets(3, [(0, 1), (1, 2)])
    [2, 5, 2]
    """
    neighbours = [0] * n
    for u, v in edges:
        neighbours[u] |= 1 << v
        neighbours[v] |= 1 << u
    return neighbours


def k_cliques(
    neighbours: Sequence[int], k: int, *, max_cliques: int = MAX_CLIQUES, max_steps: int = MAX_STEPS
) -> list[list[int]]:
    """Cliques of exactly ``k`` vertices, each once (vertices descending), up to the budgets.

    Parameters
    ----------
    neighbours : sequence of int
        Neighbourhood bitsets (:func:`neighbour_bitsets`).
    k : int
        The clique size (at least 1).
    max_cliques, max_steps : int
        The search ends when it has this many cliques or has taken this many steps; the
        list is then incomplete (every clique in it is still a clique).

    Returns
    -------
    list of list of int

    Examples
    --------
    >>> square_with_diagonal = neighbour_bitsets(4, [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
    >>> k_cliques(square_with_diagonal, 3)
    [[3, 2, 0], [2, 1, 0]]
    """
    if k < 1:
        return []
    eligible = sum(1 << v for v, nb in enumerate(neighbours) if nb.bit_count() >= k - 1)
    found: list[list[int]] = []
    steps = 0

    def grow(clique: list[int], candidates: int) -> bool:
        """Extend ``clique`` by candidates below its last vertex; False once a budget is spent."""
        nonlocal steps
        steps += 1
        if len(clique) == k:
            found.append(list(clique))
            return len(found) < max_cliques
        while candidates and steps < max_steps and len(clique) + candidates.bit_count() >= k:
            v = candidates.bit_length() - 1
            candidates ^= 1 << v
            clique.append(v)
            going = grow(clique, candidates & neighbours[v])
            clique.pop()
            if not going:
                return False
        return steps < max_steps

    grow([], eligible)
    return found


def forced_merges(neighbours: Sequence[int], cliques: Sequence[Sequence[int]]) -> list[tuple[int, int, int]]:
    """Triples ``(u, v, j)``: ``u`` and ``v`` share a colour in every ``len(cliques[j])``-colouring.

    ``v`` is outside ``cliques[j]`` and adjacent to all of it but ``u``, so the one colour
    the clique leaves ``v`` is ``u``'s. A pair of adjacent vertices (``v`` adjacent to the
    whole clique, ``u`` included) means no such colouring exists. Each pair comes once,
    with the first clique that forces it.

    Examples
    --------
    >>> # a triangle 0-1-2, and 3 adjacent to 1 and 2: with 3 colours, 3 takes 0's colour
    >>> forced_merges(neighbour_bitsets(4, [(0, 1), (1, 2), (0, 2), (1, 3), (2, 3)]), [[0, 1, 2]])
    [(0, 3, 0)]
    """
    pairs: dict[tuple[int, int], int] = {}
    for j, clique in enumerate(cliques):
        members = sum(1 << v for v in clique)
        for u in clique:
            common = -1
            for w in clique:
                if w != u:
                    common &= neighbours[w]
            common &= ~members
            while common:
                v = common.bit_length() - 1
                common ^= 1 << v
                pairs.setdefault((u, v), j)
    return sorted((u, v, j) for (u, v), j in pairs.items())


def implied_structure(
    n: int, edges: Sequence[Sequence[int]], k: int, *, max_cliques: int = MAX_CLIQUES
) -> tuple[list[list[int]], list[tuple[int, int, int]]]:
    """The cliques of ``k`` vertices (:func:`k_cliques`) and the merges they force (:func:`forced_merges`).

    Parameters
    ----------
    n : int
        Number of vertices.
    edges : sequence of (int, int)
    k : int
        The colours of the question.
    max_cliques : int, default=MAX_CLIQUES
        Most cliques used.

    Examples
    --------
    >>> implied_structure(4, [(0, 1), (1, 2), (0, 2), (1, 3), (2, 3)], 3)
    ([[3, 2, 1], [2, 1, 0]], [(0, 3, 1), (3, 0, 0)])
    """
    neighbours = neighbour_bitsets(n, edges)
    cliques = k_cliques(neighbours, k, max_cliques=max_cliques)
    return cliques, forced_merges(neighbours, cliques)


def implied_clauses(
    cliques: Sequence[Sequence[int]], merges: Sequence[Sequence[int]], k: int
) -> Iterator[list[int]]:
    """Clauses true in every k-colouring: each k-clique shows every colour, and the Zykov merges.

    Variables are those of the assignment encoding
    (:func:`~bbqmis.coloring.classical.sat_worker.encode`): ``v * k + c + 1`` is true when
    vertex ``v`` takes colour ``c``.

    Parameters
    ----------
    cliques : sequence of sequences of int
        Cliques of ``k`` vertices (:func:`implied_structure`).
    merges : sequence of (u, v, j)
        Merges (:func:`forced_merges`); ``j`` is not used here.
    k : int
        The colours of the question.

    Yields
    ------
    list of int
        For each clique ``C`` and colour ``c``, ``OR(x[v, c] for v in C)``; for each merge
        ``(u, v, j)`` and colour ``c``, ``-x[u, c] OR x[v, c]`` and ``x[u, c] OR -x[v, c]``.

    Examples
    --------
    >>> sorted(map(sorted, implied_clauses([[1, 0]], [], 2)))  # an edge: both colours on it
    [[1, 3], [2, 4]]
    >>> [-1, 10] in list(implied_clauses([[0, 1, 2]], [(0, 3, 0)], 3))  # x[0, 0] -> x[3, 0]
    True
    """
    for clique in cliques:
        for c in range(k):
            yield [v * k + c + 1 for v in clique]
    for u, v, _ in merges:
        for c in range(k):
            yield [-(u * k + c + 1), v * k + c + 1]
            yield [u * k + c + 1, -(v * k + c + 1)]
