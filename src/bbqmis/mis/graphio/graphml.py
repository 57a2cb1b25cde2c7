"""GraphML files, read by networkx and put in the readers' common form.

networkx's reader can fail on odd input in many ways (``IndexError``,
``AttributeError``, ``RecursionError`` in nested graphs...); every one of them becomes
a :class:`~bbqmis.errors.GraphFormatError`. Document type declarations are refused
before parsing: GraphML never needs one, and entity definitions can expand a small
file into a huge one.

networkx also reads some malformed documents without a word: it keeps only the first
of several ``<graph>`` elements, flattens or drops nested graphs, and adds a node for
an edge end that has no ``<node>`` (or for a missing ``id``, ``source`` or ``target``,
as the node ``'None'``). One pass of expat over the document, before networkx sees it,
refuses all of these with the line of the offending element.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from xml.parsers import expat

import networkx as nx

from ._common import (
    MAX_VERTICES,
    check_not_empty,
    check_vertex_count,
    format_error,
    from_networkx,
    read_bytes,
    show_value,
)

__all__ = ["parse_graphml", "read_graphml_file"]

#: Opening ``node`` tags (with or without a namespace prefix): an upper bound on the node
#: count, checked before parsing.
_NODE_TAG = re.compile(rb"<(?:[\w.-]+:)?node[\s/>]")

#: The GraphML namespace; elements in it, or in no namespace (networkx reads a bare
#: ``<graphml>`` as GraphML), are the ones networkx reads.
_GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"

_DECLARATION = "expected GraphML without a <!DOCTYPE> or <!ENTITY> declaration"


def parse_graphml(data: bytes | str, *, source: str = "<string>", allow_empty: bool = False) -> nx.Graph:
    r"""Parse a GraphML document.

    Parameters
    ----------
    data : bytes or str
        The document; bytes may use any encoding XML declares (UTF-8 by default).
    source : str, default "<string>"
        Name of the input used in error messages and as ``graph.graph["name"]``.
    allow_empty : bool, default False
        Accept a graph with no node.

    Returns
    -------
    graph : networkx.Graph
        Undirected simple graph with nodes ``0..n-1``; node ``i`` has attribute
        ``label`` holding its GraphML id, an ``int`` when every id is a canonical
        integer. Only the ``weight`` edge attribute is kept.

    Raises
    ------
    GraphFormatError
        If the document is not well-formed XML (the message names the line), has a
        ``<!DOCTYPE`` or ``<!ENTITY`` declaration, is not a GraphML graph, has more
        than one ``<graph>`` element, a ``<graph>`` nested in a ``<node>`` (or any
        other element), a ``<node>`` without an ``id`` or with the id of an earlier
        one, an ``<edge>`` whose ``source`` or ``target`` is missing or names no
        ``<node>`` of the graph (these name the line too), a self-loop, more than
        ``MAX_VERTICES`` nodes, or none without ``allow_empty``.

    Notes
    -----
    The document is read by :func:`networkx.parse_graphml` after a check of its
    structure: networkx alone would read only the first of several graphs, flatten or
    drop nested graphs, and add a node for an edge end that has no ``<node>``
    element; all of these are errors here. Nodes and edges may come in any order.

    Examples
    --------
    >>> g = parse_graphml('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    ...                   '<graph edgedefault="undirected"><node id="1"/><node id="0"/>'
    ...                   '<edge source="0" target="1"/></graph></graphml>')
    >>> [g.nodes[i]["label"] for i in g], sorted(g.edges)
    ([0, 1], [(0, 1)])
    >>> parse_graphml('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
    ...               '<graph edgedefault="undirected"><node id="3"/>\n'
    ...               '<edge source="3" target="7"/></graph></graphml>', source="g.graphml")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbqmis.mis.errors.GraphFormatError: g.graphml:3: expected the target of edge '3' -> '7' to be ...
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise format_error(source, None, _DECLARATION)
    tags = len(_NODE_TAG.findall(raw))
    if tags > MAX_VERTICES:
        check_vertex_count(tags, source, None, "<node> tags")
    if isinstance(data, bytes):
        try:  # networkx's retry for a <graphml> without namespace works on str only
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    _check_structure(data, source)
    try:
        graph = nx.parse_graphml(data)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise format_error(source, line, f"expected well-formed GraphML XML, found {exc}") from exc
    except RecursionError:
        raise format_error(
            source, None, "expected GraphML graphs nested at most a few hundred deep"
        ) from None
    except Exception as exc:  # networkx's reader raises almost anything on odd input
        raise format_error(
            source, None, f"expected a valid GraphML graph, found {show_value(exc, 200)}"
        ) from exc
    if graph.is_multigraph():
        graph = nx.DiGraph(graph) if graph.is_directed() else nx.Graph(graph)
    if graph.is_directed():
        graph = graph.to_undirected()
    check_vertex_count(graph.number_of_nodes(), source, None, "nodes")
    check_not_empty(graph.number_of_nodes(), source, None, "a graph with no node", allow_empty=allow_empty)
    return from_networkx(graph, source, int_ids=True)


def _where(local: str, attrs: dict[str, Any]) -> str:
    """An element named for a message: ``node 'a'``, ``edge 'a' -> 'b'`` or ``<data>``."""
    if local == "node":
        return f"node {show_value(attrs.get('id'))}"
    if local == "edge":
        return f"edge {show_value(attrs.get('source'))} -> {show_value(attrs.get('target'))}"
    return f"<{local}>"


