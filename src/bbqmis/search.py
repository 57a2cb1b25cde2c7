"""BBQ-MIS: graph colouring by branch-and-bound over maximal independent sets.

A tree node is a partial colouring: the colour classes chosen so far and the residual
graph ``H`` of uncoloured vertices. A node is expanded on a worker: a branching vertex
``v`` of ``H`` is chosen (largest degree), and every child gives ``v``'s colour class,
a maximal independent set of ``H`` containing ``v``. Such sets are exactly
``{v} | S`` for the maximal independent sets ``S`` of ``H - N[v]``, and every colouring
of ``H`` can be rearranged so that ``v``'s class is one of them; so branching over
*all* of them is exhaustive, and the search can prove optimality.

The sampler (QAOA, annealing, greedy, random, exact; see :mod:`bbqmis.samplers`)
decides which children come first, and supplies early incumbents through a DSATUR
completion of its best children. With ``exhaustive=True`` (the default) the children
the sampler did not find are enumerated afterwards, lazily: a *completion node* with
the parent's bound waits in the queue and is expanded only if the bounds cannot prune
it. With ``exhaustive=False`` only sampled sets (of ``H`` itself, not forced to contain
``v``) are branched on, as in the reference implementation, and optimality is claimed
only when the incumbent meets the root lower bound.

A node's bound is its colours plus the best lower bound of ``H``
(:func:`bbqmis.bounds.chromatic_lower_bound`: clique, odd cycle, Hoffman, Edwards,
inertia; rounded up). The manager (this process) holds the queue, the incumbent and one
table of residual vertex sets seen by all workers, so no residual is explored twice.
Workers run on any :class:`concurrent.futures.Executor`.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Hashable
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
import numpy as np

from ._validation import check_choice, check_nonnegative, check_positive_int
from .bounds import adjacency_bounds, chromatic_lower_bound, dsatur
from .errors import InvalidParameterError, SearchError
from .executors import SerialExecutor, executor_workers
from .samplers import ExactSampler, MISSampler, get_sampler

__all__ = ["ColoringResult", "color_graph", "verify_coloring"]

#: Children of one expansion that get a DSATUR completion (the sampler's best first).
_COMPLETIONS_PER_EXPANSION = 8
#: A residual ``H - N[v]`` of at most this many vertices has its remaining maximal sets
#: enumerated in the same expansion, after the sampler's, instead of by a completion node.
_EAGER_ENUMERATION_NODES = 16
_STRATEGIES = ("best-first", "depth-first")
#: networkx greedy strategies whose best colouring is the first incumbent.
_GREEDY = ("DSATUR", "largest_first", "smallest_last")
_CHECKPOINT_VERSION = 1


@dataclass
class ColoringResult:
    """Outcome of :func:`color_graph`.

    Attributes
    ----------
    coloring : dict
        Original vertex label (node attribute ``label``, else the node) -> colour ``0..k-1``.
    num_colors : int
        ``k``, the colours used.
    lower_bound : int
        A proven lower bound on the chromatic number.
    optimal : bool
        True exactly when ``num_colors == lower_bound``.
    stats : dict
        Search statistics: ``nodes_explored`` (node expansions, ``completions``
        of them enumerating the children a sampler missed), ``nodes_pruned``,
        ``duplicates``, ``open_nodes``, ``root_lower_bound``, ``root_bounds``,
        ``initial_colors`` (best of networkx's DSATUR, largest-first, smallest-last),
        ``stop_reason`` (``"bounds-met"``, ``"exhausted"``, ``"node-limit"``,
        ``"time-limit"``), ``exhaustive``, ``seconds``, ``incumbents`` (list of
        ``[seconds, colours, source]``) and ``sampler`` (calls, circuits, shots,
        quantum_seconds, fallbacks, cut_components, seconds).
    """

    coloring: dict
    num_colors: int
    lower_bound: int
    optimal: bool
    stats: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """JSON-ready dict.

        Exactly the keys ``coloring`` (labels as strings), ``num_colors``,
        ``lower_bound``, ``optimal`` and ``stats``.
        """
        return {
            "coloring": {str(label): color for label, color in self.coloring.items()},
            "num_colors": self.num_colors,
            "lower_bound": self.lower_bound,
            "optimal": self.optimal,
            "stats": self.stats,
        }


def verify_coloring(graph: nx.Graph, coloring: dict) -> None:
    """Raise :class:`SearchError` unless ``coloring`` (node -> colour) is proper and complete."""
    missing = [v for v in graph if v not in coloring]
    if missing:
        raise SearchError(f"colouring misses {len(missing)} vertices, e.g. {missing[0]!r}")
    for u, v in graph.edges:
        if coloring[u] == coloring[v]:
            raise SearchError(
                f"colouring is not proper: adjacent vertices {u!r} and {v!r} share colour {coloring[u]}"
            )


# -- worker side ----------------------------------------------------------------------
@dataclass(frozen=True)
class _Task:
    graph: nx.Graph  # residual graph H
    depth: int  # colours already used
    incumbent: int  # colours of the best colouring known when submitted
    complete: bool  # True: enumerate every remaining child; False: run the sampler
    exhaustive: bool
    skip: frozenset  # classes generated by an earlier expansion of the same node
    sampler: MISSampler
    seed: int


@dataclass
class _Expansion:
    children: list[tuple[frozenset, int]]  # (colour class, bound)
    generated: frozenset  # every class generated, pruned or not
    completion: tuple[frozenset, dict] | None  # (class, DSATUR colouring of the rest)
    all_children: bool  # every maximal set containing v was generated: no completion node
    complete: bool  # False when an enumeration hit its limit
    pruned: int
    stats: Counter


def _branch_vertex(graph: nx.Graph) -> Hashable:
    return max(graph, key=lambda v: (graph.degree(v), -_stable_rank(v)))


def _stable_rank(v) -> int:
    return int.from_bytes(hashlib.blake2b(repr(v).encode(), digest_size=6).digest(), "big")


def _expand(task: _Task) -> _Expansion:
    """Children of one node, with bounds and a DSATUR completion of the most promising."""
    graph = task.graph
    all_children, complete = False, True
    if task.exhaustive:
        v = _branch_vertex(graph)
        rest = graph.subgraph(set(graph) - set(graph[v]) - {v})
        if task.complete or task.sampler.exhaustive:
            sampler = task.sampler if task.sampler.exhaustive else ExactSampler()
            samples = sampler.sample(rest, seed=task.seed)
            sets, all_children, complete = samples.sets, True, samples.complete
        else:
            samples = task.sampler.sample(rest, seed=task.seed)
            sets = samples.sets
            if rest.number_of_nodes() <= _EAGER_ENUMERATION_NODES:
                every = ExactSampler().sample(rest)
                sets = list(dict.fromkeys([*sets, *every.sets]))
                all_children, complete = True, every.complete
        classes = [s | {v} for s in sets]
    else:
        samples = task.sampler.sample(graph, seed=task.seed)
        classes = list(samples.sets)
    nodes = list(graph)
    adjacency = nx.to_numpy_array(graph, nodelist=nodes, dtype=bool, weight=None)
    position = {v: i for i, v in enumerate(nodes)}
    children, pruned, completion = [], 0, None
    best = task.incumbent
    for color_class in classes:
        if color_class in task.skip:
            continue
        keep = np.ones(len(nodes), dtype=bool)
        keep[[position[v] for v in color_class]] = False
        rest_index = np.flatnonzero(keep)
        residual = adjacency[np.ix_(rest_index, rest_index)]
        bound = task.depth + 1 + adjacency_bounds(residual).value
        if bound >= best:
            pruned += 1
            continue
        children.append((color_class, bound))
        if len(children) <= _COMPLETIONS_PER_EXPANSION:
            colors = dsatur(residual)
            used = task.depth + 1 + (int(colors.max()) + 1 if colors.size else 0)
            if used < best:
                rest_coloring = {nodes[i]: int(c) for i, c in zip(rest_index, colors, strict=True)}
                best, completion = used, (color_class, rest_coloring)
    return _Expansion(children, frozenset(classes), completion, all_children, complete, pruned, samples.stats)


# -- manager side -----------------------------------------------------------------------
@dataclass
class _Node:
    classes: tuple[frozenset, ...]
    residual: frozenset
    bound: int
    complete: bool = False  # a completion node: enumerate the children not yet generated
    skip: frozenset = frozenset()

    @property
    def depth(self) -> int:
        return len(self.classes)


class _Search:
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

    # queue
    def push(self, node: _Node) -> None:
        key = (node.bound, -node.depth) if self.strategy == "best-first" else (-node.depth, node.bound)
        heapq.heappush(self.heap, (*key, node.complete, next(self.counter), node))

    def pop(self) -> _Node:
        return heapq.heappop(self.heap)[-1]

    @property
    def best(self) -> int:
        return len(self.incumbent)

    def elapsed(self) -> float:
        return self.elapsed_before + time.perf_counter() - self.start

    def offer(self, classes: tuple[frozenset, ...], source: str) -> None:
        if not self.incumbent or len(classes) < self.best:
            self.incumbent = tuple(classes)
            self.incumbents.append([round(self.elapsed(), 6), len(classes), source])

    def task(self, node: _Node) -> _Task:
        digest = hashlib.blake2b(
            repr((self.seed, sorted(map(_stable_rank, node.residual)))).encode(), digest_size=8
        )
        return _Task(
            graph=self.graph.subgraph(node.residual).copy(),
            depth=node.depth,
            incumbent=self.best,
            complete=node.complete or self.sampler.exhaustive,
            exhaustive=self.exhaustive,
            skip=node.skip,
            sampler=self.sampler,
            seed=int.from_bytes(digest.digest(), "big") >> 1,
        )

    def absorb(self, node: _Node, result: _Expansion) -> None:
        """Queue the children of an expanded node and take its completion."""
        self.stats["nodes_explored"] += 1
        self.stats["completions"] += node.complete
        self.stats["nodes_pruned"] += result.pruned
        self.sampler_stats.update(result.stats)
        self.enumeration_complete &= result.complete
        if result.completion is not None:
            color_class, rest = result.completion
            self.offer((*node.classes, color_class, *_color_classes(rest)), "dsatur-completion")
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
                self.push(_Node((*node.classes, color_class), residual, bound))
        if self.exhaustive and not result.all_children:
            self.push(_Node(node.classes, node.residual, node.bound, True, result.generated))

    def frontier_bound(self, in_flight) -> int:
        """Proven lower bound from the open and running nodes (exhaustive branching only)."""
        bounds = [entry[-1].bound for entry in self.heap] + [node.bound for node in in_flight]
        return min([self.best, *bounds])


def _color_classes(coloring: dict) -> tuple[frozenset, ...]:
    groups: dict[int, set] = {}
    for v, color in coloring.items():
        groups.setdefault(color, set()).add(v)
    return tuple(frozenset(g) for g in groups.values())


def color_graph(
    graph: nx.Graph,
    sampler: str | MISSampler | Callable = "qaoa",
    executor: Executor | None = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    resume: bool = False,
    checkpoint_interval: float = 30.0,
    strategy: str = "best-first",
    exhaustive: bool = True,
    seed: int | None = None,
    progress: Callable[[dict], None] | None = None,
) -> ColoringResult:
    """Colour ``graph`` with as few colours as the search can find, proving optimality where it can.

    Parameters
    ----------
    graph : networkx.Graph
        Undirected simple graph; the node attribute ``label`` (set by
        :func:`bbqmis.read_graph`) names vertices in the result, else the node itself.
    sampler : str, MISSampler or callable, default="qaoa"
        Branching sampler (see :func:`bbqmis.samplers.get_sampler`).
    executor : concurrent.futures.Executor, optional
        Where node expansions run (serial in this process by default; a
        ``ProcessPoolExecutor`` or mpi4py's ``MPIPoolExecutor`` work unchanged).
    time_limit : float, optional
        Seconds of search after which the best colouring so far is returned.
    node_limit : int, optional
        Node expansions after which the search stops.
    checkpoint : path, optional
        JSON file written atomically every ``checkpoint_interval`` seconds and at the
        end: incumbent, open nodes (including running ones), seen residuals, statistics.
    resume : bool, default=False
        Continue from ``checkpoint`` if the file exists (it must be for the same graph).
    checkpoint_interval : float, default=30.0
        Seconds between checkpoint writes.
    strategy : {"best-first", "depth-first"}, default="best-first"
        Queue order: lowest bound first (deepest on ties), or deepest first.
    exhaustive : bool, default=True
        Branch on every maximal independent set containing the branching vertex, in
        the sampler's order (exact). False: branch only on sampled sets (heuristic).
    seed : int, optional
        Makes the run reproducible (each node's sampler seed derives from it).
    progress : callable, optional
        Called about twice a second with a dict: ``nodes``, ``open``, ``incumbent``,
        ``bound``, ``elapsed``.

    Returns
    -------
    ColoringResult

    Raises
    ------
    InvalidParameterError
        For a directed graph, a multigraph, a self-loop or a bad parameter.
    SearchError
        If ``resume`` finds a checkpoint of another graph.

    Examples
    --------
    >>> result = color_graph(nx.cycle_graph(5), sampler="exact")
    >>> result.num_colors, result.optimal
    (3, True)
    """
    if graph.is_directed() or graph.is_multigraph():
        raise InvalidParameterError("graph must be an undirected simple networkx.Graph")
    loops = list(nx.selfloop_edges(graph))
    if loops:
        raise InvalidParameterError(f"graph has a self-loop at {loops[0][0]!r}: it cannot be coloured")
    strategy = check_choice(strategy, "strategy", _STRATEGIES)
    time_limit = None if time_limit is None else check_nonnegative(time_limit, "time_limit")
    node_limit = None if node_limit is None else check_positive_int(node_limit, "node_limit")
    checkpoint_interval = check_nonnegative(checkpoint_interval, "checkpoint_interval")
    sampler = get_sampler(sampler)
    executor = executor or SerialExecutor()
    search = _Search(graph, sampler, strategy=strategy, exhaustive=exhaustive, seed=seed)

    root_bounds = chromatic_lower_bound(graph)
    root = frozenset(graph)
    store = _Checkpoint(checkpoint, graph) if checkpoint is not None else None
    if store is not None and resume and store.path.exists():
        store.load(search)
    else:
        for strategy_name in _GREEDY:
            search.offer(_color_classes(nx.greedy_color(graph, strategy=strategy_name)), strategy_name)
        if root and root_bounds.value < search.best:
            search.seen[root] = 0
            search.push(_Node((), root, root_bounds.value))

    capacity = max(1, executor_workers(executor))
    running: dict = {}
    stop_reason = None
    last_progress = last_checkpoint = time.perf_counter()
    while search.heap or running:
        if search.best <= root_bounds.value:
            stop_reason = "bounds-met"
            break
        if time_limit is not None and search.elapsed() >= time_limit:
            stop_reason = "time-limit"
            break
        started = search.stats["nodes_explored"] + len(running)
        while search.heap and len(running) < capacity and (node_limit is None or started < node_limit):
            node = search.pop()
            if node.bound >= search.best:
                search.stats["nodes_pruned"] += 1
                continue
            running[executor.submit(_expand, search.task(node))] = node
            started += 1
        if not running:
            stop_reason = "node-limit" if search.heap else "exhausted"
            break
        timeout = None if time_limit is None else max(0.0, time_limit - search.elapsed())
        done, _ = wait(
            running, timeout=min(0.5, timeout) if timeout is not None else 0.5, return_when=FIRST_COMPLETED
        )
        for future in done:
            search.absorb(running.pop(future), future.result())
        now = time.perf_counter()
        if progress is not None and now - last_progress >= 0.5:
            progress(_progress(search, running.values()))
            last_progress = now
        if store is not None and now - last_checkpoint >= checkpoint_interval:
            store.save(search, running.values())
            last_checkpoint = now
    else:
        stop_reason = "exhausted"
    if stop_reason == "exhausted" and search.best <= root_bounds.value:
        stop_reason = "bounds-met"

    for future in running:
        future.cancel()
    exact = search.exhaustive and search.enumeration_complete
    lower = root_bounds.value
    if exact:
        lower = max(
            lower, search.frontier_bound(running.values()) if stop_reason != "exhausted" else search.best
        )
    if store is not None:
        store.save(search, running.values())
    labels = {v: graph.nodes[v].get("label", v) for v in graph}
    coloring = {v: color for color, cls in enumerate(search.incumbent) for v in cls}
    verify_coloring(graph, coloring)
    stats = {
        **{
            key: int(search.stats[key])
            for key in ("nodes_explored", "completions", "nodes_pruned", "duplicates")
        },
        "open_nodes": len(search.heap) + len(running),
        "root_lower_bound": root_bounds.value,
        "root_bounds": root_bounds.__dict__.copy(),
        "initial_colors": min(
            (colors for _, colors, source in search.incumbents if source in _GREEDY), default=0
        ),
        "stop_reason": stop_reason,
        "exhaustive": exact,
        "strategy": strategy,
        "seconds": round(search.elapsed(), 6),
        "incumbents": search.incumbents,
        "sampler": {key: float(value) for key, value in sorted(search.sampler_stats.items())},
    }
    if progress is not None:
        progress(_progress(search, ()))
    return ColoringResult(
        coloring={labels[v]: color for v, color in coloring.items()},
        num_colors=search.best,
        lower_bound=min(lower, search.best),
        optimal=lower >= search.best,
        stats=stats,
    )


def _progress(search: _Search, running) -> dict:
    running = list(running)
    bound = search.frontier_bound(running) if search.exhaustive else None
    return {
        "nodes": int(search.stats["nodes_explored"]),
        "open": len(search.heap) + len(running),
        "incumbent": search.best,
        "bound": bound,
        "elapsed": search.elapsed(),
    }


class _Checkpoint:
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

    def save(self, search: _Search, running) -> None:
        """Write the state, running nodes included as open ones, to ``path`` atomically."""
        nodes = [entry[-1] for entry in search.heap] + list(running)
        state = {
            "version": _CHECKPOINT_VERSION,
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

    def load(self, search: _Search) -> None:
        """Restore a saved state into ``search``."""
        try:
            state = json.loads(self.path.read_text())
        except (OSError, ValueError) as exc:
            raise SearchError(f"{self.path}: cannot read checkpoint: {exc}") from exc
        if state.get("version") != _CHECKPOINT_VERSION or state.get("graph") != self.fingerprint:
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
            search.push(_Node(classes, residual, item["bound"], item["complete"], skip))
        search.seen = {self._set(ids): depth for ids, depth in state["seen"]}
        search.stats.update(state["stats"])
        search.sampler_stats.update(state["sampler"])
        search.enumeration_complete = state["enumeration_complete"]
        search.elapsed_before = state["elapsed"]
