"""Branch-and-price: the set-cover LP bound at every node of a Zykov branching tree.

The method of Mehrotra and Trick (1996), as ``--method price`` runs it instead of the
BBQ-MIS tree. A node is a graph derived from the core by Zykov's two operations on a
non-adjacent pair ``u, v``: *same colour* (``v`` merged into ``u``) and *different
colours* (the edge ``uv`` added); every colouring of the core is a colouring of exactly
one child. Each node is bounded by :func:`~bbqmis.coloring.lp.lp_bound.lp_bound` (column
generation over independent sets, priced by the same sampler as the tree's branching:
QAOA on the weighted MIS QUBO, annealing, random or greedy sets, and certified by an
exact MWIS), seeded with its parent's columns; DSATUR on the node's graph gives
incumbents. The pair branched on is the Zykov rule's: ``u`` of largest degree and the
non-neighbour ``v`` sharing most neighbours with it (merging them adds fewest edges).

The tree is searched depth first, *same colour* first, so memory stays at one path of
graphs. A time limit or a stop request ends it with the best colouring and the root's
bound. Its state (:class:`PriceTree`: the best colouring, the counters and each open
node as its path of Zykov steps from the core) is handed to ``on_checkpoint`` every
``checkpoint_every`` and at the end, and ``resume`` continues from it: the open nodes are
rebuilt by replaying their paths, without the parent columns that seeded their LPs.

References
----------
A. Mehrotra and M. A. Trick, "A column generation approach for graph coloring",
INFORMS Journal on Computing 8(4), 1996.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import networkx as nx
import numpy as np

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_random_state

from ...samples import Stats, add_stats, new_stats
from ..classical.bounds import dsatur_coloring
from ..limits import Every
from ..samplers import AnnealingSampler, GreedySampler, MISSampler, QAOASampler, RandomSampler
from .heuristic_pricers import QAOAPricer
from .lp_bound import lp_bound
from .pricers import PricerLike
from .pricing import DEVICE_COUNTERS, device_work

__all__ = ["PriceOutcome", "PriceTree", "Step", "branch_and_price", "check_tree", "pricers_for", "replay"]

#: A Zykov step ``(kind, u, v)``: ``"merge"`` (``v`` merged into ``u``) or ``"differ"`` (edge ``uv``).
Step = tuple[str, Hashable, Hashable]


@dataclass(frozen=True)
class PriceOutcome:
    """Result of :func:`branch_and_price`.

    Attributes
    ----------
    coloring : dict
        Vertex -> colour, a proper colouring of the graph.
    lower_bound : int
        A proven lower bound on the chromatic number.
    stopped : str or None
        ``"time_limit"`` (deadline or stop request), ``"node_limit"`` or ``"memory_limit"``; None when the
        tree was searched to the end (then the colouring is optimal).
    tree : PriceTree
        The search's final state: resumable when it stopped, without open nodes when it ended.

    Examples
    --------
    >>> graph = nx.cycle_graph(5)
    >>> outcome = branch_and_price(graph, {v: v for v in graph}, seed=0)
    >>> outcome.num_colors, outcome.lower_bound, outcome.stopped, outcome.nodes
    (3, 3, None, 1)
    >>> all(outcome.coloring[u] != outcome.coloring[v] for u, v in graph.edges)
    True
    """

    coloring: dict[Hashable, int]
    lower_bound: int
    stopped: str | None
    tree: PriceTree

    @property
    def nodes(self) -> int:
        """Nodes bounded by the LP over the whole tree (resumed runs included)."""
        return self.tree.nodes

    @property
    def improving_columns(self) -> dict[str, int]:
        """Per pricer name, columns of negative reduced cost it added over the whole tree."""
        return self.tree.improving_columns

    @property
    def device(self) -> dict[str, float]:
        """What the pricers sent to quantum devices over the whole tree (``pricing.device_work``)."""
        return self.tree.device

    @property
    def num_colors(self) -> int:
        """Colours used."""
        return len(set(self.coloring.values()))


@dataclass(frozen=True)
class PriceTree:
    """The state of a branch-and-price search, enough to resume it.

    Attributes
    ----------
    best : dict
        Vertex -> colour, the best colouring found.
    root_bound : int
        The bound proven at the root (or given by the caller).
    nodes : int
        Nodes bounded so far.
    improving_columns : dict of str to int
        Per pricer, improving columns so far.
    device : dict of str to float
        Quantum device work so far (:func:`~bbqmis.coloring.lp.pricing.device_work`).
    open : list of tuple of Step
        The open nodes, bottom of the stack first, each as its Zykov steps from the core.

    Examples
    --------
    >>> graph = nx.mycielski_graph(4)
    >>> saved = []
    >>> initial = nx.greedy_color(graph)
    >>> first = branch_and_price(graph, initial, node_limit=2, seed=0, on_checkpoint=saved.append)
    >>> first.stopped, len(saved[-1].open) > 0, saved[-1] == first.tree
    ('node_limit', True, True)
    >>> rest = branch_and_price(graph, initial, resume=first.tree, seed=0)
    >>> rest.num_colors, rest.lower_bound, rest.stopped, rest.nodes > first.nodes
    (4, 4, None, True)
    """

    best: dict[Hashable, int]
    root_bound: int
    nodes: int
    improving_columns: dict[str, int]
    device: dict[str, float]
    open: list[tuple[Step, ...]]


def pricers_for(sampler: MISSampler) -> tuple[PricerLike, ...]:
    """The heuristic pricers that match a branching sampler (its solver shared for QAOA).

    The exhaustive sampler and samplers of other kinds get annealing, the package's
    default heuristic pricer.

    Examples
    --------
    >>> pricers_for(GreedySampler()), pricers_for(AnnealingSampler())
    (('greedy',), ('anneal',))
    >>> [pricer.name for pricer in pricers_for(QAOASampler())]
    ['qaoa']
    """
    if isinstance(sampler, QAOASampler):
        return (QAOAPricer(solver=sampler.solver),)
    if isinstance(sampler, AnnealingSampler):
        return ("anneal",)
    if isinstance(sampler, RandomSampler):
        return ("random",)
    if isinstance(sampler, GreedySampler):
        return ("greedy",)
    return ("anneal",)


def branch_and_price(
    graph: nx.Graph,
    initial: dict[Hashable, int],
    *,
    lower: int = 0,
    pricers: Sequence[PricerLike] = ("anneal",),
    deadline: float = math.inf,
    stop: Callable[[], bool] | None = None,
    node_limit: int | None = None,
    memory_full: Callable[[], bool] | None = None,
    seed: SeedLike = None,
    resume: PriceTree | None = None,
    on_checkpoint: Callable[[PriceTree], None] | None = None,
    checkpoint_every: Every | None = None,
) -> PriceOutcome:
    """Minimum colouring by branch-and-price with Zykov branching (see the module docstring).

    Parameters
    ----------
    graph : networkx.Graph
        The graph to colour (not modified).
    initial : dict
        A proper colouring to beat.
    lower : int, default=0
        A lower bound proven by the caller: the search stops when a colouring meets it.
    pricers : sequence of str or Pricer, default=("anneal",)
        Heuristic pricers of :func:`~bbqmis.coloring.lp.lp_bound.lp_bound`.
    deadline : float, default=inf
        Absolute :func:`time.perf_counter` time at which to stop.
    stop : callable, optional
        A true answer stops the search as the deadline does.
    node_limit : int, optional
        Most nodes bounded.
    memory_full : callable, optional
        Polled before each node; a true answer stops the search (``"memory_limit"``).
    seed : None, int or numpy.random.Generator
        Seeds the heuristic pricers.
    resume : PriceTree, optional
        A saved state of this search on ``graph``: its best colouring replaces
        ``initial`` if better, its counters and open nodes are taken over.
    on_checkpoint : callable, optional
        Called with the search's :class:`PriceTree` whenever ``checkpoint_every`` is due
        (before a node is bounded) and once at the end.
    checkpoint_every : Every, optional
        When to call ``on_checkpoint``; default: only at the end.

    Returns
    -------
    PriceOutcome
        The best colouring, the proven bound, why the search stopped, if it did, and its
        final state.

    Raises
    ------
    InvalidParameterError
        If ``initial`` is not a proper colouring of ``graph``, or ``resume`` is not a
        state of a search on ``graph`` (:func:`check_tree`).

    Examples
    --------
    >>> graph = nx.mycielski_graph(4)  # 11 vertices, chi 4, LP bound 2.9 -> 3: branching proves 4
    >>> outcome = branch_and_price(graph, nx.greedy_color(graph), seed=0)
    >>> outcome.num_colors, outcome.lower_bound, outcome.stopped
    (4, 4, None)
    """
    _check_proper(graph, initial, "initial")
    rng = check_random_state(seed)
    search = _Search.start(graph, initial, lower, resume)
    stopped = None
    while search.stack:
        if on_checkpoint is not None and checkpoint_every is not None and checkpoint_every.due():
            on_checkpoint(search.state())
        if _num_colors(search.best) <= search.root_bound:
            search.stack.clear()
            break
        if time.perf_counter() >= deadline or (stop is not None and stop()):
            stopped = "time_limit"
            break
        if node_limit is not None and search.nodes >= node_limit:
            stopped = "node_limit"
            break
        if memory_full is not None and memory_full():
            stopped = "memory_limit"
            break
        search.bound(search.stack.pop(), pricers, deadline, rng)
    final = search.state()
    if on_checkpoint is not None:
        on_checkpoint(final)
    best = search.best
    proven = _num_colors(best) if not search.stack and stopped is None else search.root_bound
    return PriceOutcome(best, min(proven, _num_colors(best)), stopped, final)


@dataclass
class _Search:
    """The state of one branch-and-price search: incumbent, root bound, counters, open nodes."""

    best: dict[Hashable, int]
    root_bound: int
    nodes: int
    improving: dict[str, int]
    device: Stats
    stack: list[_Open]

    @classmethod
    def start(
        cls, graph: nx.Graph, initial: dict[Hashable, int], lower: int, resume: PriceTree | None
    ) -> _Search:
        """A new search from ``initial`` with the root open, or the one ``resume`` saved."""
        device = new_stats(**dict.fromkeys(DEVICE_COUNTERS, 0.0))
        root = _Open(nx.Graph(graph), {v: (v,) for v in graph}, [], ())
        if resume is None:
            return cls(dict(initial), lower, 0, {}, device, [root])
        nodes_of_paths = check_tree(graph, resume)
        best = dict(resume.best) if _num_colors(resume.best) < _num_colors(initial) else dict(initial)
        add_stats(device, resume.device)
        stack = [_Open(*node, [], path) for node, path in zip(nodes_of_paths, resume.open, strict=True)]
        return cls(
            best, max(lower, resume.root_bound), resume.nodes, dict(resume.improving_columns), device, stack
        )

    def state(self) -> PriceTree:
        """What a checkpoint keeps of the search."""
        paths = [entry.path for entry in self.stack]
        return PriceTree(
            dict(self.best), self.root_bound, self.nodes, dict(self.improving), dict(self.device), paths
        )

    def bound(
        self, entry: _Open, pricers: Sequence[PricerLike], deadline: float, rng: np.random.Generator
    ) -> None:
        """Bound one open node by LP, take its DSATUR colouring, and push its children unless pruned."""
        node, groups = entry.graph, entry.groups
        lp = lp_bound(
            node,
            entry.seeds,
            pricers,
            deadline=None if math.isinf(deadline) else deadline,
            quick=False,
            settle=True,
            seed=int(rng.integers(2**31)),
        )
        add_stats(self.device, device_work(lp.stats))
        for name, counters in lp.stats.items():
            if name != "master":
                self.improving[name] = self.improving.get(name, 0) + int(counters.get("improving_columns", 0))
        found = _expand(dsatur_coloring(node), groups)
        if _num_colors(found) < _num_colors(self.best):
            self.best = found
        if lp.bound == 0 and time.perf_counter() >= deadline:
            self.stack.append(entry)  # not bounded: keep it (and do not count it), so the proof stays open
            return
        self.nodes += 1
        if not entry.path:  # the root
            self.root_bound = max(self.root_bound, lp.bound)
        if lp.bound >= _num_colors(self.best):
            return  # the node cannot give a colouring with fewer colours
        pair = _branching_pair(node)
        if pair is None:  # a complete graph: its colouring is exact, and it was taken above
            return
        columns = lp.columns.sets()
        self.stack.append(_Open(*_differ(node, groups, columns, *pair), (*entry.path, ("differ", *pair))))
        self.stack.append(_Open(*_merge(node, groups, columns, *pair), (*entry.path, ("merge", *pair))))


class _Open(NamedTuple):
    """An open node: its graph, the core's vertices merged into each of its vertices, seed columns, path."""

    graph: nx.Graph
    groups: dict[Hashable, tuple[Hashable, ...]]
    seeds: list[frozenset]
    path: tuple[Step, ...]


