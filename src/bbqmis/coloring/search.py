"""BBQ-MIS: graph colouring by branch-and-bound over maximal independent sets.

A tree node is a partial colouring: the colour classes chosen so far and the residual
graph ``H`` of uncoloured vertices. A node is expanded on a worker: a branching vertex
``v`` of ``H`` is chosen (largest degree), and every child gives ``v``'s colour class,
a maximal independent set of ``H`` containing ``v``. Such sets are exactly
``{v} | S`` for the maximal independent sets ``S`` of ``H - N[v]``, and every colouring
of ``H`` can be rearranged so that ``v``'s class is one of them; so branching over
*all* of them is exhaustive, and the search can prove optimality.

The sampler (QAOA, annealing, greedy, random, exact; see :mod:`bbqmis.coloring.samplers`)
decides which children come first, and supplies early incumbents through a DSATUR
completion of its best children. With ``exhaustive=True`` (the default) the children
the sampler did not find are enumerated afterwards, lazily: a *completion node* with
the parent's bound waits in the queue and is expanded only if the bounds cannot prune
it. With ``exhaustive=False`` only sampled sets (of ``H`` itself, not forced to contain
``v``) are branched on, as in the reference implementation, and optimality is claimed
only when the incumbent meets the root lower bound.

A node's bound is its colours plus the best lower bound of ``H``
(:func:`bbqmis.coloring.bounds.adjacency_bounds`: clique, odd cycle, Hoffman, Edwards,
inertia; rounded up). The manager (this process) holds the queue, the incumbent and one
table of residual vertex sets seen by all workers, so no residual is explored twice.
Workers run on any :class:`concurrent.futures.Executor`.

Before any tree, the graph is split into connected components, each coloured on its own
(:mod:`bbqmis.coloring.component`): easy classes are settled without search, low-degree
vertices are peeled off, and a component that cannot raise the colours the graph needs is
only coloured greedily. Time, node and memory limits hold in every phase
(:mod:`bbqmis.coloring.limits`); a limit ends the run with the best colouring, the proven
bound, ``optimal=False`` and the reason in ``ColoringResult.stopped``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from typing import Any

import networkx as nx

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_choice, check_nonnegative, check_probability

from .bounds import dsatur_coloring
from .checkpoint import Checkpoint
from .component import ComponentOutcome, SearchContext, color_component
from .executors import SerialExecutor
from .limits import STOP_REASONS, Clock, Every, Limits, resident_memory_gb
from .reduce import components, easy_coloring, merge_colorings
from .result import SUMMED_STATS, ColoringResult, verify_coloring
from .samplers import SamplerLike, get_sampler
from .tree import STRATEGIES

__all__ = ["METHODS", "ColoringResult", "color_graph", "verify_coloring"]

#: Tree methods of :func:`color_graph`.
METHODS = ("bbq", "price")


def color_graph(
    graph: nx.Graph,
    sampler: SamplerLike = "qaoa",
    executor: Executor | None = None,
    *,
    time_limit: float | None = None,
    node_limit: int | None = None,
    memory_limit: float | None = None,
    checkpoint: str | os.PathLike | None = None,
    resume: bool = False,
    checkpoint_interval: float = 30.0,
    strategy: str = "best-first",
    exhaustive: bool = True,
    exact_share: float = 0.3,
    lp_share: float = 0.1,
    method: str = "bbq",
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
        Seconds after which the best colouring so far is returned; every phase (bounds,
        heuristics, expansions on workers) stops by itself at this time. A resumed run
        gets the whole limit again (the seconds of the runs it resumes are not counted),
        and even with no time left it keeps the checkpoint's colouring, bound and tree.
    node_limit : int, optional
        Node expansions after which the search stops.
    memory_limit : float, optional
        GB of resident memory of this process; near 60 % of it the search turns
        depth-first and drops its table of seen residuals, at 90 % it stops. Default
        half of the memory available to the process.
    checkpoint : path, optional
        JSON file written atomically every ``checkpoint_interval`` seconds and at the
        end: components done, incumbent, open nodes (including running ones), seen
        residuals, statistics, the settings and a checksum.
    resume : bool, default=False
        Continue from ``checkpoint`` if the file exists (it must be for the same graph and
        the same settings).
    checkpoint_interval : float, default=30.0
        Seconds between checkpoint writes.
    strategy : {"best-first", "depth-first"}, default="best-first"
        Queue order: lowest bound first (deepest on ties), or deepest first.
    exhaustive : bool, default=True
        Branch on every maximal independent set containing the branching vertex, in
        the sampler's order (exact). False: branch only on sampled sets (heuristic).
    exact_share : float, default=0.3
        Share of the time left (at most 60 s) of the classical exact phase before the
        tree: SAT (CaDiCaL), or exact DSATUR on a core of at most 200 vertices whose SAT
        encoding is too large; 0 leaves the proof to the tree and its sampler alone.
    lp_share : float, default=0.1
        Share of the time left (at most 60 s) of the root LP bound (column generation
        with the sampler's pricer, certified by an exact MWIS) on a core of at most 200
        vertices. Its columns, and every class the tree generates, then form a pool that
        bounds each tree node of at most 200 residual vertices by LP, within a quarter of
        the run's time (see :class:`~bbqmis.coloring.node_lp.NodeLP`); 0 turns LP bounds off.
    method : {"bbq", "price"}, default="bbq"
        The tree: the BBQ-MIS branch-and-bound over sampled maximal independent sets,
        or branch-and-price (the set-cover LP at every node of a Zykov tree, columns
        priced by the sampler's counterpart; see :mod:`bbqmis.coloring.branch_price`).
    seed : int, optional
        Makes the run reproducible (each node's sampler seed derives from it).
    progress : callable, optional
        Called about twice a second with a dict: ``phase`` (``"clique"``, ``"bounds"``,
        ``"search"``, ``"done"``), ``component`` and ``components``, ``elapsed``,
        ``memory_gb``, and during a tree search ``nodes``, ``open``, ``incumbent``, ``bound``.

    Returns
    -------
    ColoringResult

    Raises
    ------
    InvalidParameterError
        For a directed graph, a multigraph, a self-loop or a bad parameter.
    SearchError
        If ``resume`` finds a checkpoint of another graph or settings, or a corrupt one.

    Examples
    --------
    >>> result = color_graph(nx.cycle_graph(5), sampler="exact")
    >>> result.num_colors, result.optimal
    (3, True)
    """
    _check_graph(graph)
    strategy = check_choice(strategy, "strategy", STRATEGIES)
    limits = Limits.with_defaults(time_limit, node_limit, memory_limit)
    interval = check_nonnegative(checkpoint_interval, "checkpoint_interval")
    sampler = get_sampler(sampler)
    exact_share = check_probability(exact_share, "exact_share")
    lp_share = check_probability(lp_share, "lp_share")
    method = check_choice(method, "method", METHODS)
    settings = {
        "method": method,
        "exhaustive": bool(exhaustive),
        "exact_share": exact_share,
        "lp_share": lp_share,
        "sampler": type(sampler).__name__,
        "strategy": strategy,
        "seed": seed,
    }
    store = None if checkpoint is None else Checkpoint(checkpoint, graph, settings)
    saved = store.load() if store is not None and resume and store.exists() else {}
    clock = Clock(limits, before=float(saved.get("elapsed", 0.0)))
    nodes = list(graph)
    index = {v: i for i, v in enumerate(nodes)}
    parts = components(graph)
    done: dict[int, ComponentOutcome] = {
        int(i): ComponentOutcome.from_json(data, nodes) for i, data in saved.get("done", {}).items()
    }
    saved_search = saved.get("search") or {}
    # Until the run reaches it, the saved tree is what the checkpoint keeps of its component.
    current: dict[str, Any] = {
        "component": saved_search.get("component", 0),
        "tree": saved_search.get("tree"),
    }

    def report(fields: dict[str, Any]) -> None:
        if progress is not None:
            snapshot = {"component": current["component"] + 1, "components": len(parts), **fields}
            progress({**snapshot, "elapsed": clock.elapsed(), "memory_gb": round(resident_memory_gb(), 3)})

    def save(tree: dict[str, Any] | None = None) -> None:
        """Write the components finished without a limit, and the tree of the one in progress."""
        if tree is not None:
            current["tree"] = tree
        if store is not None:
            finished = {
                str(i): o.to_json(index) for i, o in done.items() if o.stopped is None and o.how != "skipped"
            }
            search = (
                None
                if current["tree"] is None
                else {"component": current["component"], "tree": current["tree"]}
            )
            store.save({"elapsed": clock.elapsed(), "done": finished, "search": search})

    context = SearchContext(
        sampler=sampler,
        executor=executor or SerialExecutor(),
        limits=limits,
        clock=clock,
        strategy=strategy,
        exhaustive=exhaustive,
        seed=seed,
        report=report,
        save_tree=save,
        checkpoint_every=Every(interval),
        checkpoint_name=str(checkpoint),
        global_lower=max((outcome.lower_bound for outcome in done.values()), default=0),
        exact_share=exact_share if exhaustive else 0.0,
        lp_share=lp_share,
        method=method,
    )
    stopped = any(outcome.stopped in STOP_REASONS for outcome in done.values())
    for i, part in enumerate(parts):
        if i in done:
            continue
        resumed_tree = saved_search.get("tree") if saved_search.get("component") == i else None
        if resumed_tree is None and (
            stopped or clock.expired()
        ):  # a limit was reached, maybe between components
            easy = easy_coloring(part)
            if easy is not None:  # exact at no cost, whatever the limits
                done[i] = ComponentOutcome(easy[0], len(set(easy[0].values())), f"easy:{easy[1]}")
                continue
            reason = None if stopped else clock.stop_reason()
            lower = min(part.number_of_nodes(), 1 + (part.number_of_edges() > 0))  # what an edge proves
            done[i] = ComponentOutcome(dsatur_coloring(part), lower, "skipped", reason)  # coloured greedily
            stopped = True
            continue
        current["component"] = i  # a saved tree is restored even with no time left, so it is kept
        done[i] = color_component(part, context, resumed_tree)
        context.global_lower = max(context.global_lower, done[i].lower_bound)
        stopped = done[i].stopped in STOP_REASONS  # a core too large for the tree ends nothing else
        if not stopped:
            current["tree"] = None
            if done[i].searched:  # a finished tree: save its component
                save()
    save()
    report({"phase": "done"})
    return _result(graph, [done[i] for i in range(len(parts))], clock)


