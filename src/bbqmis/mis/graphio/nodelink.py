"""Node-link JSON files (networkx's ``node_link_data``, with ``links`` or ``edges``)."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx

from ._common import format_error, from_networkx

__all__ = ["read_nodelink_file"]


def read_nodelink_file(path: Path, source: str) -> nx.Graph:
    """Read a node-link JSON file; errors name ``source``."""
    with open(path, encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise format_error(source, exc.lineno, f"expected valid JSON, found {exc.msg}") from exc
    if not isinstance(data, dict):
        raise format_error(source, None, f"expected a node-link JSON object, found {type(data).__name__}")
    key = "edges" if "edges" in data else "links" if "links" in data else None
    if key is None or "nodes" not in data:
        raise format_error(
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
        raise format_error(source, None, f"expected a valid node-link graph, found {exc!r}") from exc
    if graph.is_multigraph():
        graph = nx.DiGraph(graph) if graph.is_directed() else nx.Graph(graph)
    if graph.is_directed():
        graph = graph.to_undirected()
    return from_networkx(graph, source, int_ids=False)