def replay(graph: nx.Graph, path: Iterable[Step]) -> tuple[nx.Graph, dict[Hashable, tuple[Hashable, ...]]]:
    """The node reached from ``graph`` by the Zykov steps ``path``, and its vertices' groups.

    Parameters
    ----------
    graph : networkx.Graph
        The core the search started from (not modified).
    path : iterable of Step
        The steps from the core, first step first.

    Returns
    -------
    node : networkx.Graph
        The node's graph: the core with the merges and added edges of ``path``.
    groups : dict
        Each vertex of ``node`` -> the core's vertices merged into it.

    Raises
    ------
    InvalidParameterError
        If a step is neither ``"merge"`` nor ``"differ"``, names a vertex that the node
        does not have (any more), a vertex twice, or an adjacent pair.

    Examples
    --------
    >>> node, groups = replay(nx.path_graph(5), [("merge", 0, 2), ("differ", 0, 4)])
    >>> sorted(node.edges), groups[0]
    ([(0, 1), (0, 3), (0, 4), (3, 4)], (0, 2))
    >>> replay(nx.path_graph(4), [("merge", 0, 1)])
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: step 1 ('merge', 0, 1) of the path joins adjacent vertices
    """
    node = nx.Graph(graph)
    groups: dict[Hashable, tuple[Hashable, ...]] = {v: (v,) for v in graph}
    for number, step in enumerate(path, 1):
        kind, u, v = step
        if kind not in ("merge", "differ"):
            raise InvalidParameterError(f"step {number} {step!r} of the path is neither 'merge' nor 'differ'")
        if u == v:
            raise InvalidParameterError(f"step {number} {step!r} of the path names one vertex twice")
        if u not in node or v not in node:
            raise InvalidParameterError(f"step {number} {step!r} of the path names a vertex the node lacks")
        if node.has_edge(u, v):
            raise InvalidParameterError(f"step {number} {step!r} of the path joins adjacent vertices")
        _take(node, groups, kind, u, v)
    return node, groups


