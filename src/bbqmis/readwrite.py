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

import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

import networkx as nx

from bbqmis.errors import GraphFormatError, InvalidParameterError

__all__ = ["read_graph", "parse_dimacs", "parse_edgelist"]

_INT_RE = re.compile(r"[+-]?\d+")

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
_DIMACS_PROBLEMS = ("edge", "col")


def _error(source: str, lineno: int | None, what: str) -> GraphFormatError:
    where = f"{source}:{lineno}" if lineno is not None else source
    return GraphFormatError(f"{where}: {what}")


def _relabel(
    labels: list[Hashable],
    edges: dict[frozenset, dict[str, Any]],
    name: str,
    *,
    sort: bool,
) -> nx.Graph:
    """Build the output graph: nodes 0..n-1 with ``label``, edges with their data.

    ``labels`` is in order of first appearance; ``sort`` sorts it first.
    """
    order = sorted(labels) if sort else list(labels)
    index = {label: i for i, label in enumerate(order)}
    graph = nx.Graph(name=name)
    graph.add_nodes_from((i, {"label": label}) for i, label in enumerate(order))
    for pair, data in edges.items():
        u, v = pair
        graph.add_edge(index[u], index[v], **data)
    return graph


# --------------------------------------------------------------------------- DIMACS


def parse_dimacs(lines: Iterable[str], *, source: str = "<string>") -> nx.Graph:
    """Parse a graph in the DIMACS colouring (``.col``) format.

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
        ``label`` equal to the DIMACS vertex number ``i + 1``. Vertices that appear
        in no edge are kept (``n`` comes from the header).

    Raises
    ------
    GraphFormatError
        If the input breaks one of the rules below. The message has the form
        ``"{source}:{lineno}: ..."`` and names what was expected and what was found.

    Notes
    -----
    The format, one item per line:

    - A line starting with ``c`` is a comment; comments and blank lines may appear
      anywhere.
    - ``p edge N M`` (``p col N M`` is accepted too) is the header. Exactly one is
      required, before any ``e`` line; ``N`` and ``M`` are non-negative integers.
    - ``e U V`` is an edge, with ``1 <= U, V <= N`` and ``U != V``.

    Duplicate edges, including ``e U V`` next to ``e V U``, are merged silently:
    several benchmark files list every edge in both directions and count both in
    ``M``. For that reason ``M`` is checked only as a lower bound: the input is
    reported as truncated when it holds fewer ``e`` lines than ``M``. More ``e``
    lines than ``M`` are accepted, and the number of distinct edges may be below
    ``M`` as long as there are at least ``M`` ``e`` lines.

    An input with no header at all is reported at line 1; an ``e`` line before the
    header is reported at that line.

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
    bbqmis.errors.GraphFormatError: <string>:2: expected a vertex between 1 and n=2, found 3
    """
    n: int | None = None
    m = 0
    header_line = 0
    edge_lines = 0
    lineno = 0
    edges: dict[frozenset, dict[str, Any]] = {}

    def integer(token: str, what: str) -> int:
        if not _INT_RE.fullmatch(token):
            raise _error(source, lineno, f"expected an integer {what}, found {token!r}")
        return int(token)

    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        tokens = line.split()
        kind = tokens[0]
        if kind == "p":
            if n is not None:
                raise _error(
                    source,
                    lineno,
                    f"expected a single 'p' header line, found a second one "
                    f"(the first is at line {header_line}): {line!r}",
                )
            if len(tokens) != 4:
                raise _error(
                    source,
                    lineno,
                    f"expected 4 tokens 'p edge N M', found {len(tokens)}: {line!r}",
                )
            if tokens[1] not in _DIMACS_PROBLEMS:
                raise _error(
                    source,
                    lineno,
                    f"expected problem type 'edge' or 'col', found {tokens[1]!r}",
                )
            n = integer(tokens[2], "vertex count")
            m = integer(tokens[3], "edge count")
            for value, what in ((n, "vertex count"), (m, "edge count")):
                if value < 0:
                    raise _error(source, lineno, f"expected a non-negative {what}, found {value}")
            header_line = lineno
        elif kind == "e":
            if n is None:
                raise _error(
                    source,
                    lineno,
                    f"expected a 'p edge N M' header before the first edge, found {line!r}",
                )
            if len(tokens) != 3:
                raise _error(
                    source,
                    lineno,
                    f"expected 3 tokens 'e U V', found {len(tokens)}: {line!r}",
                )
            u = integer(tokens[1], "vertex")
            v = integer(tokens[2], "vertex")
            for w in (u, v):
                if not 1 <= w <= n:
                    raise _error(source, lineno, f"expected a vertex between 1 and n={n}, found {w}")
            if u == v:
                raise _error(
                    source,
                    lineno,
                    f"expected two distinct vertices, found a self-loop on vertex {u} "
                    f"(a graph with a self-loop cannot be coloured)",
                )
            edge_lines += 1
            edges[frozenset((u, v))] = {}
        else:
            raise _error(
                source,
                lineno,
                f"expected a line starting with 'c', 'p' or 'e', found {line!r}",
            )

    if n is None:
        raise _error(source, 1, "expected a 'p edge N M' header line, found none")
    if edge_lines < m:
        raise _error(
            source,
            lineno,
            f"expected at least {m} edge lines (header at line {header_line}), "
            f"found {edge_lines}; the input looks truncated",
        )
    return _relabel(list(range(1, n + 1)), edges, source, sort=False)


