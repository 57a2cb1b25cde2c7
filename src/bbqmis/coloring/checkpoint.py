"""Atomic JSON checkpoints of a search, so that a killed run resumes where it was."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import networkx as nx

from .errors import SearchError
from .tree import Node, SearchState

__all__ = ["CHECKPOINT_VERSION", "Checkpoint"]

CHECKPOINT_VERSION = 1


class Checkpoint:
    """Atomic JSON checkpoints of a search; vertices are stored as node indices."""

    def __init__(self, path, graph: nx.Graph):
        self.path = Path(path)
        self.nodes = list(graph)
        self.index = {v: i for i, v in enumerate(self.nodes)}
        edges = sorted(tuple(sorted((self.index[u], self.index[v]))) for u, v in graph.edges)
        self.fingerprint = hashlib.sha256(json.dumps([len(self.nodes), edges]).encode()).hexdigest()

    def _ids(self, vertices) -> list[int]:
        return sorted(self.index[v] for v in vertices)

    def _set(self, ids) -> frozenset:
        return frozenset(self.nodes[i] for i in ids)

    def save(self, search: SearchState, running) -> None:
        """Write the state, running nodes included as open ones, to ``path`` atomically."""
        nodes = [entry[-1] for entry in search.heap] + list(running)
        state = {
            "version": CHECKPOINT_VERSION,
            "graph": self.fingerprint,
            "seed": search.seed,
            "incumbent": [self._ids(c) for c in search.incumbent],
            "incumbents": search.incumbents,
            "open": [
                {
                    "classes": [self._ids(c) for c in node.classes],
                    "bound": node.bound,
                    "complete": node.complete,
                    "skip": [self._ids(c) for c in node.skip],
                }
                for node in nodes
            ],
            "seen": [[self._ids(r), depth] for r, depth in search.seen.items()],
            "stats": dict(search.stats),
            "sampler": dict(search.sampler_stats),
            "enumeration_complete": search.enumeration_complete,
            "elapsed": search.elapsed(),
        }
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(state))
        os.replace(tmp, self.path)

    def load(self, search: SearchState) -> None:
        """Restore a saved state into ``search``."""
        try:
            state = json.loads(self.path.read_text())
        except (OSError, ValueError) as exc:
            raise SearchError(f"{self.path}: cannot read checkpoint: {exc}") from exc
        if state.get("version") != CHECKPOINT_VERSION or state.get("graph") != self.fingerprint:
            raise SearchError(
                f"{self.path}: checkpoint belongs to another graph or version; remove it or drop --resume"
            )
        everything = frozenset(self.nodes)
        search.incumbent = tuple(self._set(c) for c in state["incumbent"])
        search.incumbents = state["incumbents"]
        for item in state["open"]:
            classes = tuple(self._set(c) for c in item["classes"])
            residual = everything.difference(*classes)
            skip = frozenset(self._set(c) for c in item["skip"])
            search.push(Node(classes, residual, item["bound"], item["complete"], skip))
        search.seen = {self._set(ids): depth for ids, depth in state["seen"]}
        search.stats.update(state["stats"])
        search.sampler_stats.update(state["sampler"])
        search.enumeration_complete = state["enumeration_complete"]
        search.elapsed_before = state["elapsed"]