def check_tree(
    graph: nx.Graph, tree: PriceTree
) -> list[tuple[nx.Graph, dict[Hashable, tuple[Hashable, ...]]]]:
    """Check that ``tree`` is a state of a branch-and-price search on ``graph``; replay its open nodes.

    Parameters
    ----------
    graph : networkx.Graph
        The core the search runs on.
    tree : PriceTree
        The state to check.

    Returns
    -------
    list of (networkx.Graph, dict)
        The open nodes' graphs and groups (:func:`replay`), in the order of ``tree.open``.

    Raises
    ------
    InvalidParameterError
        If ``best`` is not a proper colouring of ``graph``, ``root_bound`` exceeds its
        colours, a counter is negative or unknown, the open nodes are not those of a
        depth-first search (the unbounded root alone, or nothing, when no node was bounded; otherwise
        distinct paths, none a prefix of another, at most one per possible depth plus
        one), or a path does not replay.

    Examples
    --------
    >>> graph = nx.mycielski_graph(4)
    >>> tree = branch_and_price(graph, nx.greedy_color(graph), node_limit=1, seed=0).tree
    >>> [len(node) for node, _ in check_tree(graph, tree)]  # the root's children: uv added, v merged
    [11, 10]
    """
    _check_proper(graph, tree.best, "best")
    if not 0 <= tree.root_bound <= _num_colors(tree.best):
        raise InvalidParameterError(
            f"root_bound {tree.root_bound} is not between 0 and the {_num_colors(tree.best)} colours of best"
        )
    counters = [*tree.improving_columns.values(), *tree.device.values(), tree.nodes]
    if not all(value >= 0 for value in counters) or not set(tree.device) <= set(DEVICE_COUNTERS):
        raise InvalidParameterError("a counter of the tree is negative or unknown")
    n = graph.number_of_nodes()
    steps = n - 1 + n * (n - 1) // 2 - graph.number_of_edges()  # merges, then edges, a path can take
    paths = [tuple(path) for path in tree.open]
    if (() in paths and (tree.nodes > 0 or len(paths) > 1)) or (tree.nodes == 0 and paths not in ([], [()])):
        raise InvalidParameterError(
            f"{tree.nodes} nodes bounded, yet the open nodes are {len(paths)}"
            f"{', the root among them' if () in paths else ''}: the root is open alone or not at all"
        )
    if len(set(paths)) < len(paths) or len(paths) > steps + 1 or any(len(path) > steps for path in paths):
        raise InvalidParameterError(f"the {len(paths)} open nodes are not those of a depth-first search")
    prefixes = {path[:depth] for path in paths for depth in range(len(path))}
    if any(path in prefixes for path in paths):
        raise InvalidParameterError("an open node lies below another open node")
    return [replay(graph, path) for path in paths]


