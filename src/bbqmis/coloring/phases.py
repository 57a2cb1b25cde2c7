"""The phases that colour one component's core, one function each, in the order the pipeline runs them.

Every phase works on a :class:`~bbqmis.coloring.component.CoreState` (the core, the incumbent, the bound, the
statistics) under the run's deadline, and records in ``CoreState.settled`` why no more
search is needed once the colours meet the bound:

- :func:`reduce_phase`: a maximum clique (:func:`~bbqmis.coloring.classical.clique.graph_clique`,
  at most a tenth of the time left) is the first lower bound; vertices of smaller degree
  outside it are peeled off (:func:`~bbqmis.coloring.classical.reduce.peel`); the core gets
  the spectral and odd-cycle bounds (skipped above :data:`SPECTRAL_MAX_NODES` vertices),
  greedy incumbents (DSATUR, then :data:`GREEDY_STRATEGIES` while a twentieth of the
  time left allows) and the Mycielskian bound of that clique and of greedy ones
  (:func:`~bbqmis.coloring.classical.mycielski.mycielski_bound`, at most a tenth of the
  time left and 5 s; its witness is ``CoreState.mycielski``);
- :func:`sat_phase`: SAT (:func:`~bbqmis.coloring.classical.sat.sat_coloring`) for a first
  second, which settles most small cores at once;
- :func:`tabucol_phase`: TabuCol (:func:`~bbqmis.coloring.classical.tabucol.improve_coloring`)
  lowers the incumbent towards the bound;
- :func:`exact_phase`: SAT when the encoding is small enough, else exact DSATUR
  (:func:`~bbqmis.coloring.classical.dsatur_exact.exact_coloring`) on a core of at most
  :data:`EXACT_MAX_NODES` vertices, until :func:`exact_deadline`;
- :func:`lp_phase`: the set-cover LP bound (:func:`~bbqmis.coloring.lp.lp_bound.lp_bound`);
- :func:`tree_phase`: the BBQ-MIS tree (:func:`~bbqmis.coloring.tree.search.run_tree`), or
  :func:`price_phase`: branch-and-price (:func:`~bbqmis.coloring.lp.branch_price.branch_and_price`).

Every phase before the tree also ends at once when the memory limit is reached (the tree
then stops for it), and the LP phase ends at a stop request.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import networkx as nx
import numpy as np

from .classical.bounds import ChromaticBounds, adjacency_bounds, dsatur_coloring
from .classical.clique import graph_clique
from .classical.dsatur_exact import exact_coloring
from .classical.mycielski import MycielskiWitness, mycielski_bound
from .classical.reduce import extend_coloring, peel
from .classical.sat import sat_clauses, sat_coloring
from .classical.tabucol import improve_coloring
from .component import ComponentOutcome, CoreState, SearchContext
from .limits import STOP_REASONS, Limits, resident_memory_gb
from .lp.branch_price import branch_and_price, pricers_for
from .lp.lp_bound import lp_bound
from .lp.node_lp import MAX_GRAPH_NODES, NodeLP
from .lp.pricing import device_work
from .result import color_classes
from .tree.search import run_tree
from .tree.snapshot import dump_price, dump_search, restore_price, restore_search
from .tree.tree import Node, SearchState, from_bits, progress_snapshot, to_bits

__all__ = [
    "EXACT_MAX_NODES",
    "GREEDY_STRATEGIES",
    "SPECTRAL_MAX_NODES",
    "exact_deadline",
    "exact_phase",
    "lp_phase",
    "price_phase",
    "reduce_phase",
    "sat_phase",
    "tabucol_phase",
    "tree_phase",
]

#: Greedy colourings whose best is the first incumbent: DSATUR, and two networkx strategies.
GREEDY_STRATEGIES = ("DSATUR", "largest_first", "smallest_last")
#: Largest core whose spectral bounds are computed (a dense eigendecomposition, O(n^3)).
SPECTRAL_MAX_NODES = 1500
#: Share of the time left that the clique search may use (and, after it, the Mycielskian bound).
_CLIQUE_SHARE = 0.1
#: Longest search for a Mycielskian bound at the root, in seconds, whatever the time limit.
_MYCIELSKI_CAP_SECONDS = 5.0
#: Share of the time left for greedy colourings after the first (DSATUR), which always runs.
_GREEDY_SHARE = 0.05
#: Largest core that exact DSATUR branch-and-bound and the LP bound try before the tree.
EXACT_MAX_NODES = 200
#: Longest exact DSATUR and TabuCol phases, in seconds, whatever the time limit.
_EXACT_CAP_SECONDS, _LOCAL_CAP_SECONDS = 60.0, 10.0
#: Seconds of the first SAT attempt, before TabuCol (within the exact share).
_FIRST_SAT_SECONDS = 1.0
#: TabuCol moves per colour count tried: a few hundred per vertex, so a small core whose
#: bound is below its chromatic number does not spend seconds failing to reach it.
_LOCAL_ITERATIONS_PER_VERTEX, _LOCAL_MAX_ITERATIONS = 500, 200_000
#: Share of the time left that TabuCol may use.
_LOCAL_SHARE = 0.2


def reduce_phase(graph: nx.Graph, context: SearchContext) -> CoreState:
    """Clique, peeling, bounds and greedy incumbents: the core the later phases work on.

    Parameters
    ----------
    graph : networkx.Graph
        A connected graph that is not of an easy class
        (:func:`~bbqmis.coloring.classical.reduce.easy_coloring`).
    context : SearchContext

    Returns
    -------
    CoreState

    Examples
    --------
    >>> from bbqmis.coloring.limits import Clock, Every, Limits
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
    >>> limits = Limits(time_limit=60)
    >>> context = SearchContext(
    ...     sampler=ExactSampler(), executor=SerialExecutor(), limits=limits, clock=Clock(limits),
    ...     strategy="best-first", exhaustive=True, seed=0, report=lambda snapshot: None,
    ...     save_tree=lambda tree: None, checkpoint_every=Every(3600.0),
    ... )
    >>> graph = nx.complete_graph(4)
    >>> graph.add_edges_from([(3, 4), (4, 5)])  # a K4 with a tail, which is peeled
    >>> state = reduce_phase(graph, context)
    >>> state.core.number_of_nodes(), len(state.peeled), state.lower, state.colors, state.settled
    (4, 2, 4, 4, 'bounds')
    """
    context.report({"phase": "clique"})
    nodes = list(graph)
    clique = graph_clique(graph, nodes, deadline=_phase_deadline(context, _CLIQUE_SHARE, math.inf))
    clique_vertices = [nodes[i] for i in clique.clique]
    core_nodes, peeled = peel(graph, clique_vertices)
    core = graph if not peeled else graph.subgraph([v for v in nodes if v in core_nodes]).copy()
    context.report({"phase": "bounds"})
    incumbent, source = _greedy_incumbent(core, _phase_deadline(context, _GREEDY_SHARE, math.inf))
    start = time.perf_counter()
    witness = (
        mycielski_bound(
            core,
            [[v for v in clique_vertices if v in core]],
            target=len(set(incumbent.values())),
            deadline=_phase_deadline(context, _CLIQUE_SHARE, _MYCIELSKI_CAP_SECONDS),
        )
        if context.mycielski
        else MycielskiWitness((), ())
    )
    bounds = replace(_core_bounds(core, clique.size), mycielski=witness.bound)
    stats: dict[str, Any] = {
        "peeled": len(peeled),
        "root_bounds": bounds.__dict__.copy(),
        "initial_colors": len(set(incumbent.values())),
        "mycielski": {
            "bound": witness.bound,
            "clique": len(witness.clique),
            "levels": len(witness.levels),
            "seconds": round(time.perf_counter() - start, 6),
        },
    }
    state = CoreState(graph, core, peeled, clique_vertices, incumbent, source, bounds.value, stats)
    state.mycielski = witness
    state.settle(context.global_lower)
    return state


def exact_deadline(context: SearchContext) -> float:
    """When the exact phases end (:func:`time.perf_counter`): ``exact_share`` of the time left, <= 60 s.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> limits = Limits(time_limit=10)
    >>> context = SimpleNamespace(limits=limits, clock=Clock(limits), exact_share=0.5)
    >>> 4 < exact_deadline(context) - time.perf_counter() <= 5
    True
    """
    return _phase_deadline(context, context.exact_share, _EXACT_CAP_SECONDS)


def sat_phase(state: CoreState, context: SearchContext, deadline: float) -> None:
    """A first short SAT look (at most a second, before ``deadline``), when the core's encoding fits.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from bbqmis.coloring.limits import Limits
    >>> graph = nx.mycielski_graph(4)
    >>> state = CoreState(graph, graph, [], [0, 1], nx.greedy_color(graph), "greedy", 2, {})
    >>> context = SimpleNamespace(
    ...     limits=Limits(), report=lambda snapshot: None, max_sat_clauses=10**6, global_lower=0
    ... )
    >>> sat_phase(state, context, deadline=time.perf_counter() + 30)
    >>> state.colors, state.lower, state.settled
    (4, 4, 'sat')
    """
    if _exact_method(state.core, state.colors, context.max_sat_clauses) != "sat":
        return
    _report(context, "sat", state)
    before = state.colors
    first = min(deadline, time.perf_counter() + _FIRST_SAT_SECONDS)
    state.stats["sat_first"] = _exact(state, "sat", context, first)
    state.source = "sat" if state.colors < before else state.source
    state.settle(context.global_lower, "sat")


def tabucol_phase(state: CoreState, context: SearchContext) -> None:
    """TabuCol from the incumbent down towards the bound, for a fifth of the time left (at most 10 s).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> graph = nx.cycle_graph(8)
    >>> limits = Limits(time_limit=60)
    >>> context = SimpleNamespace(
    ...     limits=limits, clock=Clock(limits), report=lambda snapshot: None, seed=0, global_lower=0
    ... )
    >>> state = CoreState(graph, graph, [], [0, 1], {v: v % 4 for v in graph}, "greedy", 2, {})
    >>> tabucol_phase(state, context)
    >>> state.colors, state.source, state.stats["tabucol_colors"], state.settled
    (2, 'tabucol', 2, 'bounds')
    """
    _report(context, "local", state)
    nodes = list(state.core)
    before = state.colors
    colors = improve_coloring(
        state.sparse,
        np.array([state.incumbent[v] for v in nodes]),
        deadline=_phase_deadline(context, _LOCAL_SHARE, _LOCAL_CAP_SECONDS),
        max_iterations_per_k=min(_LOCAL_MAX_ITERATIONS, _LOCAL_ITERATIONS_PER_VERTEX * len(nodes)),
        seed=context.seed,
        lower_bound=max(1, state.lower),
    )
    state.incumbent = {v: int(c) for v, c in zip(nodes, colors, strict=True)}
    state.source = "tabucol" if state.colors < before else state.source
    state.stats["tabucol_colors"] = state.colors
    state.settle(context.global_lower)


def exact_phase(state: CoreState, context: SearchContext, deadline: float) -> None:
    """SAT when the core's encoding fits, else exact DSATUR on a small core, until ``deadline``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from bbqmis.coloring.limits import Limits
    >>> graph = nx.mycielski_graph(4)
    >>> state = CoreState(graph, graph, [], [0, 1], nx.greedy_color(graph), "greedy", 2, {})
    >>> context = SimpleNamespace(
    ...     limits=Limits(), report=lambda snapshot: None, max_sat_clauses=0, global_lower=0
    ... )
    >>> exact_phase(state, context, deadline=time.perf_counter() + 30)  # no SAT: exact DSATUR
    >>> state.colors, state.lower, state.stats["exact"]["optimal"], state.settled
    (4, 4, True, 'exact')
    """
    method = _exact_method(state.core, state.colors, context.max_sat_clauses)
    if method is None:
        return
    _report(context, method, state)
    before = state.colors
    state.stats[method] = _exact(state, method, context, deadline)
    if state.colors < before:
        state.source = "dsatur-exact" if method == "exact" else method
    state.settle(context.global_lower, method)


def lp_phase(state: CoreState, context: SearchContext) -> None:
    """The set-cover LP bound by column generation, for ``lp_share`` of the time left (at most 60 s).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> from bbqmis.coloring.samplers import GreedySampler
    >>> graph = nx.mycielski_graph(4)  # chi 4, fractional chi 2.9: the LP proves 3
    >>> limits = Limits(time_limit=60)
    >>> context = SimpleNamespace(
    ...     limits=limits, clock=Clock(limits), report=lambda snapshot: None, seed=0, global_lower=0,
    ...     sampler=GreedySampler(), lp_share=0.5,
    ... )
    >>> state = CoreState(graph, graph, [], [0, 1], nx.greedy_color(graph), "greedy", 2, {})
    >>> lp_phase(state, context)
    >>> state.lower, state.stats["lp"]["bound"], state.settled, len(state.columns) > 0
    (3, 3, None, True)
    """
    _report(context, "lp", state)
    lp = lp_bound(
        state.core,
        pricers=pricers_for(context.sampler),
        deadline=_phase_deadline(context, context.lp_share, _EXACT_CAP_SECONDS),
        quick=False,
        settle=True,
        seed=context.seed,
        stop=lambda: context.limits.stop.is_set() or context.limits.memory_full(),
    )
    state.lower, state.columns, state.pricer_stats = max(state.lower, lp.bound), lp.columns.sets(), lp.stats
    state.stats["lp"] = {
        "value": lp.value,
        "bound": lp.bound,
        "certified": lp.certified,
        "rounds": lp.rounds,
        "improving_columns": {
            name: int(counters.get("improving_columns", 0))
            for name, counters in lp.stats.items()
            if name != "master"
        },
        "device": device_work(lp.stats),
    }
    state.settle(context.global_lower, "lp")


def price_phase(state: CoreState, context: SearchContext, saved_tree: dict | None) -> ComponentOutcome:
    """Branch-and-price on the core instead of the BBQ-MIS tree, for the time left.

    Its state is checkpointed like the tree's (``context.save_tree``), and ``saved_tree``
    resumes it.

    Examples
    --------
    >>> from bbqmis.coloring.limits import Clock, Every, Limits
    >>> from bbqmis.coloring.samplers import GreedySampler
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
    >>> limits = Limits(time_limit=60)
    >>> context = SearchContext(
    ...     sampler=GreedySampler(), executor=SerialExecutor(), limits=limits, clock=Clock(limits),
    ...     strategy="best-first", exhaustive=True, seed=0, report=lambda snapshot: None,
    ...     save_tree=lambda tree: None, checkpoint_every=Every(3600.0), method="price",
    ... )
    >>> graph = nx.mycielski_graph(4)
    >>> state = CoreState(graph, graph, [], [0, 1], nx.greedy_color(graph), "greedy", 2, {})
    >>> outcome = price_phase(state, context, None)
    >>> outcome.num_colors, outcome.lower_bound, outcome.how
    (4, 4, 'price')
    """
    context.report({"phase": "price"})
    core = state.core
    resume = None if saved_tree is None else restore_price(saved_tree, core, context.checkpoint_name)
    outcome = branch_and_price(
        core,
        state.incumbent,
        lower=state.lower,
        pricers=pricers_for(context.sampler),
        deadline=context.clock.deadline(),
        stop=context.limits.stop.is_set,
        node_limit=context.limits.node_limit,
        memory_full=context.limits.memory_full,
        seed=context.seed,
        resume=resume,
        on_checkpoint=lambda tree: context.save_tree(dump_price(tree, core)),
        checkpoint_every=context.checkpoint_every,
    )
    stats = state.stats
    stats["price"] = {
        "nodes": outcome.nodes,
        "improving_columns": outcome.improving_columns,
        "device": outcome.device,
    }
    stats["nodes_explored"], stats["open_nodes"] = outcome.nodes, len(outcome.tree.open)
    coloring = extend_coloring(state.graph, outcome.coloring, state.peeled)
    stopped = outcome.stopped and ("interrupted" if context.limits.interrupted else outcome.stopped)
    how = "price" if outcome.stopped is None else f"price:{stopped}"
    return ComponentOutcome(coloring, max(state.lower, outcome.lower_bound), how, stopped, stats)


def tree_phase(state: CoreState, context: SearchContext, saved_tree: dict | None) -> ComponentOutcome:
    """Run the BBQ-MIS tree on the core for the time left, resuming ``saved_tree`` if given.

    The LP phase's columns (``state.columns``) seed the column pool that bounds the tree's
    nodes by LP, unless ``context.lp_share`` is 0 or the core has more than
    :data:`~bbqmis.coloring.lp.node_lp.MAX_GRAPH_NODES` vertices; its pricer statistics
    tell the node LPs how long each pricer's calls take.

    Examples
    --------
    >>> from bbqmis.coloring.limits import Clock, Every, Limits
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
    >>> limits = Limits(time_limit=60)
    >>> context = SearchContext(
    ...     sampler=ExactSampler(), executor=SerialExecutor(), limits=limits, clock=Clock(limits),
    ...     strategy="best-first", exhaustive=True, seed=0, report=lambda snapshot: None,
    ...     save_tree=lambda tree: None, checkpoint_every=Every(3600.0),
    ... )
    >>> graph = nx.mycielski_graph(4)
    >>> state = CoreState(graph, graph, [], [0, 1], nx.greedy_color(graph), "greedy", 2, {})
    >>> outcome = tree_phase(state, context, None)
    >>> outcome.num_colors, outcome.lower_bound, outcome.how
    (4, 4, 'search:exhausted')
    """
    nodes = list(state.core)
    index = {v: i for i, v in enumerate(nodes)}
    graph = nx.relabel_nodes(state.core, index)
    node_lp = _node_lp(graph, [[index[v] for v in column] for column in state.columns], state, context)
    search = SearchState(
        graph,
        context.sampler,
        strategy=context.strategy,
        exhaustive=context.exhaustive,
        seed=context.seed,
        clock=context.clock,
        node_lp=node_lp,
    )
    if saved_tree is not None:
        restore_search(search, saved_tree, context.checkpoint_name)
    else:
        search.offer(
            tuple(to_bits(index[v] for v in c) for c in color_classes(state.incumbent)), state.source
        )
        search.seen[(1 << len(nodes)) - 1] = 0
        search.push(Node((), (1 << len(nodes)) - 1, state.lower))
    context.report({"phase": "search", **progress_snapshot(search, ())})
    outcome = run_tree(
        search,
        context.executor,
        context.limits,
        state.lower,
        on_progress=lambda snapshot: context.report({"phase": "search", **snapshot}),
        on_checkpoint=lambda running: context.save_tree(dump_search(search, running)),
        checkpoint_every=context.checkpoint_every,
    )
    context.save_tree(dump_search(search, outcome.running))
    tree_coloring = {nodes[v]: color for color, bits in enumerate(search.incumbent) for v in from_bits(bits)}
    state.stats.update(_tree_stats(search, len(outcome.running), outcome.events, node_lp))
    stopped = outcome.stop_reason if outcome.stop_reason in STOP_REASONS else None
    coloring = extend_coloring(state.graph, tree_coloring, state.peeled)
    return ComponentOutcome(
        coloring, outcome.lower_bound, f"search:{outcome.stop_reason}", stopped, state.stats
    )


def _node_lp(
    graph: nx.Graph, columns: list[list[int]], state: CoreState, context: SearchContext
) -> NodeLP | None:
    """The LP bound of the tree's nodes over ``graph`` (the core relabelled 0..n-1), if there is one."""
    if context.lp_share <= 0 or graph.number_of_nodes() > MAX_GRAPH_NODES:  # larger: no dense adjacency
        return None
    return NodeLP(
        graph,
        pricers_for(context.sampler),
        columns=columns,
        max_nodes=EXACT_MAX_NODES,
        seed=context.seed,
        pricer_stats=state.pricer_stats,
    )