# ------------------------------------------------------------------------ edge list


def _token_label(token: str) -> int | str:
    return int(token) if _INT_RE.fullmatch(token) else token


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
            raise _error(
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
                raise _error(
                    source,
                    lineno,
                    f"expected a numeric edge weight as the third token, found {tokens[2]!r}",
                ) from None
        if len(labels) == 2 and labels[0] == labels[1]:
            raise _error(
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
    return _relabel(order, edges, source, sort=_all_ints(order))


def _all_ints(labels: Iterable[Hashable]) -> bool:
    return all(isinstance(x, int) and not isinstance(x, bool) for x in labels)


# ------------------------------------------------------------------ GraphML and JSON


def _from_networkx(graph: nx.Graph, source: str, *, int_ids: bool) -> nx.Graph:
    """Turn a graph read by networkx into the output form.

    ``int_ids`` converts the node ids to ``int`` when every id is a canonical
    integer string (GraphML stores ids as strings).
    """
    loop = next(iter(nx.selfloop_edges(graph)), None)
    if loop is not None:
        raise _error(
            source,
            None,
            f"expected two distinct vertices on every edge, found a self-loop on node "
            f"{loop[0]!r} (a graph with a self-loop cannot be coloured)",
        )
    labels: list[Hashable] = list(graph.nodes)
    if int_ids and all(isinstance(x, str) and _INT_RE.fullmatch(x) for x in labels):
        converted = [int(x) for x in labels]
        if all(str(c) == x for c, x in zip(converted, labels, strict=True)):
            mapping = dict(zip(labels, converted, strict=True))
            labels = converted
        else:
            mapping = {x: x for x in labels}
    else:
        mapping = {x: x for x in labels}
    edges: dict[frozenset, dict[str, Any]] = {}
    for u, v, d in graph.edges(data=True):
        edges[frozenset((mapping[u], mapping[v]))] = {"weight": d["weight"]} if "weight" in d else {}
    return _relabel(labels, edges, source, sort=_all_ints(labels))


def _parse_graphml(path: Path, source: str) -> nx.Graph:
    try:
        graph = nx.read_graphml(path)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise _error(source, line, f"expected well-formed GraphML XML, found {exc}") from exc
    except (nx.NetworkXError, KeyError, ValueError, TypeError) as exc:
        raise _error(source, None, f"expected a valid GraphML graph, found {exc!r}") from exc
    if graph.is_multigraph():
        graph = nx.DiGraph(graph) if graph.is_directed() else nx.Graph(graph)
    if graph.is_directed():
        graph = graph.to_undirected()
    return _from_networkx(graph, source, int_ids=True)


def _parse_json(path: Path, source: str) -> nx.Graph:
    with open(path, encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise _error(source, exc.lineno, f"expected valid JSON, found {exc.msg}") from exc
    if not isinstance(data, dict):
        raise _error(source, None, f"expected a node-link JSON object, found {type(data).__name__}")
    key = "edges" if "edges" in data else "links" if "links" in data else None
    if key is None or "nodes" not in data:
        raise _error(
            source,
            None,
            f"expected a node-link JSON object with keys 'nodes' and 'edges' (or "
            f"'links'), found keys {sorted(data)}",
        )
    try:
        graph = nx.node_link_graph(
            data,
            directed=bool(data.get("directed", False)),
            multigraph=bool(data.get("multigraph", False)),
            edges=key,
        )
    except (nx.NetworkXError, KeyError, ValueError, TypeError) as exc:
        raise _error(source, None, f"expected a valid node-link graph, found {exc!r}") from exc
    if graph.is_multigraph():
        graph = nx.DiGraph(graph) if graph.is_directed() else nx.Graph(graph)
    if graph.is_directed():
        graph = graph.to_undirected()
    return _from_networkx(graph, source, int_ids=False)


# ------------------------------------------------------------------------ dispatcher


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
            graph = _parse_graphml(path, source)
        elif fmt == "json":
            graph = _parse_json(path, source)
        else:
            parser = parse_dimacs if fmt == "dimacs" else parse_edgelist
            with open(path, encoding="utf-8") as fh:
                graph = parser(fh, source=source)
    except UnicodeDecodeError as exc:
        raise _error(
            source,
            None,
            f"expected UTF-8 text, found byte {exc.object[exc.start]:#04x} at offset {exc.start}",
        ) from exc
    graph.graph["name"] = path.stem
    return graph
