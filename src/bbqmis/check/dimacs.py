"""The checker's own DIMACS reader: ``p edge N M`` and ``e U V`` lines into adjacency sets and an edge hash.

Examples
--------
>>> graph = parse_dimacs(["c a triangle", "p edge 3 3", "e 1 2", "e 2 3", "e 1 3"])
>>> graph.vertices, graph.edges, graph.adjacent("1", "3")
(3, 3, True)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .errors import UnreadableInput

__all__ = ["DimacsGraph", "parse_dimacs", "read_dimacs"]


@dataclass
class DimacsGraph:
    """A graph read by :func:`parse_dimacs`: vertices ``"1"..."n"``, adjacency sets, edge hash.

    Examples
    --------
    >>> graph = parse_dimacs(["p edge 2 1", "e 1 2"])
    >>> graph.adjacent("1", "2"), graph.adjacent("1", "1"), graph.names
    (True, False, ['1', '2'])
    """

    vertices: int
    neighbours: dict[str, set[str]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The vertex names, ``"1"`` to ``"n"``."""
        return [str(i) for i in range(1, self.vertices + 1)]

    @property
    def edges(self) -> int:
        """The number of distinct edges."""
        return sum(len(n) for n in self.neighbours.values()) // 2

    @property
    def sha256(self) -> str:
        r"""SHA-256 of the sorted lines ``"a b\n"`` (``a < b`` as strings), one per edge."""
        lines = sorted(f"{a} {b}\n" for a, near in self.neighbours.items() for b in near if a < b)
        return hashlib.sha256("".join(lines).encode()).hexdigest()

    def adjacent(self, a: str, b: str) -> bool:
        """Whether ``a`` and ``b`` are joined by an edge.

        Examples
        --------
        >>> parse_dimacs(["p edge 3 1", "e 3 1"]).adjacent("1", "3")
        True
        """
        return b in self.neighbours.get(a, ())

    def missing_edge(self, vertices: Sequence[str]) -> tuple[str, str] | None:
        """The first pair of ``vertices`` (in their order) that is not an edge; None for a clique.

        Examples
        --------
        >>> parse_dimacs(["p edge 3 2", "e 1 2", "e 2 3"]).missing_edge(["1", "2", "3"])
        ('1', '3')
        """
        for i, a in enumerate(vertices):
            for b in vertices[i + 1 :]:
                if not self.adjacent(a, b):
                    return a, b
        return None


def parse_dimacs(lines: Iterable[str], source: str = "<lines>") -> DimacsGraph:
    """Parse ``c`` comments, one ``p edge N M`` (or ``p col``) header and ``e U V`` lines.

    Raises
    ------
    UnreadableInput
        Naming ``source`` and the line.

    Examples
    --------
    >>> parse_dimacs(["e 1 2"], "g.col")
    Traceback (most recent call last):
    ...
    bbqmis.check.errors.UnreadableInput: g.col line 1: an edge before the 'p edge N M' header
    """
    graph: DimacsGraph | None = None
    for number, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0] == "c":
            continue
        where = f"{source} line {number}"
        if words[0] == "p":
            if graph is not None or len(words) != 4 or words[1] not in ("edge", "col"):
                raise UnreadableInput(f"{where}: expected one header 'p edge N M', got {line.strip()!r}")
            graph = DimacsGraph(_number(words[2], where))
            graph.neighbours = {name: set() for name in graph.names}
        elif words[0] == "e":
            if graph is None:
                raise UnreadableInput(f"{where}: an edge before the 'p edge N M' header")
            _add_edge(graph, words, where)
        else:
            raise UnreadableInput(f"{where}: expected a 'c', 'p' or 'e' line, got {line.strip()[:40]!r}")
    if graph is None:
        raise UnreadableInput(f"{source}: no 'p edge N M' header")
    return graph


def _number(word: str, where: str) -> int:
    if not word.isdigit() or len(word) > 9:
        raise UnreadableInput(f"{where}: expected a vertex count or number, got {word!r}")
    return int(word)


def _add_edge(graph: DimacsGraph, words: list[str], where: str) -> None:
    if len(words) != 3:
        raise UnreadableInput(f"{where}: expected 'e U V'")
    a, b = (str(_number(word, where)) for word in words[1:])
    for vertex in (a, b):
        if vertex not in graph.neighbours:
            raise UnreadableInput(f"{where}: vertex {vertex} is not in 1..{graph.vertices}")
    if a == b:
        raise UnreadableInput(f"{where}: a self-loop at vertex {a}: no colouring exists")
    graph.neighbours[a].add(b)
    graph.neighbours[b].add(a)


def read_dimacs(path: str | os.PathLike) -> DimacsGraph:
    """Read a DIMACS ``.col`` file (see :func:`parse_dimacs`).

    Examples
    --------
    >>> read_dimacs("no/such/file.col")
    Traceback (most recent call last):
    ...
    bbqmis.check.errors.UnreadableInput: no/such/file.col: cannot read the graph: No such file or directory
    """
    try:
        with open(path, encoding="utf-8") as file:
            return parse_dimacs(file, os.fspath(path))
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise UnreadableInput(f"{os.fspath(path)}: cannot read the graph: {reason}") from None