def _check_structure(data: bytes | str, source: str) -> None:
    """Refuse what networkx would read silently wrong; one expat pass, linear in ``data``.

    Refuses a document type declaration (a UTF-16 file hides one from the byte test in
    :func:`parse_graphml`), a second ``<graph>``, a nested ``<graph>``, a ``<node>``
    without an ``id`` or with a repeated one, and an ``<edge>`` whose ``source`` or
    ``target`` is missing or has no ``<node>``. Only elements in the GraphML namespace
    or in none count, and only under a ``<graphml>`` root: anything else is left to
    networkx, which reports it. An XML error gets the message and line networkx's parser
    would give it (both run expat).
    """
    parser = expat.ParserCreate(namespace_separator=" ")
    structure = _Structure(parser, source)
    parser.StartDoctypeDeclHandler = structure.declaration
    parser.EntityDeclHandler = structure.declaration
    parser.StartElementHandler = structure.on_start
    parser.EndElementHandler = structure.on_end
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise format_error(source, exc.lineno, f"expected well-formed GraphML XML, found {exc}") from None
    structure.check_edge_ends()


class _Structure:
    """The expat handlers of :func:`_check_structure` and what they have seen so far.

    Parameters
    ----------
    parser : xml.parsers.expat.XMLParserType
        The parser calling the handlers; its line is the one of a refused element.
    source : str
        Name of the input in messages.
    """

    def __init__(self, parser: Any, source: str) -> None:
        self.parser = parser
        self.source = source
        # (local name, or None outside GraphML, and attributes) of every open element.
        self.stack: list[tuple[str | None, dict[str, Any]]] = []
        self.graphs = 0
        self.nodes: set[str] = set()
        # Edges with an end not yet declared: nodes may follow the edges that use them.
        self.pending: list[tuple[int, str, str]] = []

    def declaration(self, *args: object) -> None:
        """Refuse a document type or entity declaration."""
        raise format_error(self.source, self.parser.CurrentLineNumber, _DECLARATION)

    def on_start(self, name: str, attrs: dict[str, Any]) -> None:
        """Check a GraphML ``<graph>``, ``<node>`` or ``<edge>`` of the one graph as it opens."""
        namespace, _, local = name.rpartition(" ")
        ours = namespace in ("", _GRAPHML_NS) and (
            local == "graphml" if not self.stack else self.stack[0][0] == "graphml"
        )
        self.stack.append((local if ours else None, attrs))
        if not ours or len(self.stack) == 1:
            return
        line = self.parser.CurrentLineNumber
        parent = self.stack[-2][0]
        if local == "graph":
            self._graph(parent, attrs, line)
        elif parent != "graph":  # nodes and edges of the one graph; nested graphs stop above
            return
        elif local == "node":
            self._node(attrs, line)
        elif local == "edge":
            self._edge(attrs, line)

    def on_end(self, name: str) -> None:
        """Close the innermost open element."""
        self.stack.pop()

    def _graph(self, parent: str | None, attrs: dict[str, Any], line: int) -> None:
        """Refuse a ``<graph>`` nested in another element, or a second one."""
        if parent != "graphml":
            where = _where(parent, self.stack[-2][1]) if parent is not None else "a non-GraphML element"
            raise format_error(
                self.source,
                line,
                f"expected a single flat <graph> (nested graphs are not read), found a <graph> "
                f"nested inside {where}",
            )
        self.graphs += 1
        if self.graphs > 1:
            found = f"<graph id={show_value(attrs['id'])}>" if "id" in attrs else "<graph>"
            raise format_error(
                self.source,
                line,
                f"expected one <graph> element (only one graph per file is read), found a second {found}",
            )

    def _node(self, attrs: dict[str, Any], line: int) -> None:
        """Record a ``<node>``'s id; refuse a node without one or with the id of an earlier node."""
        if "id" not in attrs:
            raise format_error(
                self.source, line, "expected every <node> to have an id, found a <node> without one"
            )
        if attrs["id"] in self.nodes:
            raise format_error(
                self.source,
                line,
                f"expected every <node> id to be unique, found node {show_value(attrs['id'])} again",
            )
        self.nodes.add(attrs["id"])

    def _edge(self, attrs: dict[str, Any], line: int) -> None:
        """Refuse an ``<edge>`` without a source or target; keep one with an end not declared yet."""
        tail, head = attrs.get("source"), attrs.get("target")
        if tail is None or head is None:
            raise format_error(
                self.source,
                line,
                f"expected every <edge> to have a source and a target, found {_where('edge', attrs)} "
                f"without a {'source' if tail is None else 'target'}",
            )
        if tail not in self.nodes or head not in self.nodes:
            self.pending.append((line, tail, head))

    def check_edge_ends(self) -> None:
        """Once the document is read: refuse the first edge with an end that no ``<node>`` declares."""
        for line, tail, head in self.pending:
            for which, label in (("source", tail), ("target", head)):
                if label not in self.nodes:
                    raise format_error(
                        self.source,
                        line,
                        f"expected the {which} of edge {show_value(tail)} -> {show_value(head)} to be "
                        f"the id of a <node>, found {show_value(label)}, which has no <node> element",
                    )


def read_graphml_file(path: Path, source: str, *, allow_empty: bool = False) -> nx.Graph:
    """Read a GraphML file; errors name ``source``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "triangle.graphml"
    ...     nx.write_graphml(nx.complete_graph(3), path)
    ...     graph = read_graphml_file(path, "triangle.graphml")
    >>> graph.number_of_nodes(), graph.number_of_edges()
    (3, 3)
    """
    return parse_graphml(read_bytes(path, source), source=source, allow_empty=allow_empty)
