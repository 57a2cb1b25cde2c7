"""Node-link JSON files (networkx's ``node_link_data``, with ``links`` or ``edges``).

The JSON is checked shape by shape here rather than handed to
:func:`networkx.node_link_graph`, which fails on odd input with ``AttributeError``,
``TypeError`` or ``RecursionError`` instead of saying what is wrong.
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import networkx as nx

from ._common import (
    MAX_VERTICES,
    all_ints,
    check_not_empty,
    check_vertex_count,
    decode,
    format_error,
    read_bytes,
    relabel,
    show_value,
)

__all__ = ["parse_nodelink", "read_nodelink_file"]

#: Node ids may be lists (networkx writes tuple nodes as lists), nested this deep at most.
MAX_ID_DEPTH = 8


class _BadId(Exception):
    """A node id that is not a string, a number or a list of them."""


def _node_id(value: Any, depth: int = 0) -> Hashable:
    """A JSON node id as a hashable label: lists become tuples."""
    if isinstance(value, bool) or value is None:
        raise _BadId
    if isinstance(value, int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _BadId
        return value
    if isinstance(value, list) and depth < MAX_ID_DEPTH:
        return tuple(_node_id(item, depth + 1) for item in value)
    raise _BadId


def _describe(value: Any) -> str:
    """A short description of a JSON value for a message."""
    if isinstance(value, dict):
        return f"an object with keys {show_value(sorted(map(str, value))[:5])}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    kind = "string" if isinstance(value, str) else "number"
    return f"{kind} {show_value(value)}"


def parse_nodelink(text: str, *, source: str = "<string>", allow_empty: bool = False) -> nx.Graph:
    """Parse a graph in networkx's node-link JSON form.

    Parameters
    ----------
    text : str
        The JSON document.
    source : str, default "<string>"
        Name of the input used in error messages and as ``graph.graph["name"]``.
    allow_empty : bool, default False
        Accept ``"nodes": []``.

    Returns
    -------
    graph : networkx.Graph
        Undirected simple graph with nodes ``0..n-1``; node ``i`` has attribute
        ``label`` holding its JSON id (a list id becomes a tuple). Nodes follow the
        sorted ids when all are integers, otherwise the order of ``"nodes"``. Edges
        keep a numeric ``weight``; direction and parallel edges are dropped.

    Raises
    ------
    GraphFormatError
        If the text is not JSON (the message names the line), nests too deeply, is not
        an object with a ``"nodes"`` list and an ``"edges"`` (or ``"links"``) list, a
        node has no valid ``"id"``, two nodes have the same id, an edge has no
        ``"source"`` or ``"target"`` among the node ids, a ``"weight"`` is not a number,
        an edge is a self-loop, there are more than ``MAX_VERTICES`` nodes, or none
        without ``allow_empty``.

    Notes
    -----
    An id is a string, a number or a list of them (nested at most 8 deep); ``true``,
    ``false``, ``null``, objects and non-finite numbers are refused. Ids are compared
    as Python values, so ``1`` and ``1.0`` are the same id. Duplicate edges are merged
    (the last weight wins); a duplicate node is an error, since its attributes would
    be merged or lost without a word.

    Examples
    --------
    >>> g = parse_nodelink('{"nodes": [{"id": "a"}, {"id": "b"}], '
    ...                    '"edges": [{"source": "a", "target": "b", "weight": 2}]}')
    >>> [g.nodes[i]["label"] for i in g], g.edges[0, 1]
    (['a', 'b'], {'weight': 2})
    >>> parse_nodelink('{"nodes": 5, "edges": []}', source="g.json")
    Traceback (most recent call last):
        ...
    bbqmis.mis.errors.GraphFormatError: g.json: expected 'nodes' to be a list, found number 5
    >>> parse_nodelink('{"nodes": [{"id": "a"}, {"id": "a"}], "edges": []}', source="g.json")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    bbqmis.mis.errors.GraphFormatError: g.json: expected unique node ids, found 'a' at 'nodes'[0] and ...
    """
    data = _load_json(text, source)
    nodes, links, key = _node_and_edge_lists(data, source)
    if len(nodes) > MAX_VERTICES:
        check_vertex_count(len(nodes), source, None, "entries in 'nodes'")
    check_not_empty(len(nodes), source, None, "'nodes': []", allow_empty=allow_empty)
    labels = _node_labels(nodes, source)
    edges = _edges(links, key, labels, source)
    order = list(labels)
    return relabel(order, edges, source, sort=all_ints(order))


def _load_json(text: str, source: str) -> Any:
    """The JSON value of ``text``; invalid or too deeply nested JSON is a :class:`GraphFormatError`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise format_error(source, exc.lineno, f"expected valid JSON, found {exc.msg}") from None
    except RecursionError:
        raise format_error(source, None, "expected JSON nested at most a few hundred levels deep") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise format_error(source, None, f"expected valid JSON, found {exc}") from None


