"""What the graph readers share: limits, error messages, file access, relabelling, networkx conversion.

Every failure becomes a :class:`~bbqmis.errors.GraphFormatError` whose message is one line
that starts with the file name (and ``:line`` where known). The limits are checked before
the output graph is built, so a 25-byte header cannot make a reader allocate gigabytes.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import networkx as nx

from ..errors import GraphFormatError, InvalidParameterError

__all__ = [
    "INT_RE",
    "ISOLATED_FACTOR",
    "ISOLATED_FLOOR",
    "MAX_INT_DIGITS",
    "MAX_VERTICES",
    "all_ints",
    "check_file",
    "check_isolated",
    "check_lines",
    "check_not_empty",
    "check_text",
    "check_vertex_count",
    "decode",
    "format_error",
    "from_networkx",
    "read_bytes",
    "read_lines",
    "relabel",
    "show",
    "show_value",
]

#: A token that is an integer.
INT_RE = re.compile(r"[+-]?\d+")

#: No graph may have more vertices than this, whatever the options; checked before
#: anything of that size is built.
MAX_VERTICES = 10_000_000

#: A DIMACS header may declare up to ``max(ISOLATED_FLOOR, ISOLATED_FACTOR * t)`` vertices
#: that no edge touches, ``t`` being the number of vertices the edges do touch; more is
#: an error unless the caller passes ``allow_isolated=True``.
ISOLATED_FLOOR = 1000
ISOLATED_FACTOR = 2

#: Integer tokens (labels, counts) longer than this many digits are refused before any
#: conversion (Python refuses ``int()`` of more than 4300 digits anyway).
MAX_INT_DIGITS = 64

#: How much of an offending text a message quotes.
SHOW_CHARS = 60


def show(text: str, limit: int = SHOW_CHARS) -> str:
    """``repr(text)``, cut to ``limit`` characters with the full length noted when longer."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def show_value(value: object, limit: int = SHOW_CHARS) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}..."


def check_lines(lines: object) -> None:
    """Refuse a ``str`` or ``bytes`` as ``lines``: iterating it would give characters, not lines.

    Raises
    ------
    InvalidParameterError
        A ``TypeError`` (and ``ValueError``) naming ``lines``.
    """
    if isinstance(lines, str | bytes | bytearray):
        raise InvalidParameterError(
            f"lines must be an iterable of lines, got one {type(lines).__name__}; "
            "pass text.splitlines() or an open file"
        )


def format_error(source: str, lineno: int | None, what: str) -> GraphFormatError:
    """A :class:`GraphFormatError` whose one-line message starts with ``source:lineno:``."""
    where = f"{source}:{lineno}" if lineno is not None else source
    return GraphFormatError(" ".join(f"{where}: {what}".splitlines()))


def check_vertex_count(n: int, source: str, lineno: int | None, found: str) -> None:
    """Refuse ``n > MAX_VERTICES``; ``found`` says where the count comes from."""
    if n > MAX_VERTICES:
        raise format_error(
            source, lineno, f"expected at most MAX_VERTICES={MAX_VERTICES} vertices, found {n} ({found})"
        )


def check_not_empty(n: int, source: str, lineno: int | None, found: str, *, allow_empty: bool) -> None:
    """Refuse a graph with no vertex unless ``allow_empty``; ``found`` describes the input."""
    if n == 0 and not allow_empty:
        raise format_error(
            source,
            lineno,
            f"expected at least one vertex, found {found}; pass allow_empty=True "
            f"(command line: --allow-empty) to accept an empty graph",
        )


def check_isolated(
    n: int,
    touched: int,
    source: str,
    lineno: int,
    header: str,
    *,
    allow_isolated: bool,
) -> None:
    """Refuse a declared vertex count far beyond the vertices the edges touch.

    Up to ``max(ISOLATED_FLOOR, ISOLATED_FACTOR * touched)`` isolated vertices are
    accepted; more only with ``allow_isolated``.
    """
    isolated = n - touched
    limit = max(ISOLATED_FLOOR, ISOLATED_FACTOR * touched)
    if isolated > limit and not allow_isolated:
        raise format_error(
            source,
            lineno,
            f"expected at most max({ISOLATED_FLOOR}, {ISOLATED_FACTOR} x {touched} vertices in "
            f"edges) = {limit} isolated vertices, found {isolated}: the header {show(header)} "
            f"declares {n} vertices but the edges touch only {touched}; pass allow_isolated=True "
            f"(command line: --allow-isolated) if they are intended",
        )


# ---------------------------------------------------------------- files


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "a directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or type(exc).__name__


def _os_error(source: str, exc: OSError) -> GraphFormatError:
    return format_error(source, None, f"expected a readable graph file, found {_os_reason(exc)}")


