"""The checks of ``python -m bbqmis.check``: a certificate's graph, colouring and lower-bound witness.

Everything here is written for the checker alone (standard library only), so that a bug of
the solver cannot hide in code the check shares with it.

Examples
--------
>>> from bbqmis.check.dimacs import parse_dimacs
>>> graph = parse_dimacs(["c a 5-cycle", "p edge 5 5", "e 1 2", "e 2 3", "e 3 4", "e 4 5", "e 5 1"])
>>> graph.vertices, graph.edges
(5, 5)
>>> witness_bound(graph, {"kind": "clique", "bound": 2, "clique": ["1", "2"]})
2
"""

from __future__ import annotations

import json
import os
from typing import Any

from .dimacs import DimacsGraph
from .errors import InvalidCertificate, UnreadableInput
from .refutation import refutation_bound

__all__ = ["FORMAT", "check_certificate", "read_certificate", "witness_bound"]

#: The ``format`` of the certificates this checker reads (``version`` 1).
FORMAT = "bbqmis-coloring-certificate"


def read_certificate(path: str | os.PathLike) -> dict[str, Any]:
    """Read a certificate: a JSON object with ``"format": "bbqmis-coloring-certificate"``, version 1.

    Examples
    --------
    >>> read_certificate("no/such/cert.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bbqmis.check.errors.UnreadableInput: no/such/cert.json: cannot read the certificate: No such file ...
    """
    where = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise UnreadableInput(f"{where}: cannot read the certificate: {reason}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != 1:
        raise UnreadableInput(f"{where}: not a {FORMAT} (version 1)")
    return data


def _integer(value: Any, what: str) -> int:
    if type(value) is not int:
        raise InvalidCertificate(f"{what} must be an integer, got {value!r}")
    return value


def _check_graph(graph: DimacsGraph, claimed: Any) -> None:
    """The certificate names this graph: same vertex count, edge count and edge hash."""
    if not isinstance(claimed, dict):
        raise InvalidCertificate("'graph' must be an object")
    found = {"vertices": graph.vertices, "edges": graph.edges, "edges_sha256": graph.sha256}
    for key, value in found.items():
        if claimed.get(key) != value:
            raise InvalidCertificate(
                f"the certificate is for another graph: {key} {claimed.get(key)!r}, the graph has {value!r}"
            )


def _check_coloring(graph: DimacsGraph, coloring: Any, k: int) -> None:
    """Every vertex has a colour in ``0..k-1`` and no edge joins two vertices of one colour."""
    if not isinstance(coloring, dict) or set(coloring) != set(graph.names):
        raise InvalidCertificate(f"'coloring' must give a colour to exactly the vertices 1..{graph.vertices}")
    for vertex, colour in coloring.items():
        if type(colour) is not int or not 0 <= colour < k:
            raise InvalidCertificate(f"vertex {vertex} has colour {colour!r}, not one of 0..{k - 1}")
    for a, near in graph.neighbours.items():
        for b in near:
            if a < b and coloring[a] == coloring[b]:
                raise InvalidCertificate(
                    f"the colouring is not proper: adjacent vertices {a} and {b} share colour {coloring[a]}"
                )


def witness_bound(graph: DimacsGraph, witness: Any) -> int:
    """Check a clique, Mycielskian or refutation witness against ``graph``; the bound on ``chi`` it proves.

    A clique of ``q`` vertices proves ``q``. Each Mycielskian level proves one more: with
    ``H`` the structure so far (the clique, then the edges the levels added), every vertex
    ``v`` of ``H`` needs a shadow ``u_v`` adjacent in the graph to ``w`` and to every
    neighbour of ``v`` in ``H``; ``H`` then gains those edges. Colour ``H`` plus the level
    with ``c`` colours, ``w`` with colour ``a``: recolouring every ``v`` of colour ``a`` with
    the colour of ``u_v`` colours ``H`` with ``c - 1``, so ``chi`` grew by one. A
    refutation is checked by :func:`bbqmis.check.refutation.refutation_bound`.

    Raises
    ------
    InvalidCertificate
        Naming the first pair that is not an edge, or the level that is malformed.

    Examples
    --------
    >>> from bbqmis.check.dimacs import parse_dimacs
    >>> graph = parse_dimacs(["p edge 3 2", "e 1 2", "e 2 3"])
    >>> witness_bound(graph, {"kind": "clique", "bound": 2, "clique": ["1", "3"]})
    Traceback (most recent call last):
    ...
    bbqmis.check.errors.InvalidCertificate: clique: vertices 1 and 3 are not adjacent
    """
    if isinstance(witness, dict) and witness.get("kind") == "refutation":
        return refutation_bound(graph, witness)
    if not isinstance(witness, dict) or witness.get("kind") not in ("clique", "mycielski"):
        raise InvalidCertificate(
            "a lower-bound witness must be an object of kind 'clique', 'mycielski' or 'refutation'"
        )
    clique = witness.get("clique")
    if not isinstance(clique, list) or not clique or len(set(map(str, clique))) != len(clique):
        raise InvalidCertificate("the witness's 'clique' must be a non-empty list of distinct vertices")
    names = [str(v) for v in clique]
    missing = graph.missing_edge(names)
    if missing is not None:
        raise InvalidCertificate(f"clique: vertices {missing[0]} and {missing[1]} are not adjacent")
    structure = {a: {b for b in names if b != a} for a in names}
    levels = witness.get("levels", []) if witness["kind"] == "mycielski" else []
    if not isinstance(levels, list):
        raise InvalidCertificate("the witness's 'levels' must be a list")
    for number, level in enumerate(levels, 1):
        _grow(graph, structure, level, number)
    bound = len(clique) + len(levels)
    if witness.get("bound") != bound:
        raise InvalidCertificate(f"the witness claims bound {witness.get('bound')!r} but proves {bound}")
    return bound


def _grow(graph: DimacsGraph, structure: dict[str, set[str]], level: Any, number: int) -> None:
    """Check one Mycielskian level against ``structure`` and add its edges."""
    where = f"Mycielskian level {number}"
    shadows = level.get("shadows") if isinstance(level, dict) else None
    if not isinstance(shadows, list) or not all(isinstance(p, list) and len(p) == 2 for p in shadows):
        raise InvalidCertificate(f"{where}: 'shadows' must be a list of [v, u_v] pairs")
    pairs = {str(v): str(u) for v, u in shadows}
    if set(pairs) != set(structure) or len(pairs) != len(shadows):
        raise InvalidCertificate(f"{where}: needs exactly one shadow per vertex of the structure so far")
    w = str(level.get("w"))
    gained = []
    for v, u in pairs.items():
        _need_edge(graph, u, w, f"{where}: shadow of {v} and w")
        for x in structure[v]:
            _need_edge(graph, u, x, f"{where}: shadow of {v} and its neighbour")
            gained.append((u, x))
        gained.append((u, w))
    for a, b in gained:
        structure.setdefault(a, set()).add(b)
        structure.setdefault(b, set()).add(a)


def _need_edge(graph: DimacsGraph, a: str, b: str, what: str) -> None:
    if not graph.adjacent(a, b):
        raise InvalidCertificate(f"{what}: vertices {a} and {b} are not adjacent")


def check_certificate(graph: DimacsGraph, certificate: dict[str, Any]) -> str:
    """Check ``certificate`` against ``graph``; the one ``ok: ...`` line that says what it proves.

    Raises
    ------
    InvalidCertificate
        With the reason, for the ``invalid: <reason>`` line.

    Examples
    --------
    >>> from bbqmis.check.dimacs import parse_dimacs
    >>> graph = parse_dimacs(["p edge 3 2", "e 1 2", "e 2 3"])
    >>> certificate = {"graph": {"vertices": 3, "edges": 2, "edges_sha256": graph.sha256},
    ...     "coloring": {"1": 0, "2": 1, "3": 0}, "num_colors": 2, "lower_bound": 2}
    >>> check_certificate(graph, certificate)
    'ok: chromatic number 2 proved'
    >>> certificate["coloring"]["3"] = 1
    >>> check_certificate(graph, certificate)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bbqmis.check.errors.InvalidCertificate: the colouring is not proper: adjacent vertices 2 and 3 share ...
    """
    _check_graph(graph, certificate.get("graph"))
    k = _integer(certificate.get("num_colors"), "'num_colors'")
    _check_coloring(graph, certificate.get("coloring"), k)
    trivial = 0 if graph.vertices == 0 else 1 if graph.edges == 0 else 2
    claimed = _integer(certificate.get("lower_bound"), "'lower_bound'")
    witness = certificate.get("lower_bound_certificate")
    if witness is not None:
        proved = witness_bound(graph, witness)
        if proved < claimed:
            raise InvalidCertificate(f"the witness proves {proved}, the certificate claims {claimed}")
    elif certificate.get("weaker_certificate") is not None:
        proved = witness_bound(graph, certificate["weaker_certificate"])
    else:
        proved = 0
    bound = max(trivial, proved)
    if bound > k:  # cannot happen with a proper colouring: a safeguard of the checker itself
        raise InvalidCertificate(f"a lower bound {bound} above the {k} colours of a proper colouring")
    if bound == k:
        return f"ok: chromatic number {k} proved"
    note = f" (the claimed lower bound {claimed} is not certified)" if claimed > bound else ""
    return f"ok: colouring with {k} colours, lower bound {bound}{note}"