def _num_colors(coloring: dict[Hashable, int]) -> int:
    return len(set(coloring.values()))


def _check_proper(graph: nx.Graph, coloring: dict[Hashable, int], name: str) -> None:
    """Raise InvalidParameterError unless ``coloring`` colours every vertex, no edge inside a colour."""
    missing = [v for v in graph if v not in coloring]
    if missing:
        raise InvalidParameterError(f"{name} is not a proper colouring: vertex {missing[0]!r} has no colour")
    for u, v in graph.edges():
        if coloring[u] == coloring[v]:
            raise InvalidParameterError(
                f"{name} is not a proper colouring: edge ({u!r}, {v!r}) has colour {coloring[u]} at both ends"
            )


def _expand(
    coloring: dict[Hashable, int], groups: dict[Hashable, tuple[Hashable, ...]]
) -> dict[Hashable, int]:
    """A colouring of the node's graph as a colouring of the core: each merged vertex's colour."""
    return {vertex: color for v, color in coloring.items() for vertex in groups[v]}


def _branching_pair(graph: nx.Graph) -> tuple[Hashable, Hashable] | None:
    """Zykov's pair: ``u`` of largest degree, its non-neighbour with most common neighbours."""
    order = {v: i for i, v in enumerate(graph)}
    for u in sorted(graph, key=lambda w: (-graph.degree(w), order[w])):
        others = [v for v in graph if v != u and not graph.has_edge(u, v)]
        if others:
            neighbours = set(graph[u])
            v = max(others, key=lambda w: (len(neighbours & set(graph[w])), -order[w]))
            return u, v
    return None


