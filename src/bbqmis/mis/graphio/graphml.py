"""GraphML files, read by networkx and put in the readers' common form.

networkx's reader can fail on odd input in many ways (``IndexError``,
``AttributeError``, ``RecursionError`` in nested graphs...); every one of them becomes
a :class:`~bbqmis.errors.GraphFormatError`. Document type declarations are refused
before parsing: GraphML never needs one, and entity definitions can expand a small
file into a huge one.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

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


def parse_graphml(data: bytes | str, *, source: str = "<string>", allow_empty: bool = False) -> nx.Graph:
    """Parse a GraphML document.

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
        ``<!DOCTYPE`` or ``<!ENTITY`` declaration, is not a GraphML graph, has a
        self-loop, more than ``MAX_VERTICES`` nodes, or none without ``allow_empty``.

    Notes
    -----
    The document is read by :func:`networkx.parse_graphml`, so its rules apply: an
    edge whose endpoint has no ``<node>`` element adds that node.

    Examples
    --------
    >>> g = parse_graphml('<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
    ...                   '<graph edgedefault="undirected"><node id="1"/><node id="0"/>'
    ...                   '<edge source="0" target="1"/></graph></graphml>')
    >>> [g.nodes[i]["label"] for i in g], sorted(g.edges)
    ([0, 1], [(0, 1)])
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        raise format_error(source, None, "expected GraphML without a <!DOCTYPE> or <!ENTITY> declaration")
    tags = len(_NODE_TAG.findall(raw))
    if tags > MAX_VERTICES:
        check_vertex_count(tags, source, None, "<node> tags")
    if isinstance(data, bytes):
        try:  # networkx's retry for a <graphml> without namespace works on str only
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
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