def _tree_stats(search: SearchState, running: int, events: Any, node_lp: NodeLP | None) -> dict[str, Any]:
    """Statistics of a finished tree: counters, open nodes (``running`` included), incumbents, node LPs."""
    counters = (
        "nodes_explored",
        "completions",
        "nodes_pruned",
        "duplicates",
        "nodes_from_sampler",
        "nodes_from_enumeration",
    )
    stats: dict[str, Any] = {
        **{key: int(search.stats[key]) for key in counters},
        "open_nodes": len(search.heap) + running,
        "incumbents": search.incumbents,
        "exhaustive": search.exhaustive,
        "strategy": search.strategy,
        "events": events,
        "sampler": {key: float(value) for key, value in sorted(search.sampler_stats.items())},
    }
    if node_lp is not None:
        stats["node_lp"] = {
            "nodes": int(node_lp.stats["nodes"]),
            "raised": int(node_lp.stats["raised"]),
            "pruned": int(search.stats["lp_pruned"]),
            "seconds": round(float(node_lp.stats["seconds"]), 6),
            "columns": len(node_lp.pool),
            "columns_from_tree": int(node_lp.stats["columns_from_tree"]),
            "improving_columns": dict(sorted(node_lp.improving_columns.items())),
            "device": dict(node_lp.device),
        }
    return stats


