"""The child process of :mod:`bbqmis.coloring.classical.sat`: k-colourability by CaDiCaL, k descending.

This file runs as a script in its own process (``runpy.run_path``), so that the parent
can kill a solver that cannot be interrupted when the deadline passes, and so that
the solver's memory is capped by ``RLIMIT_AS``. It imports only the standard library
and PySAT.

Protocol: one JSON object on stdin, ``{"n", "edges", "clique", "upper", "lower",
"memory_bytes", "solver"}`` and optionally ``"implied"`` (default true: add
:func:`redundant_clauses`) and ``"proof"`` (a file path: log a DRAT proof, and write the
proof of the refutation there); then one JSON line on stdout per colour count tried, from
``upper - 1`` down: ``{"k": k, "sat": true, "colors": [...]}`` (a proper colouring with
at most ``k`` colours) or ``{"k": k, "sat": false}`` (none exists, so the chromatic
number is ``k + 1``; with ``"proof"``, also ``"implied"``: the :func:`redundant_structure`
the refuted formula had), after which the worker exits.

The encoding is the plain assignment model: a Boolean per vertex and colour, a clause
"some colour" per vertex, a clause "not both" per edge and colour, and the vertices of a
clique fixed to distinct colours (this breaks the colour symmetry and is where the
clique bound enters). At the clique bound (``k`` the clique's size),
:func:`redundant_clauses` adds clauses that every colouring satisfies, so they change no
answer, only how fast it comes: the Zykov reasoning of
:mod:`bbqmis.coloring.classical.zykov` (every colour on every k-clique, and the pairs of
vertices these cliques merge) and "at most one colour" per vertex.
"""

from __future__ import annotations

import ctypes
import json
import resource
import signal
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from types import ModuleType

#: The :func:`redundant_structure` that adds no clause.
NO_STRUCTURE: dict[str, Any] = {"cliques": [], "merges": [], "at_most_one": False}
#: ``prctl`` option that sends a signal to a process when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


def encode(n: int, edges: Sequence[Sequence[int]], clique: Sequence[int], k: int) -> Iterable[list[int]]:
    """Clauses of "the graph has a proper colouring with colours ``0..k-1``".

    Variable ``v * k + c + 1`` is true when vertex ``v`` takes colour ``c``.

    Examples
    --------
    >>> sorted(map(sorted, encode(2, [(0, 1)], [0, 1], 2)))
    [[-4, -2], [-3, -1], [1], [1, 2], [3, 4], [4]]
    """
    for v in range(n):
        yield [v * k + c + 1 for c in range(k)]
    for u, v in edges:
        for c in range(k):
            yield [-(u * k + c + 1), -(v * k + c + 1)]
    for c, v in enumerate(clique[:k]):
        yield [v * k + c + 1]


def redundant_structure(
    n: int, edges: Sequence[Sequence[int]], clique: Sequence[int], k: int
) -> dict[str, Any]:
    """What :func:`redundant_clauses` adds: ``{"cliques", "merges", "at_most_one"}``.

    Only for the question at the clique bound (``k`` at most the size of ``clique``): the
    cliques of ``k`` vertices and the merges they force
    (:func:`bbqmis.coloring.classical.zykov.implied_structure`), and "at most one colour"
    per vertex when those clauses are no more than the edges' ones (``k - 1 <=`` the mean
    degree). Other questions get none (docs/howto/exact-coloring.md says why). A
    certificate of a refutation carries this structure, so that a checker can rebuild the
    formula and see why each clause holds in every k-colouring.

    Examples
    --------
    >>> redundant_structure(3, [(0, 1), (1, 2), (0, 2)], [0, 1, 2], 3)
    {'cliques': [[2, 1, 0]], 'merges': [], 'at_most_one': True}
    >>> redundant_structure(3, [(0, 1), (1, 2), (0, 2)], [0, 1, 2], 4)["cliques"]  # above the clique bound
    []
    """
    if k > len(clique):
        return dict(NO_STRUCTURE)
    cliques, merges = _zykov().implied_structure(n, edges, k)
    return {
        "cliques": cliques,
        "merges": [list(merge) for merge in merges],
        "at_most_one": bool(n and k - 1 <= 2 * len(edges) / n),
    }