def _merge(
    graph: nx.Graph,
    groups: dict[Hashable, tuple[Hashable, ...]],
    columns: Iterable[frozenset],
    u: Hashable,
    v: Hashable,
) -> tuple[nx.Graph, dict[Hashable, tuple[Hashable, ...]], list[frozenset]]:
    """The *same colour* child: ``v`` merged into ``u``; the parent's columns that stay independent."""
    child, merged = graph.copy(), dict(groups)
    _take(child, merged, "merge", u, v)
    renamed = (frozenset(u if w == v else w for w in column) for column in columns)
    return child, merged, _independent(child, renamed)


def _differ(
    graph: nx.Graph,
    groups: dict[Hashable, tuple[Hashable, ...]],
    columns: Iterable[frozenset],
    u: Hashable,
    v: Hashable,
) -> tuple[nx.Graph, dict[Hashable, tuple[Hashable, ...]], list[frozenset]]:
    """The *different colours* child: the edge ``uv`` added; the columns that do not hold both."""
    child = graph.copy()
    _take(child, groups, "differ", u, v)
    return child, groups, [column for column in columns if not (u in column and v in column)]


def _take(
    graph: nx.Graph, groups: dict[Hashable, tuple[Hashable, ...]], kind: str, u: Hashable, v: Hashable
) -> None:
    """Apply one Zykov step in place: merge ``v`` into ``u`` (``"merge"``) or add the edge ``uv``."""
    if kind == "differ":
        graph.add_edge(u, v)
        return
    graph.add_edges_from([(u, w) for w in graph[v]])
    graph.remove_node(v)
    groups[u] = groups[u] + groups.pop(v)


def _independent(graph: nx.Graph, columns: Iterable[frozenset]) -> list[frozenset]:
    """The columns that are independent sets of ``graph``."""
    kept = []
    for column in columns:
        members = list(column)
        if not any(graph.has_edge(a, b) for i, a in enumerate(members) for b in members[i + 1 :]):
            kept.append(column)
    return kept