def _report(context: SearchContext, phase: str, state: CoreState) -> None:
    """Report the start of a phase with the colours of the incumbent and the bound so far."""
    context.report({"phase": phase, "incumbent": state.colors, "bound": state.lower})


def _phase_deadline(context: SearchContext, share: float, cap: float) -> float:
    """A phase's deadline: ``share`` of the time left, at most ``cap`` s from now; now if memory is full."""
    if context.limits.memory_full():  # the tree then stops at once, for the memory limit
        return time.perf_counter()
    return min(context.clock.deadline(share), time.perf_counter() + cap)


def _exact_method(core: nx.Graph, colors: int, max_sat_clauses: int) -> str | None:
    """The exact phase for a core: SAT when its encoding fits, else DSATUR on a small core."""
    if sat_clauses(core.number_of_nodes(), core.number_of_edges(), colors - 1) <= max_sat_clauses:
        return "sat"
    return "exact" if core.number_of_nodes() <= EXACT_MAX_NODES else None


def _exact(state: CoreState, method: str, context: SearchContext, deadline: float) -> dict[str, Any]:
    """SAT or exact DSATUR on the core until ``deadline`` (perf_counter): update the state; a summary."""
    nodes = list(state.core)
    initial = np.array([state.incumbent[v] for v in nodes])
    if method == "sat":
        position = {v: i for i, v in enumerate(nodes)}
        result = sat_coloring(
            state.sparse,
            initial,
            clique=[position[v] for v in state.clique],
            lower=state.lower,
            deadline=deadline,
            memory_gb=_child_memory_gb(context.limits),
            stop=context.limits.stop.is_set,
        )
    else:
        result = exact_coloring(state.sparse, lower=state.lower, initial=initial, deadline=deadline)
    state.incumbent = {v: int(c) for v, c in zip(nodes, result.colors, strict=True)}
    state.lower = max(state.lower, result.lower_bound)
    return {"optimal": result.optimal, "nodes": result.nodes, "stopped": result.stopped}


