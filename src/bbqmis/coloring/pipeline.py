"""The colouring pipeline: components, then per component the phases in order.

:func:`color_graph` checks its parameters, splits the graph into connected components
(:func:`~bbqmis.coloring.classical.reduce.components`) and colours each on its own with
:func:`color_component`, which runs the phases of :mod:`~bbqmis.coloring.phases` in this
order, each under the run's deadline:

1. an easy class (:func:`~bbqmis.coloring.classical.reduce.easy_coloring`) is coloured optimally;
2. a maximum clique (:func:`~bbqmis.coloring.classical.clique.graph_clique`, at most a tenth of the
   time left) gives the first lower bound, and vertices of smaller degree outside it are
   peeled off (:func:`~bbqmis.coloring.classical.reduce.peel`);
3. the core gets the spectral and odd-cycle bounds
   (:func:`~bbqmis.coloring.classical.bounds.adjacency_bounds`, skipped above
   :data:`~bbqmis.coloring.phases.SPECTRAL_MAX_NODES` vertices) and greedy incumbents (DSATUR, then
   largest-first and smallest-last while a twentieth of the time left allows); if a limit
   is reached by then, the component ends with the best of them (``how`` is
   ``"greedy:<reason>"``), so a large graph costs its first colouring past the limit at most;
4. TabuCol (:func:`~bbqmis.coloring.classical.tabucol.improve_coloring`) lowers the incumbent
   towards the bound;
5. an exact phase gets ``exact_share`` of the time left (at most a minute; 0 turns it
   off, so that the BBQ-MIS tree alone does the proof; SAT also gets a first second
   before TabuCol, which settles most small cores at once): SAT
   (:func:`~bbqmis.coloring.classical.sat.sat_coloring`, CaDiCaL asked for one colour fewer until
   it says no) when the encoding has at most ``max_sat_clauses`` clauses, else exact
   DSATUR branch-and-bound (:func:`~bbqmis.coloring.classical.dsatur_exact.exact_coloring`) on a
   core of at most :data:`~bbqmis.coloring.phases.EXACT_MAX_NODES` vertices;
6. when the bounds still do not meet, on a core of at most 200 vertices, the set-cover
   LP bound (:func:`~bbqmis.coloring.lp.lp_bound.lp_bound`, column generation with HiGHS,
   annealing and exact MWIS pricing, Farley bound when cut short) may raise the bound,
   for a tenth of the time left;
7. unless the bounds now meet, or the component cannot raise the colours the graph needs
   anyway (its incumbent is within the lower bound already proven for another
   component), or the core has more than :data:`~bbqmis.coloring.component.TREE_MAX_NODES`
   vertices (then the
   component keeps the colouring so far, with ``stopped="size_limit"``), the BBQ-MIS
   tree searches the core (:func:`~bbqmis.coloring.tree.search.run_tree`), or with
   ``method="price"`` branch-and-price does
   (:func:`~bbqmis.coloring.lp.branch_price.branch_and_price`);
8. the peeled vertices are coloured back without a new colour.

Every phase before the tree also ends at once when the memory limit is reached (the tree
then stops for it), and the LP phase ends at a stop request.

``ComponentOutcome.how`` says which phase settled the component, so a result never
credits the quantum sampler with a proof that SAT, DSATUR or the bounds made.

Time, node and memory limits hold in every phase (:mod:`~bbqmis.coloring.limits`); a limit
ends the run with the best colouring, the proven bound, ``optimal=False`` and the reason in
``ColoringResult.stopped``, and the components not reached yet are only coloured greedily.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from typing import Any

import networkx as nx

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_choice, check_nonnegative, check_probability

from .classical.bounds import dsatur_coloring
from .classical.reduce import components, easy_coloring, merge_colorings
from .component import SIZE_LIMIT, TREE_MAX_NODES, ComponentOutcome, SearchContext
from .limits import STOP_REASONS, Clock, Every, Limits, resident_memory_gb
from .phases import (
    EXACT_MAX_NODES,
    exact_deadline,
    exact_phase,
    lp_phase,
    price_phase,
    reduce_phase,
    sat_phase,
    tabucol_phase,
    tree_phase,
)
from .result import SUMMED_STATS, ColoringResult, verify_coloring
from .samplers import SamplerLike, get_sampler
from .tree.checkpoint import Checkpoint
from .tree.executors import SerialExecutor
from .tree.tree import STRATEGIES

__all__ = ["METHODS", "ColoringResult", "color_component", "color_graph", "verify_coloring"]

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
    mycielski: bool = True,
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
        the run's time (see :class:`~bbqmis.coloring.lp.node_lp.NodeLP`); 0 turns LP bounds off.
    mycielski : bool, default=True
        Raise the root bound by Mycielskian levels grown around a clique
        (:func:`~bbqmis.coloring.classical.mycielski.mycielski_bound`); False keeps the
        clique and degree bounds alone, so that Mycielski graphs, which it settles at the
        root, still exercise the tree and its sampler.
    method : {"bbq", "price"}, default="bbq"
        The tree: the BBQ-MIS branch-and-bound over sampled maximal independent sets,
        or branch-and-price (the set-cover LP at every node of a Zykov tree, columns
        priced by the sampler's counterpart; see :mod:`bbqmis.coloring.lp.branch_price`).
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
    run = _Run(graph, store, saved, Clock(limits, before=float(saved.get("elapsed", 0.0))), progress)
    context = SearchContext(
        sampler=sampler,
        executor=executor or SerialExecutor(),
        limits=limits,
        clock=run.clock,
        strategy=strategy,
        exhaustive=exhaustive,
        seed=seed,
        report=run.report,
        save_tree=run.save,
        checkpoint_every=Every(interval),
        checkpoint_name=str(checkpoint),
        global_lower=max((outcome.lower_bound for outcome in run.done.values()), default=0),
        exact_share=exact_share if exhaustive else 0.0,
        lp_share=lp_share,
        mycielski=bool(mycielski),
        method=method,
    )
    run.color_components(context)
    run.save()
    run.report({"phase": "done"})
    return _result(graph, [run.done[i] for i in range(len(run.parts))], run.clock)


class _Run:
    """One run of :func:`color_graph`: its components, those done, the checkpoint and the progress hook.

    Until the run reaches it, the saved tree is what the checkpoint keeps of its component.
    """

    def __init__(
        self,
        graph: nx.Graph,
        store: Checkpoint | None,
        saved: dict[str, Any],
        clock: Clock,
        progress: Callable[[dict], None] | None,
    ) -> None:
        self.store, self.clock, self.progress = store, clock, progress
        nodes = list(graph)
        self.index = {v: i for i, v in enumerate(nodes)}
        self.parts = components(graph)
        self.done: dict[int, ComponentOutcome] = {
            int(i): ComponentOutcome.from_json(data, nodes) for i, data in saved.get("done", {}).items()
        }
        self.saved_search: dict[str, Any] = saved.get("search") or {}
        self.current: dict[str, Any] = {
            "component": self.saved_search.get("component", 0),
            "tree": self.saved_search.get("tree"),
        }

    def report(self, fields: dict[str, Any]) -> None:
        """Pass a progress snapshot to the caller's hook, with the component, time and memory."""
        if self.progress is not None:
            snapshot = {"component": self.current["component"] + 1, "components": len(self.parts), **fields}
            memory = round(resident_memory_gb(), 3)
            self.progress({**snapshot, "elapsed": self.clock.elapsed(), "memory_gb": memory})

    def save(self, tree: dict[str, Any] | None = None) -> None:
        """Write the components finished without a limit, and the tree of the one in progress."""
        if tree is not None:
            self.current["tree"] = tree
        if self.store is None:
            return
        finished = {
            str(i): o.to_json(self.index)
            for i, o in self.done.items()
            if o.stopped is None and o.how != "skipped"
        }
        tree_now = self.current["tree"]
        search = None if tree_now is None else {"component": self.current["component"], "tree": tree_now}
        self.store.save({"elapsed": self.clock.elapsed(), "done": finished, "search": search})

    def color_components(self, context: SearchContext) -> None:
        """Colour every component not done yet, in order; after a limit, only greedily."""
        stopped = any(outcome.stopped in STOP_REASONS for outcome in self.done.values())
        for i, part in enumerate(self.parts):
            if i in self.done:
                continue
            saved = self.saved_search
            resumed_tree = saved.get("tree") if saved.get("component") == i else None
            if resumed_tree is None and (stopped or self.clock.expired()):  # a limit was reached
                self.done[i] = _skipped(part, stopped, self.clock)
                stopped = stopped or self.done[i].how == "skipped"
                continue
            self.current["component"] = i  # a saved tree is restored even with no time left, so it is kept
            self.done[i] = color_component(part, context, resumed_tree)
            context.global_lower = max(context.global_lower, self.done[i].lower_bound)
            stopped = self.done[i].stopped in STOP_REASONS  # a core too large for the tree ends nothing else
            if not stopped:
                self.current["tree"] = None
                if self.done[i].searched:  # a finished tree: save its component
                    self.save()


