"""Read graphs from DIMACS, edge-list, GraphML and node-link JSON files.

Every reader returns an undirected simple :class:`networkx.Graph` whose nodes are
the integers ``0..n-1``; each node carries the attribute ``label`` holding the label
it had in the file. ``graph.graph["name"]`` is the file stem (or the ``source`` given
to a parser).

Reading is split the networkx way: :func:`parse_dimacs`, :func:`parse_edgelist`,
:func:`parse_graphml` and :func:`parse_nodelink` are pure functions of lines or text,
and :func:`read_graph` opens a file, picks a format from the extension (or its
``format``) and passes the content on. Any bad input, including a missing or
unreadable file, bytes that are not UTF-8 and nesting too deep to parse, raises
:class:`~bbqmis.errors.GraphFormatError` with a one-line message of the form
``"{source}:{lineno}: {what was expected}, found {what was found}"`` (without
``:{lineno}`` where no line is known); no other exception escapes for any file.

Limits hold before anything large is built: at most :data:`MAX_VERTICES` vertices in
every format; an empty graph is an error unless ``allow_empty``; a DIMACS header
declaring more than ``max(1000, 2 t)`` vertices that no edge touches (``t`` the
number the edges touch) is an error unless ``allow_isolated``. Graphs are built from
node and edge lists, so memory grows with the vertices and edges, never with ``n**2``.

Self-loops are rejected in every format: a graph with a self-loop has no proper
colouring.
"""

from __future__ import annotations

import os
from pathlib import Path

import networkx as nx

from backends.utils.errors import InvalidParameterError

from ._common import (
    ISOLATED_FACTOR,
    ISOLATED_FLOOR,
    MAX_VERTICES,
    check_file,
    decode,
    format_error,
    read_bytes,
    read_lines,
)
from .dimacs import parse_dimacs
from .edgelist import parse_edgelist
from .graphml import parse_graphml
from .nodelink import parse_nodelink

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "ISOLATED_FACTOR",
    "ISOLATED_FLOOR",
    "MAX_VERTICES",
    "parse_dimacs",
    "parse_edgelist",
    "parse_graphml",
    "parse_nodelink",
    "read_graph",
]

#: File extensions (lower case, with the dot) mapped to format names.
EXTENSIONS = {
    ".col": "dimacs",
    ".dimacs": "dimacs",
    ".txt": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".el": "edgelist",
    ".graphml": "graphml",
    ".json": "json",
}

#: Names accepted by ``read_graph(format=...)``; ``"nodelink"`` is another name for ``"json"``.
FORMATS = ("dimacs", "edgelist", "graphml", "json", "nodelink")


def _format_from_extension(path: Path, source: str) -> str:
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt is not None:
        return fmt
    known = ", ".join(
        f"{' '.join(ext for ext, f in EXTENSIONS.items() if f == name)} ({name})"
        for name in dict.fromkeys(EXTENSIONS.values())
    )
    found = f"{path.suffix!r}" if path.suffix else "no extension"
    raise format_error(
        source,
        None,
        f"expected a known graph file extension, {known}; found {found}; pass format= one of "
        f"{', '.join(map(repr, FORMATS))} (command line: --format) to read it anyway",
    )


def read_graph(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    allow_empty: bool = False,
    allow_isolated: bool = False,
) -> nx.Graph:
    r"""Read a graph file into an undirected simple graph with nodes ``0..n-1``.

    Parameters
    ----------
    path : str or path-like
        The file to read; it must be a regular file (not a directory, FIFO or device).
    format : {"dimacs", "edgelist", "graphml", "json", "nodelink"} or None, default None
        File format (``"nodelink"`` is the same as ``"json"``). ``None`` picks it
        from the extension, case-insensitively: ``.col`` and ``.dimacs`` are DIMACS;
        ``.txt``, ``.edges``, ``.edgelist`` and ``.el`` are edge lists; ``.graphml``
        is GraphML; ``.json`` is node-link JSON (with either a ``"links"`` or an
        ``"edges"`` key). Any other extension, or none, is an error: pass ``format``.
    allow_empty : bool, default False
        Accept a graph with no vertex (an empty edge list, ``p edge 0 0``, ...).
    allow_isolated : bool, default False
        Accept a DIMACS header that declares more than ``max(1000, 2 t)`` vertices
        no edge touches, ``t`` being the number of vertices the edges do touch. The
        other formats list every vertex explicitly, so the option does not concern
        them. ``MAX_VERTICES`` holds all the same; the graph costs about 0.5 KB per
        vertex, so 10,000,000 vertices take about 5 GB.

    Returns
    -------
    graph : networkx.Graph
        Nodes ``0..n-1``, each with attribute ``label`` holding its original label
        (see :func:`parse_dimacs`, :func:`parse_edgelist`, :func:`parse_graphml` and
        :func:`parse_nodelink`). Nodes follow the sorted labels when all are ``int``,
        otherwise the file's order (DIMACS: vertex number). Directed and multi-edge
        GraphML/JSON input is made undirected and simple; only the ``weight`` edge
        attribute is kept. ``graph.graph["name"]`` is the file stem.

    Raises
    ------
    GraphFormatError
        If the file does not exist, cannot be read, is not a regular file, has an
        unknown extension and no ``format``, is not UTF-8 text (DIMACS, edge list,
        JSON), is malformed, has a self-loop, has more than ``MAX_VERTICES``
        vertices, is empty without ``allow_empty`` or declares too many isolated
        vertices without ``allow_isolated``. The message is one line starting with
        the file name and, where known, ``:line``.
    InvalidParameterError
        If ``format`` is not one of the names above.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = pathlib.Path(tmp) / "path.col"
    ...     _ = p.write_text("p edge 3 2\ne 1 2\ne 2 3\n")
    ...     g = read_graph(p)
    >>> g.graph["name"], g.number_of_edges(), g.nodes[2]["label"]
    ('path', 2, 3)
    """
    path = Path(path)
    source = str(path)
    if format is not None and format not in FORMATS:
        raise InvalidParameterError(
            f"The 'format' parameter of read_graph must be one of "
            f"{', '.join(map(repr, FORMATS))} or None. Got {format!r} instead."
        )
    fmt = "json" if format == "nodelink" else format
    try:
        check_file(path, source)  # first: a missing file is reported as such whatever its extension
        if fmt is None:
            fmt = _format_from_extension(path, source)
        if fmt == "dimacs":
            graph = parse_dimacs(
                read_lines(path, source),
                source=source,
                allow_empty=allow_empty,
                allow_isolated=allow_isolated,
            )
        elif fmt == "edgelist":
            graph = parse_edgelist(read_lines(path, source), source=source, allow_empty=allow_empty)
        elif fmt == "graphml":
            graph = parse_graphml(read_bytes(path, source), source=source, allow_empty=allow_empty)
        else:
            text = decode(read_bytes(path, source), source)
            graph = parse_nodelink(text, source=source, allow_empty=allow_empty)
    except RecursionError:
        raise format_error(
            source, None, "expected input nested less deeply, found too deep a nesting"
        ) from None
    except MemoryError:
        raise format_error(source, None, "ran out of memory while reading; the graph is too large") from None
    graph.graph["name"] = path.stem
    return graph