def redundant_clauses(structure: dict[str, Any], n: int, k: int) -> Iterator[list[int]]:
    """Clauses that every k-colouring satisfies (in :func:`encode`'s variables), to speed the solver.

    ``structure`` is :func:`redundant_structure`'s: every colour on each of its cliques,
    the merges, and "at most one colour" per vertex if it says so.

    Examples
    --------
    >>> triangle = [(0, 1), (1, 2), (0, 2)]
    >>> clauses = list(redundant_clauses(redundant_structure(3, triangle, [0, 1, 2], 3), 3, 3))
    >>> [-1, -2] in clauses  # vertex 0 does not take both colours 0 and 1
    True
    >>> [7, 4, 1] in clauses  # colour 0 appears on the triangle
    True
    """
    yield from _zykov().implied_clauses(structure["cliques"], structure["merges"], k)
    if structure["at_most_one"]:
        for v in range(n):
            for a in range(k):
                for b in range(a + 1, k):
                    yield [-(v * k + a + 1), -(v * k + b + 1)]


def _zykov() -> ModuleType:
    """:mod:`bbqmis.coloring.classical.zykov`, also when this file runs as a script, outside the package."""
    if __package__:
        from . import zykov

        return zykov
    import importlib.util  # only here: the worker's start-up stays short on every other question
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("_bbqmis_zykov", Path(__file__).with_name("zykov.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decode(model: Iterable[int], n: int, k: int) -> list[int]:
    """A colour per vertex from a satisfying assignment (the first true colour)."""
    colors = [-1] * n
    for literal in model:
        if literal > 0:
            v, c = divmod(literal - 1, k)
            if v < n and colors[v] < 0:
                colors[v] = c
    return colors


def _die_with_parent() -> None:
    """Leave SIGINT to the parent, and die with it (Linux), before anything else can take time."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when the solver stops
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _cap_memory(memory_bytes: int) -> None:
    """Cap the address space at ``memory_bytes`` (0: no cap; never above the hard limit)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if memory_bytes > 0 and (hard == resource.RLIM_INFINITY or memory_bytes < hard):
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, hard))


def main() -> None:
    """Read the problem from stdin and write one line per colour count tried."""
    _die_with_parent()
    problem = json.load(sys.stdin)
    _cap_memory(int(problem["memory_bytes"]))
    from pysat.solvers import Solver

    n, edges, clique = int(problem["n"]), problem["edges"], problem["clique"]
    implied, proof = bool(problem.get("implied", True)), problem.get("proof")
    for k in range(int(problem["upper"]) - 1, int(problem["lower"]) - 1, -1):
        structure = redundant_structure(n, edges, clique, k) if implied else dict(NO_STRUCTURE)
        with Solver(
            name=problem["solver"], bootstrap_with=encode(n, edges, clique, k), with_proof=bool(proof)
        ) as solver:
            solver.append_formula(redundant_clauses(structure, n, k))
            sat = bool(solver.solve())
            line: dict[str, object] = {"k": k, "sat": sat}
            if sat:
                line["colors"] = decode(solver.get_model(), n, k)
            elif proof:
                _write_proof(proof, solver.get_proof())
                line["implied"] = structure
        print(json.dumps(line), flush=True)
        if not sat:
            return


def _write_proof(path: str, lines: list[str]) -> None:
    """Write the solver's DRAT proof, a line per clause, to ``path``."""
    with open(path, "w", encoding="ascii") as file:
        file.writelines(line + "\n" for line in lines)


if __name__ == "__main__":
    main()
