"""The manager side of the search: the queue of open nodes, the incumbent, the seen residuals.

The tree works on a graph whose vertices are the integers ``0..n-1`` and stores every vertex
set as a Python integer used as a bitset (bit ``v`` set when ``v`` is in the set): a node of
a 125-vertex graph costs a few hundred bytes instead of tens of kilobytes of frozensets,
which is what keeps the open list and the table of seen residuals within a memory limit.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx

from ...samples import Stats, add_stats, new_stats
from ..limits import Clock
from ..lp.node_lp import NodeLP
from ..result import color_classes
from ..samplers import MISSampler
from .expand import Expansion, Task

__all__ = ["STRATEGIES", "Node", "SearchState", "from_bits", "progress_snapshot", "to_bits"]

#: Queue orders: lowest bound first (deepest on ties), or deepest first.
STRATEGIES = ("best-first", "depth-first")


def to_bits(vertices: Iterable[int]) -> int:
    """The bitset of a set of integer vertices.

    Examples
    --------
    >>> bin(to_bits([0, 2, 3]))
    '0b1101'
    """
    bits = 0
    for v in vertices:
        bits |= 1 << v
    return bits


def from_bits(bits: int) -> list[int]:
    """The vertices of a bitset, in increasing order.

    Examples
    --------
    >>> from_bits(0b1101)
    [0, 2, 3]
    """
    vertices = []
    while bits:
        low = bits & -bits
        vertices.append(low.bit_length() - 1)
        bits ^= low
    return vertices


@dataclass
class Node:
    """An open tree node: the colour classes so far and the residual vertex set, as bitsets.

    Attributes
    ----------
    classes : tuple of int
        One bitset per colour class chosen so far.
    residual : int
        Bitset of the vertices still to colour.
    bound : int
        Lower bound on the colours of any colouring in this subtree.
    complete : bool
        A completion node: enumerate the children not generated yet (those in ``skip`` were).
    skip : frozenset of int
        Bitsets of the classes the sampler generated in an earlier expansion of the node.
    offset : int
        Sets of the exhaustive enumeration that earlier expansions generated.

    Examples
    --------
    >>> node = Node(classes=(to_bits([0, 2]),), residual=to_bits([1, 3]), bound=2)
    >>> node.depth, from_bits(node.residual)
    (1, [1, 3])
    """

    classes: tuple[int, ...]
    residual: int
    bound: int
    complete: bool = False
    skip: frozenset[int] = frozenset()
    offset: int = 0

    @property
    def depth(self) -> int:
        """Colours used so far."""
        return len(self.classes)


class SearchState:
    """Mutable state of one tree search: queue, incumbent, seen residuals, statistics.

    Parameters
    ----------
    graph : networkx.Graph
        The graph to colour, with vertices ``0..n-1``.
    sampler : MISSampler
        Branching sampler, sent to workers with every task.
    strategy : {"best-first", "depth-first"}
    exhaustive : bool
        Branch on every maximal set containing the branching vertex (exact search).
    seed : int or None
        Seed from which every node's sampler seed derives.
    clock : Clock
        The run's clock; incumbents are stamped with its seconds.
    node_lp : NodeLP, optional
        LP bounds for popped nodes; every class the tree generates joins its column pool.

    Examples
    --------
    >>> from bbqmis.coloring.tree.expand import expand
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> search = SearchState(
    ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...     clock=Clock(Limits()),
    ... )
    >>> search.offer((1, 2, 4, 8, 16), "one colour per vertex")
    >>> search.push(Node((), to_bits(range(5)), bound=3))
    >>> node = search.pop()
    >>> search.absorb(node, expand(search.task(node, deadline=float("inf"))))
    >>> search.best, len(search.open_nodes()), int(search.stats["nodes_explored"])
    (3, 0, 1)

    The root's expansion found a 3-colouring of the 5-cycle and pruned every child: the
    search is over.
    """

    def __init__(
        self,
        graph: nx.Graph,
        sampler: MISSampler,
        *,
        strategy: str,
        exhaustive: bool,
        seed: int | None,
        clock: Clock,
        node_lp: NodeLP | None = None,
    ) -> None:
        self.graph = graph
        self.sampler = sampler
        self.strategy = strategy
        self.exhaustive = exhaustive
        self.seed = 0 if seed is None else int(seed)
        self.clock = clock
        self.node_lp = node_lp
        self.counter = itertools.count()
        self.heap: list = []
        self.seen: dict[int, int] = {}
        self.sampler_stats: Stats = new_stats()
        self.stats: Stats = new_stats()
        self.incumbent: tuple[int, ...] = ()
        self.incumbents: list = []

    def push(self, node: Node) -> None:
        """Queue ``node`` by the strategy's key.

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.push(Node((1,), to_bits([1, 2, 3, 4]), bound=4))
        >>> search.push(Node((1,), to_bits([1, 2, 3, 4]), bound=3))
        >>> search.pop().bound
        3
        """
        key = (node.bound, -node.depth) if self.strategy == "best-first" else (-node.depth, node.bound)
        heapq.heappush(self.heap, (*key, node.complete, next(self.counter), node))

    def pop(self) -> Node:
        """Take the first node of the queue.

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.push(Node((), to_bits(range(5)), bound=3))
        >>> search.pop().residual == to_bits(range(5)), search.open_nodes()
        (True, [])
        """
        return heapq.heappop(self.heap)[-1]

    def open_nodes(self) -> list[Node]:
        """The queued nodes, in no particular order.

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.push(Node((), to_bits(range(5)), bound=3))
        >>> [node.bound for node in search.open_nodes()]
        [3]
        """
        return [entry[-1] for entry in self.heap]

    def go_depth_first(self) -> None:
        """Switch to depth-first order (the open list then grows by one level at a time).

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.push(Node((1,), to_bits([1, 2, 3, 4]), bound=3))
        >>> search.push(Node((1, 4), to_bits([2, 3]), bound=4))
        >>> search.go_depth_first()
        >>> search.strategy, search.pop().depth
        ('depth-first', 2)
        """
        if self.strategy != "depth-first":
            self.strategy = "depth-first"
            nodes, self.heap = self.open_nodes(), []
            for node in nodes:
                self.push(node)

    @property
    def best(self) -> int:
        """Colours of the incumbent."""
        return len(self.incumbent)

    def offer(self, classes: tuple[int, ...], source: str) -> None:
        """Take ``classes`` (bitsets) as incumbent if it uses fewer colours; ``source`` names its origin.

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.offer((to_bits([0, 2]), to_bits([1, 3]), to_bits([4]), 0), "greedy")
        >>> search.offer((to_bits([0, 2]), to_bits([1, 3]), to_bits([4])), "dsatur")
        >>> search.best, [source for _, _, source in search.incumbents]
        (3, ['greedy', 'dsatur'])
        """
        if not self.incumbent or len(classes) < self.best:
            self.incumbent = tuple(classes)
            self.incumbents.append([round(self.clock.elapsed(), 6), len(classes), source])

    def task(self, node: Node, deadline: float) -> Task:
        """The worker task of ``node``, with a seed derived from the run seed and its residual.

        Parameters
        ----------
        node : Node
        deadline : float
            Wall-clock (:func:`time.time`) time at which the worker stops expanding.

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> task = search.task(Node((to_bits([0, 2]),), to_bits([1, 3, 4]), bound=3), deadline=float("inf"))
        >>> sorted(task.graph), task.depth, task.complete
        ([1, 3, 4], 1, True)
        """
        # hex, not decimal: Python refuses to print an int of more than 4300 decimal digits
        digest = hashlib.blake2b(f"{self.seed!r} {node.residual:x}".encode(), digest_size=8)
        return Task(
            graph=self.graph.subgraph(from_bits(node.residual)).copy(),
            depth=node.depth,
            bound=node.bound,
            incumbent=self.best,
            complete=node.complete or self.sampler.exhaustive,
            exhaustive=self.exhaustive,
            skip=frozenset(frozenset(from_bits(bits)) for bits in node.skip),
            offset=node.offset,
            sampler=self.sampler,
            seed=int.from_bytes(digest.digest(), "big") >> 1,
            deadline=deadline,
        )

    def absorb(self, node: Node, result: Expansion) -> None:
        """Queue the children of an expanded node and take its completion.

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.offer((1, 2, 4, 8, 16), "trivial")
        >>> children = [(frozenset({0, 2}), 3), (frozenset({1, 3}), 3)]
        >>> expansion = Expansion(children, generated=frozenset(), next_offset=None)
        >>> search.absorb(Node((), to_bits(range(5)), bound=3), expansion)
        >>> sorted(from_bits(node.residual) for node in search.open_nodes())
        [[0, 2, 4], [1, 3, 4]]
        """
        self.stats["nodes_explored"] += 1
        self.stats["completions"] += node.complete
        self.stats["nodes_pruned"] += result.pruned
        add_stats(self.sampler_stats, result.stats)
        if result.completion is not None:
            color_class, rest = result.completion
            rest_classes = tuple(to_bits(c) for c in color_classes(rest))
            self.offer((*node.classes, to_bits(color_class), *rest_classes), "dsatur-completion")
        if self.node_lp is not None:
            self.node_lp.add_classes(to_bits(c) for c in result.generated | {c for c, _ in result.children})
        for color_class, bound in result.children:
            bits = to_bits(color_class)
            residual = node.residual & ~bits
            if bound >= self.best:
                self.stats["nodes_pruned"] += 1
            elif not residual:
                self.offer((*node.classes, bits), "leaf")
            elif self.seen.get(residual, node.depth + 2) <= node.depth + 1:
                self.stats["duplicates"] += 1
            else:
                self.seen[residual] = node.depth + 1
                self.push(Node((*node.classes, bits), residual, bound))
                origin = "sampler" if color_class in result.sampled else "enumeration"
                self.stats[f"nodes_from_{origin}"] += 1
        if self.exhaustive and result.next_offset is not None:
            skip = node.skip | frozenset(to_bits(c) for c in result.generated)
            self.push(Node(node.classes, node.residual, node.bound, True, skip, result.next_offset))

    def frontier_bound(self, in_flight: Iterable[Node]) -> int:
        """Proven lower bound from the open and running nodes (exhaustive branching only).

        Examples
        --------
        >>> from bbqmis.coloring.limits import Clock, Limits
        >>> from bbqmis.coloring.samplers import ExactSampler
        >>> search = SearchState(
        ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
        ...     clock=Clock(Limits()),
        ... )
        >>> search.offer((1, 2, 4, 8, 16), "trivial")
        >>> search.push(Node((), to_bits(range(5)), bound=3))
        >>> search.frontier_bound(in_flight=[])
        3
        """
        bounds = [node.bound for node in self.open_nodes()] + [node.bound for node in in_flight]
        return min([self.best, *bounds])


def progress_snapshot(search: SearchState, running: Iterable[Node]) -> dict:
    """Progress of the tree search: ``nodes``, ``open``, ``incumbent``, ``bound``, ``elapsed``.

    Examples
    --------
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> search = SearchState(
    ...     nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...     clock=Clock(Limits()),
    ... )
    >>> search.offer((1, 2, 4, 8, 16), "one colour per vertex")
    >>> search.push(Node((), to_bits(range(5)), bound=3))
    >>> snapshot = progress_snapshot(search, running=[])
    >>> snapshot["open"], snapshot["bound"], sorted(snapshot)
    (1, 3, ['bound', 'elapsed', 'incumbent', 'nodes', 'open'])
    """
    running = list(running)
    bound = search.frontier_bound(running) if search.exhaustive else None
    return {
        "nodes": int(search.stats["nodes_explored"]),
        "open": len(search.heap) + len(running),
        "incumbent": search.best,
        "bound": bound,
        "elapsed": search.clock.elapsed(),
    }
