"""The check of a SAT refutation witness: no k-colouring of a subgraph, by a DRAT proof.

A witness ``{"kind": "refutation", "bound": k + 1, "colors": k, "vertices": [...],
"fixed": [...], "cliques": [[...], ...], "merges": [[u, v, j], ...], "at_most_one": bool,
"proof": "<DRAT text>"}`` claims that the subgraph ``H`` induced by ``vertices`` has no
colouring with ``k`` colours, so neither has the graph: ``chi >= k + 1``.

The checker builds the formula itself, from the graph and the witness's structure, after
checking that structure against the graph (:func:`refutation_formula`); the variable of
vertex ``vertices[i]`` in colour ``c`` is ``i * k + c + 1``. Its clauses:

- every vertex takes a colour, and no edge of ``H`` has both ends in one colour;
- ``fixed[c]`` takes colour ``c`` (``fixed`` must be a clique of at most ``k`` vertices);
- for each clique of exactly ``k`` vertices in ``cliques``, each colour appears on it;
- for each merge ``[u, v, j]``, ``u`` and ``v`` take the same colour (``u`` in
  ``cliques[j]``, ``v`` outside it and adjacent to all of it but ``u``);
- with ``at_most_one``, no vertex takes two colours.

If ``H`` had a k-colouring, renaming its colours so that ``fixed`` gets ``0, 1, ...``
(possible: a clique's colours are distinct) would give a model of every clause: a
k-clique uses all ``k`` colours, so ``v``, which sees all of ``cliques[j]`` but ``u``, has
the one colour left, ``u``'s; and the other clauses do not depend on the colours' names.
So a valid DRAT proof that the formula has no model (:func:`bbqmis.check.drat.check_refutation`)
proves the bound.

Examples
--------
>>> from bbqmis.check.dimacs import parse_dimacs
>>> triangle = parse_dimacs(["p edge 3 3", "e 1 2", "e 2 3", "e 1 3"])
>>> witness = {"kind": "refutation", "bound": 3, "colors": 2, "vertices": ["1", "2", "3"],
...     "fixed": ["1", "2"], "cliques": [], "merges": [], "at_most_one": False, "proof": "0"}
>>> refutation_bound(triangle, witness)
3
"""

from __future__ import annotations

from typing import Any

from .dimacs import DimacsGraph
from .drat import ProofError, check_refutation
from .errors import InvalidCertificate

__all__ = ["refutation_bound", "refutation_formula"]


def refutation_bound(graph: DimacsGraph, witness: dict[str, Any]) -> int:
    """Check a refutation witness against ``graph``; the bound it proves, ``colors + 1``.

    Raises
    ------
    InvalidCertificate
        Naming the first structure that does not hold, or the proof line that fails.

    Examples
    --------
    >>> from bbqmis.check.dimacs import parse_dimacs
    >>> path = parse_dimacs(  # a path has a 2-colouring: no proof refutes it
    ...     ["p edge 3 2", "e 1 2", "e 2 3"])
    >>> witness = {"kind": "refutation", "bound": 3, "colors": 2, "vertices": ["1", "2", "3"],
    ...     "fixed": ["1", "2"], "cliques": [], "merges": [], "at_most_one": False, "proof": "0"}
    >>> refutation_bound(path, witness)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bbqmis.check.errors.InvalidCertificate: the refutation's DRAT proof: proof line 1: ... RUP nor RAT
    """
    k = witness.get("colors")
    if type(k) is not int or k < 1:
        raise InvalidCertificate(f"the refutation's 'colors' must be an integer >= 1, got {k!r}")
    if witness.get("bound") != k + 1:
        raise InvalidCertificate(
            f"the refutation of {k} colours proves {k + 1}, not {witness.get('bound')!r}"
        )
    proof = witness.get("proof")
    if not isinstance(proof, str):
        raise InvalidCertificate("the refutation's 'proof' must be DRAT text")
    try:
        check_refutation(refutation_formula(graph, witness), proof.splitlines())
    except ProofError as error:
        raise InvalidCertificate(f"the refutation's DRAT proof: {error}") from None
    return k + 1