def _check_graph(graph: nx.Graph) -> None:
    """Raise unless ``graph`` is an undirected simple graph without self-loops."""
    if graph.is_directed() or graph.is_multigraph():
        raise InvalidParameterError("graph must be an undirected simple networkx.Graph")
    loop = next(iter(nx.selfloop_edges(graph)), None)
    if loop is not None:
        raise InvalidParameterError(f"graph has a self-loop at {loop[0]!r}: it cannot be coloured")


def _result(graph: nx.Graph, outcomes: list[ComponentOutcome], clock: Clock) -> ColoringResult:
    """Combine the components: the colours needed are the most any component needs."""
    coloring: dict[Hashable, int] = merge_colorings(outcome.coloring for outcome in outcomes)
    verify_coloring(graph, coloring)
    num_colors = len(set(coloring.values()))
    lower = min(max((outcome.lower_bound for outcome in outcomes), default=0), num_colors)
    reasons = [outcome.stopped for outcome in outcomes if outcome.stopped]
    stopped = next((reason for reason in reasons if reason in STOP_REASONS), next(iter(reasons), None))
    labels = {v: graph.nodes[v].get("label", v) for v in graph}
    return ColoringResult(
        coloring={labels[v]: color for v, color in coloring.items()},
        num_colors=num_colors,
        lower_bound=lower,
        optimal=lower >= num_colors,
        stopped=None if lower >= num_colors else stopped,
        stats=_stats(outcomes, clock, stopped, lower >= num_colors),
    )


