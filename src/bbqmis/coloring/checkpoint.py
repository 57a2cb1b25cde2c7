"""Atomic, checked JSON checkpoints of a search, so that a killed run resumes where it was.

A checkpoint holds the components already coloured and the tree of the component being
searched. It records the graph's fingerprint and every setting that changes what a result
means (method, heuristic or exact, sampler, strategy, seed), and a SHA-256 checksum of its
content: a resumed run refuses a checkpoint of another graph, of other settings, or one
that was truncated or edited, so that it can never claim more than the runs proved.
Files are written to a temporary name, flushed to disk and renamed over the old one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import networkx as nx

from ..solver import add_stats
from .errors import SearchError
from .tree import Node, SearchState

__all__ = ["CHECKPOINT_VERSION", "Checkpoint", "fingerprint"]

CHECKPOINT_VERSION = 2


def fingerprint(graph: nx.Graph) -> str:
    """SHA-256 of a graph's vertex count and edges (vertices by their position in ``list(graph)``)."""
    index = {v: i for i, v in enumerate(graph)}
    edges = sorted(tuple(sorted((index[u], index[v]))) for u, v in graph.edges)
    return hashlib.sha256(json.dumps([len(index), edges]).encode()).hexdigest()


def _checksum(document: Mapping[str, Any]) -> str:
    body = {key: value for key, value in document.items() if key != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class Checkpoint:
    """The checkpoint file of one run.

    Parameters
    ----------
    path : path-like
        The JSON file.
    graph : networkx.Graph
        The graph of the run.
    settings : dict
        The settings that change the meaning of a result; a checkpoint written with other
        settings is refused.
    """

    def __init__(self, path: str | os.PathLike[str], graph: nx.Graph, settings: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.graph = fingerprint(graph)
        self.settings = dict(settings)

    def exists(self) -> bool:
        """Whether the file exists."""
        return self.path.exists()

    def save(self, state: Mapping[str, Any]) -> None:
        """Write ``state`` (JSON-ready) with the version, graph, settings and checksum, atomically."""
        document = {"version": CHECKPOINT_VERSION, "graph": self.graph, "settings": self.settings, **state}
        document["checksum"] = _checksum(document)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as file:
            json.dump(document, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, self.path)

    def load(self) -> dict[str, Any]:
        """Read and check the file; return the state given to :meth:`save`.

        Raises
        ------
        SearchError
            If the file cannot be read, is not a checkpoint of this version, fails its
            checksum, or belongs to another graph or other settings.
        """
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise SearchError(f"{self.path}: cannot read checkpoint: {exc}") from exc
        if not isinstance(document, dict) or document.get("version") != CHECKPOINT_VERSION:
            raise SearchError(f"{self.path}: not a version-{CHECKPOINT_VERSION} checkpoint; remove it")
        if document.get("checksum") != _checksum(document):
            raise SearchError(f"{self.path}: checkpoint fails its checksum (truncated or edited); remove it")
        if document.get("graph") != self.graph:
            raise SearchError(f"{self.path}: checkpoint belongs to another graph; remove it or drop --resume")
        if document.get("settings") != self.settings:
            raise SearchError(
                f"{self.path}: checkpoint was written with settings {document.get('settings')}, "
                f"not {self.settings}; resume with the same settings or remove it"
            )
        return {key: value for key, value in document.items() if key not in ("version", "graph", "checksum")}


def _hex(bits: int) -> str:
    return format(bits, "x")


def _int(text: object) -> int:
    if not isinstance(text, str):
        raise TypeError(f"expected a hexadecimal string, found {text!r}")
    return int(text, 16)


def dump_search(search: SearchState, running: Iterable[Node]) -> dict[str, Any]:
    """The tree of ``search`` as JSON-ready data, running nodes included as open ones."""
    nodes = search.open_nodes() + list(running)
    return {
        "strategy": search.strategy,
        "incumbent": [_hex(c) for c in search.incumbent],
        "incumbents": search.incumbents,
        "open": [
            {
                "classes": [_hex(c) for c in node.classes],
                "residual": _hex(node.residual),
                "bound": node.bound,
                "complete": node.complete,
                "skip": [_hex(c) for c in sorted(node.skip)],
                "offset": node.offset,
            }
            for node in nodes
        ],
        "seen": [[_hex(residual), depth] for residual, depth in search.seen.items()],
        "stats": dict(search.stats),
        "sampler": dict(search.sampler_stats),
    }


def restore_search(search: SearchState, data: Mapping[str, Any], source: str) -> None:
    """Load a tree written by :func:`dump_search` into a fresh ``search``.

    Raises
    ------
    SearchError
        If the data do not describe a tree of this graph.
    """
    everything = (1 << search.graph.number_of_nodes()) - 1
    try:
        incumbent = tuple(_int(c) for c in data["incumbent"])
        if not _partitions(incumbent, everything):
            raise ValueError("the incumbent does not colour every vertex exactly once")
        search.incumbent, search.incumbents = incumbent, list(data["incumbents"])
        for item in data["open"]:
            classes = tuple(_int(c) for c in item["classes"])
            residual = _int(item["residual"])
            if not _partitions((*classes, residual), everything):
                raise ValueError("an open node's classes and residual do not partition the graph")
            skip = frozenset(_int(c) for c in item["skip"])
            offset = int(item["offset"])
            search.push(Node(classes, residual, int(item["bound"]), bool(item["complete"]), skip, offset))
        search.seen = {_int(residual): int(depth) for residual, depth in data["seen"]}
        add_stats(search.stats, data["stats"])
        add_stats(search.sampler_stats, data["sampler"])
        if data["strategy"] == "depth-first":
            search.go_depth_first()
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SearchError(f"{source}: checkpoint is corrupt: {exc}") from exc


def _partitions(sets: Iterable[int], everything: int) -> bool:
    """Whether the bitsets are disjoint and their union is ``everything``."""
    union, count = 0, 0
    for bits in sets:
        union |= bits
        count += bits.bit_count()
    return union == everything and count == everything.bit_count()
