"""Edge lists: one ``u v [weight]`` per line, separated by whitespace or commas.

A line that is not blank, a comment or a well-formed edge (or single vertex) is an
error naming its line: ``1,2`` is an edge, never a vertex called ``"1,2"``, and
``1;2`` is refused instead of read as one vertex.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import Any

import networkx as nx

from ._common import (
    INT_RE,
    MAX_INT_DIGITS,
    MAX_VERTICES,
    all_ints,
    check_lines,
    check_not_empty,
    check_text,
    check_vertex_count,
    format_error,
    relabel,
    show,
    show_value,
)

__all__ = ["parse_edgelist"]

#: A vertex label: letters, digits, ``_``, ``.``, ``+`` and ``-``.
LABEL_RE = re.compile(r"[\w.+-]+")

#: Two integers joined by dashes (``1-2``, ``1--2``): an edge in the wrong notation.
_JOINED_RE = re.compile(r"\d+-+\d+")


def _fields(content: str, line: str, where: tuple[str, int]) -> list[str]:
    """The tokens of a line without its comment: split on commas if it has any, else on whitespace."""
    if "," not in content:
        return content.split()
    fields = [field.strip() for field in content.split(",")]
    if not all(fields):
        raise format_error(*where, f"expected a value between every two commas, found {show(line)}")
    return fields


def _label(token: str, line: str, where: tuple[str, int]) -> int | str:
    """A vertex label: an ``int`` for an integer literal, else the token itself."""
    if token.isdecimal() and len(token) <= MAX_INT_DIGITS:  # the common case, without a regex
        return int(token)
    if not LABEL_RE.fullmatch(token) or _JOINED_RE.fullmatch(token):
        raise format_error(
            *where,
            f"expected vertex labels made of letters, digits, '_', '.', '+' or '-' and separated "
            f"by whitespace or a comma, found {show(token)} in {show(line)}",
        )
    if not INT_RE.fullmatch(token):
        return token
    if len(token) > MAX_INT_DIGITS:
        raise format_error(
            *where, f"expected an integer label of at most {MAX_INT_DIGITS} digits, found {show(token)}"
        )
    return int(token)


def parse_edgelist(
    lines: Iterable[str],
    *,
    source: str = "<string>",
    allow_empty: bool = False,
) -> nx.Graph:
    r"""Parse an edge list separated by whitespace or commas.

    Parameters
    ----------
    lines : iterable of str
        The lines of the file, with or without trailing newlines.
    source : str, default "<string>"
        Name of the input used in error messages and as ``graph.graph["name"]``.
    allow_empty : bool, default False
        Accept an input with no vertex (only blank lines and comments).

    Returns
    -------
    graph : networkx.Graph
        Undirected simple graph with nodes ``0..n-1``; node ``i`` has attribute
        ``label`` holding the original token, converted to ``int`` when it is an
        integer literal (``"7"``, ``"-2"``) and kept as ``str`` otherwise. When every
        label is an ``int`` the nodes follow the sorted labels; otherwise they follow
        the order of first appearance.

    Raises
    ------
    GraphFormatError
        If a line breaks one of the rules below, has a self-loop, the input names more
        than ``MAX_VERTICES`` vertices, or it is empty without ``allow_empty``. The
        message has the form ``"{source}:{lineno}: ..."`` and quotes the offending
        text (cut to 60 characters).
    InvalidParameterError
        If ``lines`` is one ``str`` or ``bytes`` (the whole text) instead of lines.

    Notes
    -----
    Each line holds one item; ``#`` starts a comment that runs to the end of the
    line, a line whose first non-blank character is ``%`` is a comment, and blank
    lines are ignored. A line with a comma is split on commas (spaces around them are
    ignored; an empty field is an error), any other line on whitespace (spaces, tabs):
    ``1 2``, ``1\t2``, ``1,2`` and ``1, 2`` are the same edge.

    - ``U`` declares vertex ``U`` (possibly isolated).
    - ``U V`` is an edge.
    - ``U V W`` is an edge with numeric weight ``W``, stored as the edge attribute
      ``weight`` (a ``float``).

    A label is made of letters, digits, ``_``, ``.``, ``+`` and ``-`` (integer labels
    have at most 64 digits); anything else, such as ``1;2``, ``a->b`` or ``1-2``, is an
    error, as is a line with more than 3 fields or a NUL character.

    Duplicate edges, in either direction, are merged silently; when they carry
    weights the last one wins. Integer tokens that spell the same number (``"1"``
    and ``"01"``) name the same vertex.

    Examples
    --------
    >>> g = parse_edgelist(["# labels are sorted when all are integers",
    ...                     "10 20", "20,10", "5"])
    >>> [g.nodes[i]["label"] for i in g], sorted(g.edges)
    ([5, 10, 20], [(1, 2)])
    >>> try:
    ...     parse_edgelist(["1 2", "a a"])
    ... except ValueError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    <string>:2: expected two distinct vertices, found a self-loop on vertex 'a'
    (a graph with a self-loop cannot be coloured)
    >>> try:
    ...     parse_edgelist(["1;2"])
    ... except ValueError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    <string>:1: expected vertex labels made of letters, digits, '_', '.', '+' or '-' and
    separated by whitespace or a comma, found '1;2' in '1;2'
    """
    check_lines(lines)
    seen: dict[Hashable, None] = {}
    edges: dict[frozenset, dict[str, Any]] = {}
    for lineno, raw in enumerate(lines, start=1):
        content = raw.split("#", 1)[0]
        line = raw.strip()
        if not content.strip() or line.startswith("%"):
            continue
        where = (source, lineno)
        check_text(line, *where)
        tokens = _fields(content, line, where)
        if len(tokens) > 3:
            raise format_error(
                *where,
                f"expected 1 or 2 vertex labels and an optional numeric weight, "
                f"found {len(tokens)} tokens: {show(line)}",
            )
        labels = [_label(t, line, where) for t in tokens[:2]]
        data: dict[str, Any] = {}
        if len(tokens) == 3:
            try:
                data["weight"] = float(tokens[2])
            except ValueError:
                raise format_error(
                    *where, f"expected a numeric edge weight as the third token, found {show(tokens[2])}"
                ) from None
        if len(labels) == 2 and labels[0] == labels[1]:
            raise format_error(
                *where,
                f"expected two distinct vertices, found a self-loop on vertex "
                f"{show_value(labels[0])} "
                f"(a graph with a self-loop cannot be coloured)",
            )
        for label in labels:
            seen.setdefault(label, None)
        if len(seen) > MAX_VERTICES:
            check_vertex_count(len(seen), *where, "distinct labels so far")
        if len(labels) == 2:
            edges[frozenset(labels)] = data
    check_not_empty(
        len(seen), source, None, "no vertex (only blank lines and comments)", allow_empty=allow_empty
    )
    order = list(seen)
    return relabel(order, edges, source, sort=all_ints(order))
