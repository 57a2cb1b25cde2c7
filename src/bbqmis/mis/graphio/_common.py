"""What the graph readers share: error messages, relabelling, and conversion of networkx graphs."""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import Any

import networkx as nx

from ..errors import GraphFormatError

__all__ = ["INT_RE", "all_ints", "format_error", "from_networkx", "relabel"]

#: A token that is an integer.
INT_RE = re.compile(r"[+-]?\d+")


def format_error(source: str, lineno: int | None, what: str) -> GraphFormatError:
    """A :class:`GraphFormatError` whose message starts with ``source:lineno:``."""
    where = f"{source}:{lineno}" if lineno is not None else source
    return GraphFormatError(f"{where}: {what}")


def relabel(
    labels: list[Any],
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


def all_ints(labels: Iterable[Hashable]) -> bool:
    """Whether every label is an ``int`` (bools excluded)."""
    return all(isinstance(x, int) and not isinstance(x, bool) for x in labels)


def from_networkx(graph: nx.Graph, source: str, *, int_ids: bool) -> nx.Graph:
    """Turn a graph read by networkx into the output form.

    ``int_ids`` converts the node ids to ``int`` when every id is a canonical
    integer string (GraphML stores ids as strings).
    """
    loop = next(iter(nx.selfloop_edges(graph)), None)
    if loop is not None:
        raise format_error(
            source,
            None,
            f"expected two distinct vertices on every edge, found a self-loop on node "
            f"{loop[0]!r} (a graph with a self-loop cannot be coloured)",
        )
    labels: list[Hashable] = list(graph.nodes)
    if int_ids and all(isinstance(x, str) and INT_RE.fullmatch(x) for x in labels):
        converted: list[Hashable] = [int(str(x)) for x in labels]
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
    return relabel(labels, edges, source, sort=all_ints(labels))
