"""LP bounds at the nodes of the BBQ-MIS tree, over one column pool that every node shares.

A tree node colours the residual graph ``H`` of its vertex set ``R``; any colouring of the
subtree uses at least ``depth + chi(H) >= depth + ceil(chi_f(H))`` colours. The restricted
master of ``H`` is seeded with the pool's columns cut down to ``R`` (an independent set of
the graph stays independent in ``H``), so the columns that earlier nodes priced, the root
LP's, and every maximal independent set the tree's sampler proposed all start it warm. New
columns priced at the node (by the sampler's counterpart, certified by an exact MWIS) go
back into the pool, extended to maximal sets of the whole graph.

The bound is Farley's (:func:`~bbqmis.coloring.lp.lp_bound.lp_bound` with ``settle=True``), so
it is valid even when the time box stops column generation early. Node LPs are throttled to
a share of the search's time, and run only on residual graphs of at most ``max_nodes``
vertices, so they never dominate the run.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence

import networkx as nx
import numpy as np

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_positive_int, check_probability

from ...samples import Stats, add_stats, new_stats
from .lp_bound import lp_bound
from .master import ColumnPool, IndexedGraph, bit_indices
from .pricers import PricerLike, get_pricer
from .pricing import DEVICE_COUNTERS, Pricer, device_work

__all__ = ["MAX_GRAPH_NODES", "NodeLP"]

#: Largest graph a :class:`NodeLP` takes: it holds the graph's dense adjacency and a
#: neighbour bitset per vertex (16 MB at this size, quadratic in it). Node LPs bound only
#: residuals of at most ``max_nodes`` (200) vertices, which a tree on a larger graph
#: reaches only thousands of colour classes deep, so larger graphs go without them.
MAX_GRAPH_NODES = 4000

#: Seconds one node's column generation may take at most.
_NODE_CAP_SECONDS = 2.0
#: Seconds of node LPs allowed before the share applies (the first nodes are the most useful).
_GRACE_SECONDS = 0.2


class NodeLP:
    """Lower bounds for tree nodes from a column pool shared across the tree.

    Parameters
    ----------
    graph : networkx.Graph
        The tree's graph, with vertices ``0..n-1`` (node bitsets index them).
    pricers : sequence of str or Pricer
        Heuristic pricers, tried before the exact MWIS (see
        :func:`~bbqmis.coloring.lp.lp_bound.lp_bound`).
    columns : iterable of iterables of int, default=()
        Seed columns, such as the root LP's pool.
    share : float, default=0.25
        Largest share of the run's elapsed seconds that node LPs may use, in [0, 1]; it
        shrinks while the LP raises few bounds (to a tenth of it when one node in ten is
        raised, and towards 0 when none is), so graphs whose fractional chromatic number
        is far below chi (Mycielski graphs) pay little for it.
    max_nodes : int, default=200
        Residual graphs with more vertices are not bounded by LP.
    seed : int or None
        Seed of the heuristic pricers.
    pricer_stats : mapping of str to Stats, optional
        ``calls`` and ``seconds`` per pricer name measured before (the root LP's
        :attr:`~bbqmis.coloring.lp.lp_bound.LPBound.stats`): a node's LP uses only the
        heuristic pricers whose mean call fits in its time box, so one slow call (a
        24-qubit QAOA circuit on a busy machine) cannot overrun the run's time limit.

    Raises
    ------
    InvalidParameterError
        If ``graph`` has more than :data:`MAX_GRAPH_NODES` vertices (checked before anything
        is allocated).

    Attributes
    ----------
    pool : ColumnPool
        The shared columns, maximal independent sets of the whole graph.
    stats : Stats
        ``nodes`` (node LPs run), ``raised`` (node bounds they raised), ``seconds``, and
        ``columns_from_tree`` (pool columns
        first proposed by the tree's sampler or enumeration).
    improving_columns : dict of str to int
        Per pricer name, columns of negative reduced cost it priced at the nodes.
    device : Stats
        What its pricers sent to quantum devices
        (:func:`~bbqmis.coloring.lp.pricing.device_work`, summed over the nodes).

    Examples
    --------
    >>> import networkx as nx
    >>> lp = NodeLP(nx.petersen_graph(), ("greedy",), seed=0)
    >>> lp.bound((1 << 10) - 1, depth=0, lower=2, best=3, elapsed=60.0, deadline=time.perf_counter() + 5)
    3
    >>> NodeLP(nx.path_graph(200_000), ("greedy",))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends...InvalidParameterError: graph has 200000 vertices; node LPs take graphs of at most 4000
    """

    def __init__(
        self,
        graph: nx.Graph,
        pricers: Sequence[PricerLike],
        *,
        columns: Iterable[Iterable[int]] = (),
        share: float = 0.25,
        max_nodes: int = 200,
        seed: int | None = None,
        pricer_stats: Mapping[str, Mapping[str, float]] | None = None,
    ) -> None:
        if len(graph) > MAX_GRAPH_NODES:
            raise InvalidParameterError(
                f"graph has {len(graph)} vertices; node LPs take graphs of at most {MAX_GRAPH_NODES}"
            )
        self.graph = IndexedGraph(
            nx.to_numpy_array(graph, nodelist=range(len(graph)), dtype=bool, weight=None)
        )
        self.pricers = tuple(get_pricer(pricer) for pricer in pricers)
        self.pricer_time: dict[str, list[float]] = {
            name: [float(counters.get("seconds", 0.0)), float(counters.get("calls", 0))]
            for name, counters in (pricer_stats or {}).items()
        }
        self.share = check_probability(share, "share")
        self.max_nodes = check_positive_int(max_nodes, "max_nodes")
        self.seed = seed
        self.pool = ColumnPool(self.graph)
        self.pool.add(columns)
        self.stats: Stats = new_stats(columns_from_tree=0)
        self.improving_columns: dict[str, int] = {}
        self.device: Stats = new_stats(**dict.fromkeys(DEVICE_COUNTERS, 0.0))

    def affordable(self, seconds: float) -> tuple[Pricer, ...]:
        """The heuristic pricers whose mean call so far takes at most ``seconds`` (untried ones too).

        Examples
        --------
        >>> slow = {"anneal": {"calls": 2, "seconds": 9.0}}
        >>> lp = NodeLP(nx.path_graph(3), ("greedy", "anneal"), pricer_stats=slow)
        >>> [pricer.name for pricer in lp.affordable(1.0)], [pricer.name for pricer in lp.affordable(5.0)]
        (['greedy'], ['greedy', 'anneal'])
        """
        return tuple(
            pricer
            for pricer in self.pricers
            if (spent := self.pricer_time.get(pricer.name)) is None
            or spent[0] <= seconds * max(spent[1], 1.0)
        )

    def add_classes(self, masks: Iterable[int]) -> None:
        """Add colour classes the tree generated (bitsets over the graph's vertices) as columns.

        Examples
        --------
        >>> import networkx as nx
        >>> lp = NodeLP(nx.cycle_graph(5), ("greedy",))
        >>> lp.add_classes([0b00101, 0b01010, 0b00101])
        >>> len(lp.pool), int(lp.stats["columns_from_tree"])
        (2, 2)
        """
        self.stats["columns_from_tree"] += self.pool.add_masks(masks)

    def bound(
        self, residual: int, depth: int, lower: int, best: int, *, elapsed: float, deadline: float
    ) -> int | None:
        """A lower bound on the colours of every colouring in a node's subtree, or None if not run.

        Parameters
        ----------
        residual : int
            Bitset of the node's uncoloured vertices.
        depth : int
            Colours the node has used.
        lower : int
            The node's bound so far; the LP's record of raising it decides its time share.
        best : int
            Colours of the incumbent: column generation stops as soon as the bound
            cannot reach it (then the node could not be pruned anyway).
        elapsed : float
            Seconds the search has run, for the time share.
        deadline : float
            :func:`time.perf_counter` time at which to stop (the run's limit).

        Returns
        -------
        int or None
            ``depth`` plus the LP bound of the residual graph; None when the node is too
            large, the share is spent or no time is left.

        Examples
        --------
        The 5-cycle minus vertex 0 is a path, whose LP bound is 2; with the one colour used
        above it, the node needs 3 colours, as many as a 3-colour incumbent, so it is pruned:

        >>> import networkx as nx
        >>> lp = NodeLP(nx.cycle_graph(5), ("greedy",), seed=0)
        >>> deadline = time.perf_counter() + 5
        >>> lp.bound(0b11110, depth=1, lower=2, best=3, elapsed=60.0, deadline=deadline)
        3
        >>> lp.bound(0b11110, depth=1, lower=2, best=3, elapsed=0.0, deadline=time.perf_counter() - 1) is None
        True
        """
        vertices = np.fromiter(bit_indices(residual), dtype=np.intp)
        useful = (self.stats["raised"] + 1) / (self.stats["raised"] + 1 + self.stats["nodes"] / 10)
        allowance = self.share * elapsed * useful + _GRACE_SECONDS - self.stats["seconds"]
        stop = min(deadline, time.perf_counter() + min(allowance, _NODE_CAP_SECONDS))
        if not 0 < len(vertices) <= self.max_nodes or not math.isfinite(stop) or stop <= time.perf_counter():
            return None
        start = time.perf_counter()
        sub = IndexedGraph(self.graph.adjacency[np.ix_(vertices, vertices)], nodes=vertices.tolist())
        seeds = {mask & residual for mask in self.pool.masks} - {0}
        result = lp_bound(
            sub,
            [list(bit_indices(mask)) for mask in seeds],
            self.affordable(stop - start),
            deadline=stop,
            quick=False,
            settle=True,
            target=best - depth,
            seed=self.seed,
        )
        priced = result.columns.masks[int(result.stats["master"]["initial_columns"]) :]
        self.pool.add(result.columns.graph.labels(mask) for mask in priced)
        self.stats["nodes"] += 1
        self.stats["raised"] += depth + result.bound > lower
        self.stats["seconds"] += time.perf_counter() - start
        add_stats(self.device, device_work(result.stats))
        for name, counters in result.stats.items():
            if name != "master":
                spent = self.pricer_time.setdefault(name, [0.0, 0.0])
                spent[0] += float(counters.get("seconds", 0.0))
                spent[1] += float(counters.get("calls", 0))
                self.improving_columns[name] = self.improving_columns.get(name, 0) + int(
                    counters.get("improving_columns", 0)
                )
        return depth + result.bound