def check_file(path: Path, source: str) -> None:
    """Refuse a ``path`` that is missing, unreadable or not a regular file.

    Directories, FIFOs and devices are refused before ``open``: reading ``/dev/zero``
    would never end and a FIFO could block forever.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise _os_error(source, exc) from exc
    if stat.S_ISDIR(mode):
        raise format_error(source, None, "expected a readable graph file, found a directory")
    if not stat.S_ISREG(mode):
        raise format_error(source, None, "expected a readable graph file, found a FIFO, socket or device")


def _open(path: Path, source: str) -> BinaryIO:
    """``path`` opened in binary mode, after :func:`check_file`."""
    check_file(path, source)
    try:
        return open(path, "rb")
    except OSError as exc:
        raise _os_error(source, exc) from exc


def decode(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped); errors name the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        start = exc.start + (3 if data.startswith(codecs.BOM_UTF8) else 0)
        lineno = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1)
        raise format_error(
            source, lineno, f"expected UTF-8 text, found byte {data[start]:#04x} at byte {column + 1}"
        ) from None


def read_bytes(path: Path, source: str) -> bytes:
    """The whole content of the regular file ``path``."""
    with _open(path, source) as fh:
        try:
            data: bytes = fh.read()
        except OSError as exc:
            raise _os_error(source, exc) from exc
    return data


def read_lines(path: Path, source: str) -> Iterator[str]:
    """The lines of the regular file ``path`` as UTF-8 text, decoded one line at a time.

    Decoding line by line lets an encoding error name its line; a leading byte-order
    mark is dropped.
    """
    with _open(path, source) as fh:
        lineno = 0
        while True:
            try:
                raw = fh.readline()
            except OSError as exc:
                raise _os_error(source, exc) from exc
            if not raw:
                return
            lineno += 1
            try:
                yield raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                offset = 3 if lineno == 1 and raw.startswith(codecs.BOM_UTF8) else 0
                raise format_error(
                    source,
                    lineno,
                    f"expected UTF-8 text, found byte {raw[exc.start + offset]:#04x} "
                    f"at byte {exc.start + offset + 1}",
                ) from None


def check_text(line: str, source: str, lineno: int) -> None:
    """Refuse a NUL character, the mark of a binary file."""
    column = line.find("\x00")
    if column >= 0:
        raise format_error(
            source, lineno, f"expected text, found a NUL character at column {column + 1} (a binary file?)"
        )


# ---------------------------------------------------------------- graphs


def relabel(
    labels: list[Any],
    edges: dict[frozenset, dict[str, Any]],
    name: str,
    *,
    sort: bool,
) -> nx.Graph:
    """Build the output graph: nodes 0..n-1 with ``label``, edges with their data.

    ``labels`` is in order of first appearance; ``sort`` sorts it first. The graph is
    built from the node and edge lists only (memory linear in their sizes), and the
    graph is the one ``add_edges_from`` makes, adjacency order included. Each data dict
    of ``edges`` becomes its edge's attribute dict (not copied): the parsers make a
    fresh one per edge.
    """
    order = sorted(labels) if sort else list(labels)
    index = {label: i for i, label in enumerate(order)}
    graph = nx.Graph(name=name)
    graph.add_nodes_from((i, {"label": label}) for i, label in enumerate(order))
    # Both entries of each edge set directly: every end is a node, and each edge comes once
    # (a frozenset key). A third of add_edges_from's time, the largest part of reading.
    adjacency = graph._adj
    for (u, v), data in edges.items():
        i, j = index[u], index[v]
        adjacency[i][j] = adjacency[j][i] = data
    return graph


def all_ints(labels: Iterable[Hashable]) -> bool:
    """Whether every label is an ``int`` (bools excluded)."""
    return all(isinstance(x, int) and not isinstance(x, bool) for x in labels)


def _canonical_int(x: object) -> bool:
    return (
        isinstance(x, str)
        and len(x) <= MAX_INT_DIGITS
        and INT_RE.fullmatch(x) is not None
        and str(int(x)) == x
    )


def from_networkx(graph: nx.Graph, source: str, *, int_ids: bool) -> nx.Graph:
    """Turn a graph read by networkx into the output form.

    ``int_ids`` converts the node ids to ``int`` when every id is a canonical integer
    string of at most :data:`MAX_INT_DIGITS` digits (GraphML stores ids as strings).
    """
    loop = next(iter(nx.selfloop_edges(graph)), None)
    if loop is not None:
        raise format_error(
            source,
            None,
            f"expected two distinct vertices on every edge, found a self-loop on node "
            f"{show_value(loop[0])} (a graph with a self-loop cannot be coloured)",
        )
    labels: list[Hashable] = list(graph.nodes)
    if int_ids and labels and all(_canonical_int(x) for x in labels):
        mapping: dict[Hashable, Hashable] = {x: int(str(x)) for x in labels}
        labels = list(mapping.values())
    else:
        mapping = {x: x for x in labels}
    edges: dict[frozenset, dict[str, Any]] = {}
    for u, v, d in graph.edges(data=True):
        edges[frozenset((mapping[u], mapping[v]))] = {"weight": d["weight"]} if "weight" in d else {}
    return relabel(labels, edges, source, sort=all_ints(labels))