def refutation_formula(graph: DimacsGraph, witness: dict[str, Any]) -> list[list[int]]:
    """The clauses of "``H`` has a k-colouring" with the witness's structure, after checking it.

    Examples
    --------
    >>> from bbqmis.check.dimacs import parse_dimacs
    >>> edge = parse_dimacs(["p edge 2 1", "e 1 2"])
    >>> refutation_formula(edge, {"colors": 1, "vertices": ["1", "2"], "fixed": ["1"], "cliques": [],
    ...     "merges": [], "at_most_one": False})
    [[1], [2], [-1, -2], [1]]
    """
    k = witness["colors"]
    index = _vertices(graph, witness.get("vertices"))
    fixed = _clique(graph, index, witness.get("fixed"), "'fixed'", sizes=range(k + 1))
    cliques = witness.get("cliques")
    if not isinstance(cliques, list):
        raise InvalidCertificate("the refutation's 'cliques' must be a list")
    cliques = [_clique(graph, index, clique, f"clique {j}", sizes=(k,)) for j, clique in enumerate(cliques)]
    merges = _merges(graph, index, witness.get("merges"), cliques)
    if type(witness.get("at_most_one")) is not bool:
        raise InvalidCertificate("the refutation's 'at_most_one' must be true or false")

    def x(vertex: str, colour: int) -> int:
        return index[vertex] * k + colour + 1

    formula = [[x(v, c) for c in range(k)] for v in index]
    formula += [
        [-x(a, c), -x(b, c)]
        for a in index
        for b in graph.neighbours[a]
        if b in index and a < b
        for c in range(k)
    ]
    formula += [[x(v, c)] for c, v in enumerate(fixed)]
    formula += [[x(v, c) for v in clique] for clique in cliques for c in range(k)]
    for u, v in merges:
        formula += [clause for c in range(k) for clause in ([-x(u, c), x(v, c)], [x(u, c), -x(v, c)])]
    if witness["at_most_one"]:
        formula += [[-x(v, a), -x(v, b)] for v in index for a in range(k) for b in range(a + 1, k)]
    return formula


def _vertices(graph: DimacsGraph, vertices: Any) -> dict[str, int]:
    """The position of each vertex of ``H``, after checking they are distinct vertices of the graph."""
    if not isinstance(vertices, list) or not vertices:
        raise InvalidCertificate("the refutation's 'vertices' must be a non-empty list")
    index = {str(v): i for i, v in enumerate(vertices)}
    if len(index) != len(vertices):
        raise InvalidCertificate("the refutation's 'vertices' repeat a vertex")
    unknown = next((v for v in index if v not in graph.neighbours), None)
    if unknown is not None:
        raise InvalidCertificate(f"the refutation names vertex {unknown}, not in 1..{graph.vertices}")
    return index


def _clique(graph: DimacsGraph, index: dict[str, int], clique: Any, what: str, sizes: Any) -> list[str]:
    """``clique`` as names, after checking it has an allowed size and is a clique of ``H``."""
    if not isinstance(clique, list) or len(clique) not in sizes:
        raise InvalidCertificate(f"the refutation's {what} must be a list of {_sizes(sizes)} vertices")
    names = [str(v) for v in clique]
    if len(set(names)) != len(names) or any(v not in index for v in names):
        raise InvalidCertificate(f"the refutation's {what} must be distinct vertices of 'vertices'")
    missing = graph.missing_edge(names)
    if missing is not None:
        raise InvalidCertificate(
            f"the refutation's {what}: vertices {missing[0]} and {missing[1]} are not adjacent"
        )
    return names


def _sizes(sizes: Any) -> str:
    return f"at most {max(sizes)}" if len(sizes) > 1 else str(sizes[0])


def _merges(
    graph: DimacsGraph, index: dict[str, int], merges: Any, cliques: list[list[str]]
) -> list[tuple[str, str]]:
    """The merged pairs, after checking each against the clique that forces it."""
    if not isinstance(merges, list):
        raise InvalidCertificate("the refutation's 'merges' must be a list")
    pairs = []
    for number, merge in enumerate(merges):
        where = f"the refutation's merge {number}"
        if not isinstance(merge, list) or len(merge) != 3 or type(merge[2]) is not int:
            raise InvalidCertificate(f"{where} must be [u, v, clique number]")
        u, v, j = str(merge[0]), str(merge[1]), merge[2]
        if not 0 <= j < len(cliques) or u not in cliques[j] or v in cliques[j] or v not in index:
            raise InvalidCertificate(f"{where}: {u} must be in clique {j}, {v} outside it and in 'vertices'")
        missing = next((w for w in cliques[j] if w != u and not graph.adjacent(v, w)), None)
        if missing is not None:
            raise InvalidCertificate(f"{where}: {v} is not adjacent to {missing} of clique {j}")
        pairs.append((u, v))
    return pairs