def _stats(
    outcomes: list[ComponentOutcome], clock: Clock, stopped: str | None, optimal: bool
) -> dict[str, Any]:
    """Statistics over all components, with one summary per component that was searched."""
    with_stats = [outcome for outcome in outcomes if outcome.stats]
    stats: dict[str, Any] = {key: sum(int(o.stats.get(key, 0)) for o in with_stats) for key in SUMMED_STATS}
    sampler: dict[str, float] = {}
    for outcome in with_stats:
        for key, value in outcome.stats.get("sampler", {}).items():
            sampler[key] = sampler.get(key, 0.0) + value
    columns: dict[str, int] = {}
    pricing: dict[str, float] = {}
    for outcome in with_stats:
        for phase in ("lp", "node_lp", "price"):
            for name, count in outcome.stats.get(phase, {}).get("improving_columns", {}).items():
                columns[name] = columns.get(name, 0) + int(count)
            for key, value in outcome.stats.get(phase, {}).get("device", {}).items():
                pricing[key] = pricing.get(key, 0.0) + float(value)
    node_lp = {
        key: sum(o.stats.get("node_lp", {}).get(key, 0) for o in with_stats)
        for key in ("nodes", "raised", "pruned", "seconds", "columns_from_tree")
    }
    stats.update(
        components=len(outcomes),
        settled_without_search=sum(not outcome.searched for outcome in outcomes),
        # a component settled or skipped without a search: its bound is the root's, its colouring the first
        root_lower_bound=max(
            (max(o.stats["root_bounds"].values()) if o.stats else o.lower_bound for o in outcomes), default=0
        ),
        initial_colors=max(
            (int(o.stats.get("initial_colors", 0)) if o.stats else o.num_colors for o in outcomes), default=0
        ),
        stop_reason=stopped or ("bounds_met" if optimal else "exhausted"),
        exhaustive=all(o.stats.get("exhaustive", True) for o in with_stats),
        seconds=round(clock.elapsed(), 6),
        incumbents=[inc for o in with_stats for inc in o.stats.get("incumbents", [])],
        sampler=dict(sorted(sampler.items())),
        improving_columns=dict(sorted(columns.items())),
        pricing=dict(sorted(pricing.items())),
        node_lp=node_lp,
        searched=[{"how": o.how, "lower_bound": o.lower_bound, "colors": o.num_colors} for o in with_stats],
    )
    return stats