def _skipped(part: nx.Graph, stopped: bool, clock: Clock) -> ComponentOutcome:
    """A component reached after a limit: exact if of an easy class, else coloured greedily.

    Its ``stopped`` is the clock's reason, unless an earlier component already gave one (``stopped``).
    """
    easy = easy_coloring(part)
    if easy is not None:  # exact at no cost, whatever the limits
        return ComponentOutcome(easy[0], len(set(easy[0].values())), f"easy:{easy[1]}")
    reason = None if stopped else clock.stop_reason()
    lower = min(part.number_of_nodes(), 1 + (part.number_of_edges() > 0))  # what an edge proves
    return ComponentOutcome(dsatur_coloring(part), lower, "skipped", reason)


def color_component(
    graph: nx.Graph, context: SearchContext, saved_tree: dict | None = None
) -> ComponentOutcome:
    """Colour one connected component: its phases in order (see the module docstring).

    Parameters
    ----------
    graph : networkx.Graph
        A connected graph.
    context : SearchContext
    saved_tree : dict, optional
        The tree of this component from a checkpoint, to resume.

    Returns
    -------
    ComponentOutcome

    Examples
    --------
    The Grötzsch graph (11 vertices, no triangle) needs 4 colours, which no clique shows:

    >>> from bbqmis.coloring.tree.executors import SerialExecutor
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> limits = Limits(time_limit=60)
    >>> context = SearchContext(
    ...     sampler=ExactSampler(), executor=SerialExecutor(), limits=limits, clock=Clock(limits),
    ...     strategy="best-first", exhaustive=True, seed=0, report=lambda snapshot: None,
    ...     save_tree=lambda tree: None, checkpoint_every=Every(3600.0),
    ... )
    >>> graph = nx.mycielski_graph(4)
    >>> outcome = color_component(graph, context)
    >>> outcome.num_colors, outcome.lower_bound, outcome.stopped
    (4, 4, None)
    >>> all(outcome.coloring[u] != outcome.coloring[v] for u, v in graph.edges)
    True
    """
    easy = easy_coloring(graph)
    if easy is not None:
        coloring, kind = easy
        return ComponentOutcome(coloring, len(set(coloring.values())), f"easy:{kind}")
    state = reduce_phase(graph, context)
    reason = context.clock.stop_reason()
    if state.settled is None and reason is not None and saved_tree is None:  # time for a colouring only
        return state.outcome(f"greedy:{reason}", reason)
    deadline = exact_deadline(context)
    if state.settled is None and context.exact_share > 0:  # a first short look: most SAT proofs take < 1 s
        sat_phase(state, context, deadline)
    if state.settled is None and saved_tree is None:
        tabucol_phase(state, context)
    if state.settled is None and context.exact_share > 0:
        exact_phase(state, context, deadline)
    if state.settled is None and context.lp_share > 0 and state.core.number_of_nodes() <= EXACT_MAX_NODES:
        lp_phase(state, context)
    if state.settled is not None:
        return state.outcome(state.settled)
    if state.core.number_of_nodes() > TREE_MAX_NODES:  # one node's expansion would be unbounded
        return state.outcome(f"heuristic:{SIZE_LIMIT}", SIZE_LIMIT)
    if context.method == "price":
        return price_phase(state, context, saved_tree)
    return tree_phase(state, context, saved_tree)


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
