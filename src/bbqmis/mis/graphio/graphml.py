"""GraphML files, read by networkx and put in the readers' common form."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from ._common import format_error, from_networkx

__all__ = ["read_graphml_file"]


def read_graphml_file(path: Path, source: str) -> nx.Graph:
    """Read a GraphML file; errors name ``source``."""
    try:
        graph = nx.read_graphml(path)
    except ET.ParseError as exc:
        line = exc.position[0] if getattr(exc, "position", None) else None
        raise format_error(source, line, f"expected well-formed GraphML XML, found {exc}") from exc
    except (nx.NetworkXError, KeyError, ValueError, TypeError) as exc:
        raise format_error(source, None, f"expected a valid GraphML graph, found {exc!r}") from exc
    if graph.is_multigraph():
        graph = nx.DiGraph(graph) if graph.is_directed() else nx.Graph(graph)
    if graph.is_directed():
        graph = graph.to_undirected()
    return from_networkx(graph, source, int_ids=True)
