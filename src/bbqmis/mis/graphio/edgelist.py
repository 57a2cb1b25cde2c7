"""Whitespace-separated edge lists: one ``u v [weight]`` per line."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import networkx as nx

from ._common import INT_RE, all_ints, format_error, relabel

__all__ = ["parse_edgelist"]


def _token_label(token: str) -> int | str:
    return int(token) if INT_RE.fullmatch(token) else token


def parse_edgelist(lines: Iterable[str], *, source: str = "<string>") -> nx.Graph:
    """Parse a whitespace-separated edge list.

    Parameters
    ----------
    lines : iterable of str
        The lines of the file, with or without trailing newlines.
    source : str, default "<string>"
        Name of the input used in error messages and as ``graph.graph["name"]``.

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
        If a line has more than 3 tokens, a non-numeric third token, or a
        self-loop. The message has the form ``"{source}:{lineno}: ..."``.

    Notes
    -----
    Each line holds one item; ``#`` starts a comment that runs to the end of the
    line, and blank lines are ignored.

    - ``U`` declares vertex ``U`` (possibly isolated).
    - ``U V`` is an edge.
    - ``U V W`` is an edge with numeric weight ``W``, stored as the edge attribute
      ``weight`` (a ``float``).

    Duplicate edges, in either direction, are merged silently; when they carry
    weights the last one wins. Integer tokens that spell the same number (``"1"``
    and ``"01"``) name the same vertex.

    Examples
    --------
    >>> g = parse_edgelist(["# labels are sorted when all are integers",
    ...                     "10 20", "20 10", "5"])
    >>> [g.nodes[i]["label"] for i in g], sorted(g.edges)
    ([5, 10, 20], [(1, 2)])
    >>> try:
    ...     parse_edgelist(["1 2", "a a"])
    ... except ValueError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    <string>:2: expected two distinct vertices, found a self-loop on vertex 'a'
    (a graph with a self-loop cannot be coloured)
    """
    seen: dict[Hashable, None] = {}
    edges: dict[frozenset, dict[str, Any]] = {}
    for lineno, raw in enumerate(lines, start=1):
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        if len(tokens) > 3:
            raise format_error(
                source,
                lineno,
                f"expected 1 or 2 vertex labels and an optional numeric weight, "
                f"found {len(tokens)} tokens: {raw.strip()!r}",
            )
        labels = [_token_label(t) for t in tokens[:2]]
        data: dict[str, Any] = {}
        if len(tokens) == 3:
            try:
                data["weight"] = float(tokens[2])
            except ValueError:
                raise format_error(
                    source,
                    lineno,
                    f"expected a numeric edge weight as the third token, found {tokens[2]!r}",
                ) from None
        if len(labels) == 2 and labels[0] == labels[1]:
            raise format_error(
                source,
                lineno,
                f"expected two distinct vertices, found a self-loop on vertex "
                f"{labels[0]!r} (a graph with a self-loop cannot be coloured)",
            )
        for label in labels:
            seen.setdefault(label, None)
        if len(labels) == 2:
            edges[frozenset(labels)] = data
    order = list(seen)
    return relabel(order, edges, source, sort=all_ints(order))