def _child_memory_gb(limits: Limits) -> float | None:
    """Memory a solver process may take: what the run's limit leaves this process (at least 0.5 GB)."""
    if not limits.memory_limit:
        return None
    return max(0.5, limits.memory_limit - resident_memory_gb())


def _core_bounds(core: nx.Graph, clique: int) -> ChromaticBounds:
    """The clique found, with the spectral and odd-cycle bounds when the core is small enough."""
    if core.number_of_nodes() > SPECTRAL_MAX_NODES:
        return ChromaticBounds(clique=clique, odd_cycle=3)  # easy_coloring ruled out bipartite
    spectral = adjacency_bounds(nx.to_numpy_array(core, dtype=bool, weight=None))
    return ChromaticBounds(clique, *list(spectral.__dict__.values())[1:])


def _greedy_incumbent(core: nx.Graph, deadline: float) -> tuple[dict[Hashable, int], str]:
    """The best of the :data:`GREEDY_STRATEGIES` colourings, and the strategy's name.

    DSATUR always runs; each other strategy only when, at DSATUR's pace, it would end
    before ``deadline`` (:func:`time.perf_counter` time).
    """
    start = time.perf_counter()
    best = (dsatur_coloring(core), "DSATUR")
    pace = time.perf_counter() - start
    for strategy in GREEDY_STRATEGIES[1:]:
        if time.perf_counter() + pace > deadline:
            break
        coloring = nx.greedy_color(core, strategy=strategy)
        if len(set(coloring.values())) < len(set(best[0].values())):
            best = (coloring, strategy)
    return best