def _node_and_edge_lists(data: Any, source: str) -> tuple[list[Any], list[Any], str]:
    """The ``"nodes"`` list, the edge list and its key (``"edges"``, else ``"links"``)."""
    if not isinstance(data, dict):
        raise format_error(source, None, f"expected a node-link JSON object, found {type(data).__name__}")
    key = "edges" if "edges" in data else "links" if "links" in data else None
    if key is None or "nodes" not in data:
        raise format_error(
            source,
            None,
            f"expected a node-link JSON object with keys 'nodes' and 'edges' (or "
            f"'links'), found keys {show_value(sorted(data))}",
        )
    nodes, links = data["nodes"], data[key]
    for name, value in (("nodes", nodes), (key, links)):
        if not isinstance(value, list):
            raise format_error(source, None, f"expected {name!r} to be a list, found {_describe(value)}")
    return nodes, links, key


def _node_labels(nodes: list[Any], source: str) -> dict[Hashable, int]:
    """Each node's id as a label, mapped to its index in ``"nodes"``; ids must be valid and unique."""
    labels: dict[Hashable, int] = {}
    for i, node in enumerate(nodes):
        if not isinstance(node, dict) or "id" not in node:
            raise format_error(
                source, None, f"expected 'nodes'[{i}] to be an object with an 'id', found {_describe(node)}"
            )
        label = _id(node["id"], f"'nodes'[{i}]['id']", source)
        first = labels.setdefault(label, i)
        if first != i:
            raise format_error(
                source,
                None,
                f"expected unique node ids, found {show_value(label)} at 'nodes'[{first}] and 'nodes'[{i}]",
            )
    return labels


def _edges(
    links: list[Any], key: str, labels: dict[Hashable, int], source: str
) -> dict[frozenset[Hashable], dict[str, Any]]:
    """The edges of ``links`` (``key`` names the list in messages): their ends and attributes, merged."""
    edges: dict[frozenset[Hashable], dict[str, Any]] = {}
    for i, link in enumerate(links):
        where = f"{key!r}[{i}]"
        if not isinstance(link, dict) or "source" not in link or "target" not in link:
            raise format_error(
                source,
                None,
                f"expected {where} to be an object with 'source' and 'target', found {_describe(link)}",
            )
        ends = _edge_ends(link, where, labels, source)
        edges[frozenset(ends)] = _edge_attributes(link, where, source)
    return edges


def _edge_ends(link: dict[str, Any], where: str, labels: dict[Hashable, int], source: str) -> list[Hashable]:
    """The two ends of the edge ``link``: ids of two distinct nodes."""
    ends = [_id(link[end], f"{where}[{end!r}]", source) for end in ("source", "target")]
    for end, label in zip(("source", "target"), ends, strict=True):
        if label not in labels:
            raise format_error(
                source,
                None,
                f"expected {where}[{end!r}] to be the id of a node, found {show_value(label)}",
            )
    if ends[0] == ends[1]:
        raise format_error(
            source,
            None,
            f"expected two distinct vertices on every edge, found a self-loop on node "
            f"{show_value(ends[0])} (a graph with a self-loop cannot be coloured)",
        )
    return ends


def _edge_attributes(link: dict[str, Any], where: str, source: str) -> dict[str, Any]:
    """The attributes kept of the edge ``link``: its ``weight``, a number, if it has one."""
    attrs: dict[str, Any] = {}
    if "weight" in link:
        weight = link["weight"]
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise format_error(
                source, None, f"expected {where}['weight'] to be a number, found {_describe(weight)}"
            )
        attrs["weight"] = weight
    return attrs


def _id(value: Any, where: str, source: str) -> Hashable:
    """``value`` as a node label, or a :class:`GraphFormatError` naming ``where``."""
    try:
        return _node_id(value)
    except _BadId:
        raise format_error(
            source,
            None,
            f"expected {where} to be a string, a number or a list of them (at most "
            f"{MAX_ID_DEPTH} deep), found {_describe(value)}",
        ) from None


def read_nodelink_file(path: Path, source: str, *, allow_empty: bool = False) -> nx.Graph:
    """Read a node-link JSON file; errors name ``source``.

    Examples
    --------
    >>> import json
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "path.json"
    ...     _ = path.write_text(json.dumps(nx.node_link_data(nx.path_graph(4), edges="links")))
    ...     graph = read_nodelink_file(path, "path.json")
    >>> graph.number_of_nodes(), graph.number_of_edges()
    (4, 3)
    """
    return parse_nodelink(decode(read_bytes(path, source), source), source=source, allow_empty=allow_empty)
