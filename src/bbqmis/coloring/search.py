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

import os
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, wait

import networkx as nx

from backends.errors import InvalidParameterError
from backends.validation import check_choice, check_nonnegative, check_positive_int

from .bounds import chromatic_lower_bound
from .checkpoint import Checkpoint
from .executors import SerialExecutor, executor_workers
from .expand import expand
from .result import ColoringResult, color_classes, verify_coloring
from .samplers import MISSampler, get_sampler
from .tree import STRATEGIES, Node, SearchState, progress_snapshot

__all__ = ["ColoringResult", "color_graph", "verify_coloring"]

#: networkx greedy strategies whose best colouring is the first incumbent.
_GREEDY = ("DSATUR", "largest_first", "smallest_last")


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
    strategy = check_choice(strategy, "strategy", STRATEGIES)
    time_limit = None if time_limit is None else check_nonnegative(time_limit, "time_limit")
    node_limit = None if node_limit is None else check_positive_int(node_limit, "node_limit")
    checkpoint_interval = check_nonnegative(checkpoint_interval, "checkpoint_interval")
    sampler = get_sampler(sampler)
    executor = executor or SerialExecutor()
    search = SearchState(graph, sampler, strategy=strategy, exhaustive=exhaustive, seed=seed)

    root_bounds = chromatic_lower_bound(graph)
    root = frozenset(graph)
    store = Checkpoint(checkpoint, graph) if checkpoint is not None else None
    if store is not None and resume and store.path.exists():
        store.load(search)
    else:
        for strategy_name in _GREEDY:
            search.offer(color_classes(nx.greedy_color(graph, strategy=strategy_name)), strategy_name)
        if root and root_bounds.value < search.best:
            search.seen[root] = 0
            search.push(Node((), root, root_bounds.value))

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
            running[executor.submit(expand, search.task(node))] = node
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
            progress(progress_snapshot(search, running.values()))
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
        progress(progress_snapshot(search, ()))
    return ColoringResult(
        coloring={labels[v]: color for v, color in coloring.items()},
        num_colors=search.best,
        lower_bound=min(lower, search.best),
        optimal=lower >= search.best,
        stats=stats,
    )
