"""The manager side of the search: the queue of open nodes, the incumbent, the seen residuals."""

from __future__ import annotations

import hashlib
import heapq
import itertools
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .expand import Expansion, Task, stable_rank
from .result import color_classes

__all__ = ["STRATEGIES", "Node", "SearchState", "progress_snapshot"]

#: Queue orders: lowest bound first (deepest on ties), or deepest first.
STRATEGIES = ("best-first", "depth-first")


@dataclass
class Node:
    """An open tree node: the colour classes so far and the residual vertex set."""

    classes: tuple[frozenset, ...]
    residual: frozenset
    bound: int
    complete: bool = False  # a completion node: enumerate the children not yet generated
    skip: frozenset = frozenset()

    @property
    def depth(self) -> int:
        """Colours used so far."""
        return len(self.classes)


class SearchState:
    """Mutable state of one search: queue, incumbent, seen residuals, statistics."""

    def __init__(self, graph, sampler, *, strategy, exhaustive, seed):
        self.graph = graph
        self.sampler = sampler
        self.strategy = strategy
        self.exhaustive = exhaustive
        self.seed = 0 if seed is None else int(seed)
        self.counter = itertools.count()
        self.heap: list = []
        self.seen: dict[frozenset, int] = {}
        self.sampler_stats: Counter = Counter()
        self.stats = Counter()
        self.incumbent: tuple[frozenset, ...] = ()
        self.incumbents: list = []
        self.enumeration_complete = True
        self.elapsed_before = 0.0
        self.start = time.perf_counter()

    def push(self, node: Node) -> None:
        """Queue ``node`` by the strategy's key."""
        key = (node.bound, -node.depth) if self.strategy == "best-first" else (-node.depth, node.bound)
        heapq.heappush(self.heap, (*key, node.complete, next(self.counter), node))

    def pop(self) -> Node:
        """Take the first node of the queue."""
        return heapq.heappop(self.heap)[-1]

    @property
    def best(self) -> int:
        """Colours of the incumbent."""
        return len(self.incumbent)

    def elapsed(self) -> float:
        """Seconds of search, earlier runs of a resumed search included."""
        return self.elapsed_before + time.perf_counter() - self.start

    def offer(self, classes: tuple[frozenset, ...], source: str) -> None:
        """Take ``classes`` as incumbent if it uses fewer colours; ``source`` names its origin."""
        if not self.incumbent or len(classes) < self.best:
            self.incumbent = tuple(classes)
            self.incumbents.append([round(self.elapsed(), 6), len(classes), source])

    def task(self, node: Node) -> Task:
        """The worker task of ``node``, with a seed derived from the run seed and its residual."""
        digest = hashlib.blake2b(
            repr((self.seed, sorted(map(stable_rank, node.residual)))).encode(), digest_size=8
        )
        return Task(
            graph=self.graph.subgraph(node.residual).copy(),
            depth=node.depth,
            incumbent=self.best,
            complete=node.complete or self.sampler.exhaustive,
            exhaustive=self.exhaustive,
            skip=node.skip,
            sampler=self.sampler,
            seed=int.from_bytes(digest.digest(), "big") >> 1,
        )

    def absorb(self, node: Node, result: Expansion) -> None:
        """Queue the children of an expanded node and take its completion."""
        self.stats["nodes_explored"] += 1
        self.stats["completions"] += node.complete
        self.stats["nodes_pruned"] += result.pruned
        self.sampler_stats.update(result.stats)
        self.enumeration_complete &= result.complete
        if result.completion is not None:
            color_class, rest = result.completion
            self.offer((*node.classes, color_class, *color_classes(rest)), "dsatur-completion")
        for color_class, bound in result.children:
            residual = node.residual - color_class
            if bound >= self.best:
                self.stats["nodes_pruned"] += 1
            elif not residual:
                self.offer((*node.classes, color_class), "leaf")
            elif self.seen.get(residual, np.inf) <= node.depth + 1:
                self.stats["duplicates"] += 1
            else:
                self.seen[residual] = node.depth + 1
                self.push(Node((*node.classes, color_class), residual, bound))
        if self.exhaustive and not result.all_children:
            self.push(Node(node.classes, node.residual, node.bound, True, result.generated))

    def frontier_bound(self, in_flight) -> int:
        """Proven lower bound from the open and running nodes (exhaustive branching only)."""
        bounds = [entry[-1].bound for entry in self.heap] + [node.bound for node in in_flight]
        return min([self.best, *bounds])


def progress_snapshot(search: SearchState, running: Iterable[Node]) -> dict:
    """Progress of the search: ``nodes``, ``open``, ``incumbent``, ``bound``, ``elapsed``."""
    running = list(running)
    bound = search.frontier_bound(running) if search.exhaustive else None
    return {
        "nodes": int(search.stats["nodes_explored"]),
        "open": len(search.heap) + len(running),
        "incumbent": search.best,
        "bound": bound,
        "elapsed": search.elapsed(),
    }
