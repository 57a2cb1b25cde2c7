"""Colouring one connected component: easy classes, clique and peeling, bounds, heuristics, the tree.

The phases, each under the run's deadline:

1. an easy class (:func:`~bbqmis.coloring.reduce.easy_coloring`) is coloured optimally;
2. a maximum clique (:func:`~bbqmis.coloring.clique.graph_clique`, at most a tenth of the
   time left) gives the first lower bound, and vertices of smaller degree outside it are
   peeled off (:func:`~bbqmis.coloring.reduce.peel`);
3. the core gets the spectral and odd-cycle bounds (:func:`~bbqmis.coloring.bounds.adjacency_bounds`,
   skipped above :data:`SPECTRAL_MAX_NODES` vertices) and greedy incumbents (DSATUR, then
   largest-first and smallest-last while a twentieth of the time left allows); if a limit
   is reached by then, the component ends with the best of them (``how`` is
   ``"greedy:<reason>"``), so a large graph costs its first colouring past the limit at most;
4. TabuCol (:func:`~bbqmis.coloring.tabucol.improve_coloring`) lowers the incumbent
   towards the bound;
5. an exact phase gets ``exact_share`` of the time left (at most a minute; 0 turns it
   off, so that the BBQ-MIS tree alone does the proof; SAT also gets a first second
   before TabuCol, which settles most small cores at once): SAT
   (:func:`~bbqmis.coloring.sat.sat_coloring`, CaDiCaL asked for one colour fewer until
   it says no) when the encoding has at most ``max_sat_clauses`` clauses, else exact
   DSATUR branch-and-bound (:func:`~bbqmis.coloring.dsatur_exact.exact_coloring`) on a
   core of at most :data:`EXACT_MAX_NODES` vertices;
6. when the bounds still do not meet, on a core of at most 200 vertices, the set-cover
   LP bound (:func:`~bbqmis.coloring.pricing.lp_bound`, column generation with HiGHS,
   annealing and exact MWIS pricing, Farley bound when cut short) may raise the bound,
   for a tenth of the time left;
7. unless the bounds now meet, or the component cannot raise the colours the graph needs
   anyway (its incumbent is within the lower bound already proven for another
   component), or the core has more than :data:`TREE_MAX_NODES` vertices (then the
   component keeps the colouring so far, with ``stopped="size_limit"``), the BBQ-MIS
   tree searches the core (:func:`~bbqmis.coloring.treesearch.run_tree`), or with
   ``method="price"`` branch-and-price does
   (:func:`~bbqmis.coloring.branch_price.branch_and_price`);
8. the peeled vertices are coloured back without a new colour.

Every phase before the tree also ends at once when the memory limit is reached (the tree
then stops for it), and the LP phase ends at a stop request.

``ComponentOutcome.how`` says which phase settled the component, so a result never
credits the quantum sampler with a proof that SAT, DSATUR or the bounds made.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
import numpy as np

from .bounds import ChromaticBounds, adjacency_bounds, dsatur_coloring
from .branch_price import branch_and_price, pricers_for
from .checkpoint import dump_price, dump_search, restore_price, restore_search
from .clique import graph_clique
from .dsatur_exact import exact_coloring
from .limits import STOP_REASONS, Clock, Every, Limits, resident_memory_gb
from .matrices import csr_adjacency
from .node_lp import MAX_GRAPH_NODES, NodeLP
from .pricing import device_work, lp_bound
from .reduce import easy_coloring, extend_coloring, peel
from .result import color_classes
from .samplers import MISSampler
from .sat import MAX_SAT_CLAUSES, sat_clauses, sat_coloring
from .tabucol import improve_coloring
from .tree import Node, SearchState, from_bits, progress_snapshot, to_bits
from .treesearch import run_tree

__all__ = [
    "GREEDY_STRATEGIES",
    "SIZE_LIMIT",
    "SPECTRAL_MAX_NODES",
    "TREE_MAX_NODES",
    "TREE_METHODS",
    "ComponentOutcome",
    "SearchContext",
    "color_component",
]

#: Greedy colourings whose best is the first incumbent: DSATUR, and two networkx strategies.
GREEDY_STRATEGIES = ("DSATUR", "largest_first", "smallest_last")

#: Phases of ``ComponentOutcome.how`` that are tree searches (branch-and-bound, branch-and-price).
TREE_METHODS = ("search", "price")

#: Largest core that a tree searches (DIMACS benchmarks reach 4,000 vertices). A larger
#: core keeps the heuristics' colouring, with ``stopped`` :data:`SIZE_LIMIT`: the samplers
#: and the exhaustive enumeration of one node would take unbounded time and memory.
TREE_MAX_NODES = 5000
#: ``ComponentOutcome.stopped`` of a core larger than :data:`TREE_MAX_NODES`; unlike the
#: :data:`~bbqmis.coloring.limits.STOP_REASONS`, it does not end the other components' searches.
SIZE_LIMIT = "size_limit"

#: Largest core whose spectral bounds are computed (a dense eigendecomposition, O(n^3)).
SPECTRAL_MAX_NODES = 1500
#: Share of the time left that the clique search may use.
_CLIQUE_SHARE = 0.1
#: Share of the time left for greedy colourings after the first (DSATUR), which always runs.
_GREEDY_SHARE = 0.05
#: Largest core that exact DSATUR branch-and-bound tries before the tree.
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


@dataclass
class SearchContext:
    """What every component's search shares: the sampler, the executor, the limits and the hooks.

    Examples
    --------
    >>> from bbqmis.coloring.executors import SerialExecutor
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> limits = Limits(time_limit=60)
    >>> context = SearchContext(
    ...     sampler=ExactSampler(), executor=SerialExecutor(), limits=limits, clock=Clock(limits),
    ...     strategy="best-first", exhaustive=True, seed=0, report=lambda snapshot: None,
    ...     save_tree=lambda tree: None, checkpoint_every=Every(3600.0),
    ... )
    >>> outcome = color_component(nx.mycielski_graph(4), context)
    >>> outcome.num_colors, outcome.lower_bound
    (4, 4)
    """

    sampler: MISSampler
    executor: Executor
    limits: Limits
    clock: Clock
    strategy: str
    exhaustive: bool
    seed: int | None
    report: Callable[[dict[str, Any]], None]
    save_tree: Callable[[dict[str, Any] | None], None]
    checkpoint_every: Every
    checkpoint_name: str = "checkpoint"
    global_lower: int = 0
    exact_share: float = 0.3
    lp_share: float = 0.1
    max_sat_clauses: int = MAX_SAT_CLAUSES
    method: str = "bbq"


@dataclass
class ComponentOutcome:
    """How one component was coloured.

    Attributes
    ----------
    coloring : dict
        Vertex -> colour, a proper colouring of the component.
    lower_bound : int
        A proven lower bound on the component's chromatic number.
    how : str
        ``"easy:<class>"``, ``"bounds"`` (incumbent meets the bound), ``"dominated"`` (no
        better than another component's bound needs), ``"search:<stop reason>"`` or
        ``"price"`` / ``"price:<limit>"`` (the trees of :data:`TREE_METHODS`).
    stopped : str or None
        The limit that stopped the tree search, if one did.
    stats : dict
        Tree-search statistics (empty when there was no search).

    Examples
    --------
    >>> from bbqmis.coloring.executors import SerialExecutor
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> limits = Limits(time_limit=60)
    >>> context = SearchContext(
    ...     sampler=ExactSampler(), executor=SerialExecutor(), limits=limits, clock=Clock(limits),
    ...     strategy="best-first", exhaustive=True, seed=0, report=lambda snapshot: None,
    ...     save_tree=lambda tree: None, checkpoint_every=Every(3600.0),
    ... )
    >>> outcome = color_component(nx.cycle_graph(5), context)
    >>> outcome.num_colors, outcome.lower_bound, outcome.how
    (3, 3, 'easy:odd-cycle')
    """

    coloring: dict[Hashable, int]
    lower_bound: int
    how: str
    stopped: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def num_colors(self) -> int:
        """Colours used."""
        return len(set(self.coloring.values()))

    @property
    def searched(self) -> bool:
        """Whether a tree (branch-and-bound or branch-and-price) settled the component.

        Examples
        --------
        >>> ComponentOutcome({}, 0, "search:time").searched, ComponentOutcome({}, 0, "bounds").searched
        (True, False)
        """
        return self.how.partition(":")[0] in TREE_METHODS

    def to_json(self, index: dict[Hashable, int]) -> dict[str, Any]:
        """JSON-ready form, vertices as their positions in ``index``.

        Examples
        --------
        >>> outcome = ComponentOutcome({"b": 1, "a": 0}, lower_bound=2, how="easy:bipartite")
        >>> data = outcome.to_json({"a": 0, "b": 1})
        >>> data["coloring"], data["lower_bound"], data["how"]
        ([[0, 0], [1, 1]], 2, 'easy:bipartite')
        """
        return {
            "coloring": sorted([index[v], c] for v, c in self.coloring.items()),
            "lower_bound": self.lower_bound,
            "how": self.how,
            "stopped": self.stopped,
            "stats": self.stats,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], nodes: list[Hashable]) -> ComponentOutcome:
        """Inverse of :meth:`to_json`, with ``nodes`` the vertex list of ``index``.

        Examples
        --------
        >>> import json
        >>> outcome = ComponentOutcome({"b": 1, "a": 0}, lower_bound=2, how="easy:bipartite")
        >>> data = json.loads(json.dumps(outcome.to_json({"a": 0, "b": 1})))
        >>> ComponentOutcome.from_json(data, ["a", "b"]) == outcome
        True
        """
        coloring = {nodes[int(i)]: int(c) for i, c in data["coloring"]}
        return cls(coloring, int(data["lower_bound"]), str(data["how"]), data["stopped"], dict(data["stats"]))


def color_component(
    graph: nx.Graph, context: SearchContext, saved_tree: dict | None = None
) -> ComponentOutcome:
    """Colour one connected component; see the module docstring for the phases.

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

    >>> from bbqmis.coloring.executors import SerialExecutor
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
    context.report({"phase": "clique"})
    nodes = list(graph)
    clique = graph_clique(graph, nodes, deadline=_phase_deadline(context, _CLIQUE_SHARE, math.inf))
    clique_vertices = [nodes[i] for i in clique.clique]
    core_nodes, peeled = peel(graph, clique_vertices)
    core = graph if not peeled else graph.subgraph([v for v in nodes if v in core_nodes]).copy()
    context.report({"phase": "bounds"})
    bounds = _core_bounds(core, clique.size)
    lower = bounds.value
    incumbent, source = _greedy_incumbent(core, _phase_deadline(context, _GREEDY_SHARE, math.inf))
    stats: dict[str, Any] = {
        "peeled": len(peeled),
        "root_bounds": bounds.__dict__.copy(),
        "initial_colors": len(set(incumbent.values())),
    }
    settled = _settled(len(set(incumbent.values())), lower, context.global_lower)
    reason = context.clock.stop_reason()
    if settled is None and reason is not None and saved_tree is None:  # no time for more than a colouring
        return ComponentOutcome(
            extend_coloring(graph, incumbent, peeled), lower, f"greedy:{reason}", reason, stats
        )
    sparse = csr_adjacency(core)
    exact_deadline = _phase_deadline(context, context.exact_share, _EXACT_CAP_SECONDS)
    if settled is None and context.exact_share > 0:  # a first short look: most SAT proofs take < 1 s
        if _exact_method(core, len(set(incumbent.values())), context.max_sat_clauses) == "sat":
            _report(context, "sat", incumbent, lower)
            before = len(set(incumbent.values()))
            first = min(exact_deadline, time.perf_counter() + _FIRST_SAT_SECONDS)
            incumbent, lower, stats["sat_first"] = _exact(
                core, sparse, incumbent, lower, clique_vertices, "sat", context, first
            )
            source = "sat" if len(set(incumbent.values())) < before else source
            settled = _settled(len(set(incumbent.values())), lower, context.global_lower, "sat")
    if settled is None and saved_tree is None:
        _report(context, "local", incumbent, lower)
        incumbent, found = _local_search(core, sparse, incumbent, lower, context)
        source = "tabucol" if found else source
        stats["tabucol_colors"] = len(set(incumbent.values()))
        settled = _settled(len(set(incumbent.values())), lower, context.global_lower)
    if settled is None and context.exact_share > 0:
        method = _exact_method(core, len(set(incumbent.values())), context.max_sat_clauses)
        if method is not None:
            _report(context, method, incumbent, lower)
            before = len(set(incumbent.values()))
            incumbent, lower, stats[method] = _exact(
                core, sparse, incumbent, lower, clique_vertices, method, context, exact_deadline
            )
            if len(set(incumbent.values())) < before:
                source = "dsatur-exact" if method == "exact" else method
            settled = _settled(len(set(incumbent.values())), lower, context.global_lower, method)
    columns: list[frozenset] = []
    pricer_stats: dict[str, Any] = {}
    if settled is None and context.lp_share > 0 and core.number_of_nodes() <= EXACT_MAX_NODES:
        _report(context, "lp", incumbent, lower)
        lp = lp_bound(
            core,
            pricers=pricers_for(context.sampler),
            deadline=_phase_deadline(context, context.lp_share, _EXACT_CAP_SECONDS),
            quick=False,
            settle=True,
            seed=context.seed,
            stop=lambda: context.limits.stop.is_set() or context.limits.memory_full(),
        )
        lower, columns, pricer_stats = max(lower, lp.bound), lp.columns.sets(), lp.stats
        stats["lp"] = {
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
        settled = _settled(len(set(incumbent.values())), lower, context.global_lower, "lp")
    if settled is not None:
        return ComponentOutcome(extend_coloring(graph, incumbent, peeled), lower, settled, stats=stats)
    if core.number_of_nodes() > TREE_MAX_NODES:  # one node's expansion would be unbounded
        coloring = extend_coloring(graph, incumbent, peeled)
        return ComponentOutcome(coloring, lower, f"heuristic:{SIZE_LIMIT}", SIZE_LIMIT, stats)
    if context.method == "price":
        return _price_core(graph, core, peeled, incumbent, lower, context, stats, saved_tree)
    tree = _search_core(core, context, lower, incumbent, source, saved_tree, columns, pricer_stats)
    tree_coloring, tree_lower, stop_reason, tree_stats = tree
    stats.update(tree_stats)
    stopped = stop_reason if stop_reason in STOP_REASONS else None
    coloring = extend_coloring(graph, tree_coloring, peeled)
    return ComponentOutcome(coloring, tree_lower, f"search:{stop_reason}", stopped, stats)


def _report(context: SearchContext, phase: str, incumbent: dict[Hashable, int], lower: int) -> None:
    """Report the start of a phase with the colours of the incumbent and the bound so far."""
    context.report({"phase": phase, "incumbent": len(set(incumbent.values())), "bound": lower})


def _settled(colors: int, lower: int, global_lower: int, proof: str = "bounds") -> str | None:
    """Why no more search is needed: the colours meet the bound, or another component needs more."""
    if colors <= lower:
        return proof
    if colors <= global_lower:
        return "dominated"
    return None


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


def _exact(
    core: nx.Graph,
    sparse: Any,
    incumbent: dict[Hashable, int],
    lower: int,
    clique: list[Hashable],
    method: str,
    context: SearchContext,
    deadline: float,
) -> tuple[dict[Hashable, int], int, dict[str, Any]]:
    """SAT or exact DSATUR on the core (``sparse``: CSR adjacency) until ``deadline`` (perf_counter)."""
    nodes = list(core)
    initial = np.array([incumbent[v] for v in nodes])
    if method == "sat":
        position = {v: i for i, v in enumerate(nodes)}
        result = sat_coloring(
            sparse,
            initial,
            clique=[position[v] for v in clique],
            lower=lower,
            deadline=deadline,
            memory_gb=_child_memory_gb(context.limits),
            stop=context.limits.stop.is_set,
        )
    else:
        result = exact_coloring(sparse, lower=lower, initial=initial, deadline=deadline)
    coloring = {v: int(c) for v, c in zip(nodes, result.colors, strict=True)}
    summary = {"optimal": result.optimal, "nodes": result.nodes, "stopped": result.stopped}
    return coloring, max(lower, result.lower_bound), summary


def _child_memory_gb(limits: Limits) -> float | None:
    """Memory a solver process may take: what the run's limit leaves this process (at least 0.5 GB)."""
    if not limits.memory_limit:
        return None
    return max(0.5, limits.memory_limit - resident_memory_gb())


def _local_search(
    core: nx.Graph, sparse: Any, incumbent: dict[Hashable, int], lower: int, context: SearchContext
) -> tuple[dict[Hashable, int], bool]:
    """TabuCol from the incumbent down towards ``lower`` colours (``sparse``: CSR adjacency of the core)."""
    nodes = list(core)
    before = len(set(incumbent.values()))
    colors = improve_coloring(
        sparse,
        np.array([incumbent[v] for v in nodes]),
        deadline=_phase_deadline(context, _LOCAL_SHARE, _LOCAL_CAP_SECONDS),
        max_iterations_per_k=min(_LOCAL_MAX_ITERATIONS, _LOCAL_ITERATIONS_PER_VERTEX * len(nodes)),
        seed=context.seed,
        lower_bound=max(1, lower),
    )
    coloring = {v: int(c) for v, c in zip(nodes, colors, strict=True)}
    return coloring, len(set(coloring.values())) < before


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


def _price_core(
    graph: nx.Graph,
    core: nx.Graph,
    peeled: list[Hashable],
    incumbent: dict[Hashable, int],
    lower: int,
    context: SearchContext,
    stats: dict[str, Any],
    saved_tree: dict | None,
) -> ComponentOutcome:
    """Branch-and-price on the core instead of the BBQ-MIS tree, for the time left.

    Its state is checkpointed like the tree's (``context.save_tree``), and ``saved_tree``
    resumes it.
    """
    context.report({"phase": "price"})
    resume = None if saved_tree is None else restore_price(saved_tree, core, context.checkpoint_name)
    outcome = branch_and_price(
        core,
        incumbent,
        lower=lower,
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
    stats["price"] = {
        "nodes": outcome.nodes,
        "improving_columns": outcome.improving_columns,
        "device": outcome.device,
    }
    stats["nodes_explored"], stats["open_nodes"] = outcome.nodes, len(outcome.tree.open)
    coloring = extend_coloring(graph, outcome.coloring, peeled)
    stopped = outcome.stopped and ("interrupted" if context.limits.interrupted else outcome.stopped)
    how = "price" if outcome.stopped is None else f"price:{stopped}"
    return ComponentOutcome(coloring, max(lower, outcome.lower_bound), how, stopped, stats)


def _search_core(
    core: nx.Graph,
    context: SearchContext,
    lower: int,
    incumbent: dict[Hashable, int],
    source: str,
    saved_tree: dict | None,
    columns: list[frozenset],
    pricer_stats: dict[str, Any],
) -> tuple[dict[Hashable, int], int, str, dict[str, Any]]:
    """Run the BBQ-MIS tree on the core; return its colouring, bound, stop reason and statistics.

    ``columns`` (independent sets of the core, such as the root LP's) seed the column pool
    that bounds the tree's nodes by LP, unless ``context.lp_share`` is 0 or the core has more
    than :data:`~bbqmis.coloring.node_lp.MAX_GRAPH_NODES` vertices; ``pricer_stats``
    (the root LP's) tell the node LPs how long each pricer's calls take.
    """
    nodes = list(core)
    index = {v: i for i, v in enumerate(nodes)}
    graph = nx.relabel_nodes(core, index)
    node_lp = None
    if context.lp_share > 0 and len(nodes) <= MAX_GRAPH_NODES:  # larger: no dense adjacency
        seeds = ([index[v] for v in column] for column in columns)
        node_lp = NodeLP(
            graph,
            pricers_for(context.sampler),
            columns=seeds,
            max_nodes=EXACT_MAX_NODES,
            seed=context.seed,
            pricer_stats=pricer_stats,
        )
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
        search.offer(tuple(to_bits(index[v] for v in c) for c in color_classes(incumbent)), source)
        search.seen[(1 << len(nodes)) - 1] = 0
        search.push(Node((), (1 << len(nodes)) - 1, lower))
    context.report({"phase": "search", **progress_snapshot(search, ())})
    outcome = run_tree(
        search,
        context.executor,
        context.limits,
        lower,
        on_progress=lambda snapshot: context.report({"phase": "search", **snapshot}),
        on_checkpoint=lambda running: context.save_tree(dump_search(search, running)),
        checkpoint_every=context.checkpoint_every,
    )
    context.save_tree(dump_search(search, outcome.running))
    coloring = {nodes[v]: color for color, bits in enumerate(search.incumbent) for v in from_bits(bits)}
    stats = {
        **{
            key: int(search.stats[key])
            for key in (
                "nodes_explored",
                "completions",
                "nodes_pruned",
                "duplicates",
                "nodes_from_sampler",
                "nodes_from_enumeration",
            )
        },
        "open_nodes": len(search.heap) + len(outcome.running),
        "incumbents": search.incumbents,
        "exhaustive": search.exhaustive,
        "strategy": search.strategy,
        "events": outcome.events,
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
    return coloring, outcome.lower_bound, outcome.stop_reason, stats
