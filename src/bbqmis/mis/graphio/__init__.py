"""Read graphs from DIMACS, edge-list, GraphML and node-link JSON files.

Every reader returns an undirected simple :class:`networkx.Graph` whose nodes are
the integers ``0..n-1``; each node carries the attribute ``label`` holding the label
it had in the file. ``graph.graph["name"]`` is the file stem (or the ``source`` given
to a parser).

Reading is split the networkx way: :func:`parse_dimacs` and :func:`parse_edgelist`
are pure functions of an iterable of lines, and :func:`read_graph` opens a file,
picks a format and passes the lines on. Malformed input raises
:class:`~bbqmis.errors.GraphFormatError` with a message of the form
``"{source}:{lineno}: {what was expected}, found {what was found}"``.

Self-loops are rejected in every format: a graph with a self-loop has no proper
colouring.
"""

from __future__ import annotations

import os
from pathlib import Path

import networkx as nx

from backends.errors import InvalidParameterError

from ._common import format_error
from .dimacs import parse_dimacs
from .edgelist import parse_edgelist
from .graphml import read_graphml_file
from .nodelink import read_nodelink_file

__all__ = ["read_graph", "parse_dimacs", "parse_edgelist"]

#: File extensions (lower case, with the dot) mapped to format names.
_EXTENSIONS = {
    ".col": "dimacs",
    ".dimacs": "dimacs",
    ".txt": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".el": "edgelist",
    ".graphml": "graphml",
    ".json": "json",
}
_FORMATS = ("dimacs", "edgelist", "graphml", "json")


def _sniff(path: Path) -> str:
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            line = raw.strip()
            if not line or line.startswith(("#", "c")):
                continue
            return "dimacs" if line.split()[0] == "p" else "edgelist"
    return "edgelist"


def read_graph(path: str | os.PathLike[str], format: str | None = None) -> nx.Graph:
    r"""Read a graph file into an undirected simple graph with nodes ``0..n-1``.

    Parameters
    ----------
    path : str or path-like
        The file to read.
    format : {"dimacs", "edgelist", "graphml", "json"} or None, default None
        File format. ``None`` picks it from the extension: ``.col`` and ``.dimacs``
        are DIMACS; ``.txt``, ``.edges``, ``.edgelist`` and ``.el`` are edge lists;
        ``.graphml`` is GraphML; ``.json`` is node-link JSON (with either a
        ``"links"`` or an ``"edges"`` key). Any other extension is sniffed: if the
        first line that is neither blank nor a comment (starting with ``c`` or ``#``)
        has ``p`` as its first token the file is DIMACS, otherwise an edge list.

    Returns
    -------
    graph : networkx.Graph
        Nodes ``0..n-1``, each with attribute ``label`` holding its original label
        (see :func:`parse_dimacs` and :func:`parse_edgelist`; for GraphML and JSON
        the original node id, with GraphML ids turned into ``int`` when all of them
        are integers). Nodes follow the sorted labels when all are ``int``,
        otherwise the file's order (DIMACS: vertex number). Directed and multi-edge
        GraphML/JSON input is made undirected and simple; only the ``weight`` edge
        attribute is kept. ``graph.graph["name"]`` is the file stem.

    Raises
    ------
    GraphFormatError
        If the file is malformed or has a self-loop; the message names the file
        and, where known, the line.
    InvalidParameterError
        If ``format`` is not one of the names above.
    FileNotFoundError
        If ``path`` does not exist (the message names it).

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
    if format is not None and format not in _FORMATS:
        raise InvalidParameterError(
            f"The 'format' parameter of read_graph must be one of "
            f"{', '.join(map(repr, _FORMATS))} or None. Got {format!r} instead."
        )
    try:
        fmt = format or _EXTENSIONS.get(path.suffix.lower()) or _sniff(path)
        if fmt == "graphml":
            graph = read_graphml_file(path, source)
        elif fmt == "json":
            graph = read_nodelink_file(path, source)
        else:
            parser = parse_dimacs if fmt == "dimacs" else parse_edgelist
            with open(path, encoding="utf-8") as fh:
                graph = parser(fh, source=source)
    except UnicodeDecodeError as exc:
        raise format_error(
            source,
            None,
            f"expected UTF-8 text, found byte {exc.object[exc.start]:#04x} at offset {exc.start}",
        ) from exc
    graph.graph["name"] = path.stem
    return graph
