"""The DIMACS colouring format (``.col``): ``p edge N M`` and ``e U V`` lines.

The header's ``N`` is checked against :data:`~._common.MAX_VERTICES` when the header is
read, and against the vertices the edges touch before the graph is built, so a short
file cannot declare millions of vertices by accident.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

from ._common import (
    INT_RE,
    MAX_INT_DIGITS,
    check_isolated,
    check_lines,
    check_not_empty,
    check_text,
    check_vertex_count,
    format_error,
    relabel,
    show,
)

__all__ = ["parse_dimacs"]

_DIMACS_PROBLEMS = ("edge", "col")


def parse_dimacs(
    lines: Iterable[str],
    *,
    source: str = "<string>",
    allow_empty: bool = False,
    allow_isolated: bool = False,
) -> nx.Graph:
    """Parse a graph in the DIMACS colouring (``.col``) format.

    Parameters
    ----------
    lines : iterable of str
        The lines of the file, with or without trailing newlines.
    source : str, default "<string>"
        Name of the input used in error messages and as ``graph.graph["name"]``.
    allow_empty : bool, default False
        Accept ``p edge 0 0`` (a graph with no vertex).
    allow_isolated : bool, default False
        Accept a header that declares more than ``max(1000, 10 t)`` vertices that no
        edge touches, ``t`` being the number of vertices the edges touch.

    Returns
    -------
    graph : networkx.Graph
        Undirected simple graph with nodes ``0..n-1``; node ``i`` has attribute
        ``label`` equal to the DIMACS vertex number ``i + 1``. Vertices that appear
        in no edge are kept (``n`` comes from the header).

    Raises
    ------
    GraphFormatError
        If the input breaks one of the rules below. The message has the form
        ``"{source}:{lineno}: ..."`` and names what was expected and what was found.
    InvalidParameterError
        If ``lines`` is one ``str`` or ``bytes`` (the whole text) instead of lines.

    Notes
    -----
    The format, one item per line:

    - A line starting with ``c`` is a comment; comments and blank lines may appear
      anywhere.
    - ``p edge N M`` (``p col N M`` is accepted too) is the header. Exactly one is
      required, before any ``e`` line; ``N`` and ``M`` are non-negative integers,
      ``N`` at most ``MAX_VERTICES`` (10,000,000) and ``N >= 1`` unless ``allow_empty``.
    - ``e U V`` is an edge, with ``1 <= U, V <= N`` and ``U != V``.

    Duplicate edges, including ``e U V`` next to ``e V U``, are merged silently:
    several benchmark files list every edge in both directions and count both in
    ``M``. For that reason ``M`` is checked only as a lower bound: the input is
    reported as truncated when it holds fewer ``e`` lines than ``M``. More ``e``
    lines than ``M`` are accepted, and the number of distinct edges may be below
    ``M`` as long as there are at least ``M`` ``e`` lines.

    An input with no header at all is reported at line 1; an ``e`` line before the
    header is reported at that line. A header that declares many more vertices than
    the edges touch (more than ``max(1000, 10 t)`` isolated vertices) is reported at
    the header line unless ``allow_isolated``: ``p edge 10000000 1`` is far more often
    a typo than a graph. A NUL character is reported as a binary file.

    Examples
    --------
    >>> g = parse_dimacs(["c triangle plus an isolated vertex", "p edge 4 3",
    ...                   "e 1 2", "e 2 3", "e 3 1"])
    >>> g.number_of_nodes(), g.number_of_edges()
    (4, 3)
    >>> g.nodes[0]["label"], sorted(g.edges)
    (1, [(0, 1), (0, 2), (1, 2)])
    >>> parse_dimacs(["p edge 2 1", "e 1 3"])
    Traceback (most recent call last):
        ...
    bbqmis.mis.errors.GraphFormatError: <string>:2: expected a vertex between 1 and n=2, found 3
    """
    check_lines(lines)
    n: int | None = None
    m = header_line = edge_lines = lineno = 0
    header = ""
    edges: dict[frozenset, dict[str, Any]] = {}
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        check_text(line, source, lineno)
        tokens = line.split()
        where = (source, lineno)
        if tokens[0] == "p":
            if n is not None:
                raise format_error(
                    *where,
                    f"expected a single 'p' header line, found a second one "
                    f"(the first is at line {header_line}): {show(line)}",
                )
            n, m = _header(tokens, line, where)
            header, header_line = line, lineno
        elif tokens[0] == "e":
            if n is None:
                raise format_error(
                    *where, f"expected a 'p edge N M' header before the first edge, found {show(line)}"
                )
            edges[_edge(tokens, line, n, where)] = {}
            edge_lines += 1
        else:
            raise format_error(*where, f"expected a line starting with 'c', 'p' or 'e', found {show(line)}")
    if n is None:
        raise format_error(source, 1, "expected a 'p edge N M' header line, found none")
    if edge_lines < m:
        raise format_error(
            source,
            lineno,
            f"expected at least {m} edge lines (header at line {header_line}), "
            f"found {edge_lines}; the input looks truncated",
        )
    check_not_empty(n, source, header_line, f"the header {show(header)}", allow_empty=allow_empty)
    touched = len(set().union(*edges)) if edges else 0
    check_isolated(n, touched, source, header_line, header, allow_isolated=allow_isolated)
    return relabel(list(range(1, n + 1)), edges, source, sort=False)


def _integer(token: str, what: str, where: tuple[str, int]) -> int:
    """``token`` as an int, or a :class:`GraphFormatError` at ``where`` naming ``what``."""
    if token.isdecimal() and len(token) <= MAX_INT_DIGITS:  # the common case, without a regex
        return int(token)
    if not INT_RE.fullmatch(token):
        raise format_error(*where, f"expected an integer {what}, found {show(token)}")
    if len(token) > MAX_INT_DIGITS:
        raise format_error(
            *where, f"expected an integer {what} of at most {MAX_INT_DIGITS} digits, found {show(token)}"
        )
    return int(token)


def _header(tokens: list[str], line: str, where: tuple[str, int]) -> tuple[int, int]:
    """``(N, M)`` of a ``p edge N M`` line."""
    if len(tokens) != 4:
        raise format_error(*where, f"expected 4 tokens 'p edge N M', found {len(tokens)}: {show(line)}")
    if tokens[1] not in _DIMACS_PROBLEMS:
        raise format_error(*where, f"expected problem type 'edge' or 'col', found {show(tokens[1])}")
    n = _integer(tokens[2], "vertex count", where)
    m = _integer(tokens[3], "edge count", where)
    for value, what in ((n, "vertex count"), (m, "edge count")):
        if value < 0:
            raise format_error(*where, f"expected a non-negative {what}, found {value}")
    check_vertex_count(n, *where, f"the header {show(line)}")
    return n, m


def _edge(tokens: list[str], line: str, n: int, where: tuple[str, int]) -> frozenset[int]:
    """The vertex pair of an ``e U V`` line, checked against ``1..n``."""
    if len(tokens) != 3:
        raise format_error(*where, f"expected 3 tokens 'e U V', found {len(tokens)}: {show(line)}")
    u = _integer(tokens[1], "vertex", where)
    v = _integer(tokens[2], "vertex", where)
    for w in (u, v):
        if not 1 <= w <= n:
            raise format_error(*where, f"expected a vertex between 1 and n={n}, found {w}")
    if u == v:
        raise format_error(
            *where,
            f"expected two distinct vertices, found a self-loop on vertex {u} "
            f"(a graph with a self-loop cannot be coloured)",
        )
    return frozenset((u, v))
