"""What the colouring of one connected component shares and gives back.

:class:`SearchContext` carries what every component's phases share (the sampler, the
executor, the limits, the hooks); :class:`CoreState` what the phases know of the component
so far (its core, incumbent and bound); :class:`ComponentOutcome` is how one component was
coloured, with ``how`` saying which phase settled it, so that a result never credits the
quantum sampler with a proof that SAT, DSATUR or the bounds made. The phases themselves
are in :mod:`~bbqmis.coloring.phases`, their order in :mod:`~bbqmis.coloring.pipeline`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx

from .classical.matrices import csr_adjacency
from .classical.mycielski import MycielskiWitness
from .classical.reduce import extend_coloring
from .classical.sat import MAX_SAT_CLAUSES
from .limits import Clock, Every, Limits
from .samplers import MISSampler

__all__ = ["SIZE_LIMIT", "TREE_MAX_NODES", "TREE_METHODS", "ComponentOutcome", "CoreState", "SearchContext"]

#: Phases of ``ComponentOutcome.how`` that are tree searches (branch-and-bound, branch-and-price).
TREE_METHODS = ("search", "price")

#: Largest core that a tree searches (DIMACS benchmarks reach 4,000 vertices). A larger
#: core keeps the heuristics' colouring, with ``stopped`` :data:`SIZE_LIMIT`: the samplers
#: and the exhaustive enumeration of one node would take unbounded time and memory.
TREE_MAX_NODES = 5000
#: ``ComponentOutcome.stopped`` of a core larger than :data:`TREE_MAX_NODES`; unlike the
#: :data:`~bbqmis.coloring.limits.STOP_REASONS`, it does not end the other components' searches.
SIZE_LIMIT = "size_limit"


@dataclass
class SearchContext:
    """What every component's search shares: the sampler, the executor, the limits and the hooks.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.coloring.pipeline import color_component
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
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
    mycielski: bool = True
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
    >>> import networkx as nx
    >>> from bbqmis.coloring.pipeline import color_component
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
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


@dataclass
class CoreState:
    """What the phases know of one component: its core, the incumbent and the bound so far.

    Attributes
    ----------
    graph : networkx.Graph
        The component.
    core : networkx.Graph
        The component without its peeled vertices.
    peeled : list
        The peeled vertices, coloured back at the end without a new colour.
    clique : list
        The vertices of the largest clique found.
    incumbent : dict
        Vertex -> colour, a proper colouring of the core.
    source : str
        What found the incumbent (``"DSATUR"``, ``"sat"``, ``"tabucol"``, ...).
    lower : int
        A proven lower bound on the core's chromatic number.
    stats : dict
        Statistics of the phases so far.
    settled : str or None
        Why no more search is needed (``"bounds"``, ``"sat"``, ``"dominated"``, ...), once known.
    columns : list of frozenset
        Independent sets of the core from the LP phase, to seed the tree's node LPs.
    pricer_stats : dict
        The LP phase's pricer statistics (how long each pricer's calls take).
    mycielski : MycielskiWitness or None
        The witness of the root's Mycielskian bound (a clique and the levels grown from
        it), when one was computed: with the clique, what a certificate of the bound needs.

    Examples
    --------
    >>> import networkx as nx
    >>> state = CoreState(nx.path_graph(3), nx.path_graph(3), [], [0, 1], {0: 0, 1: 1, 2: 0}, "DSATUR", 2, {})
    >>> state.colors, state.settle(global_lower=0), state.settled
    (2, None, 'bounds')
    >>> state.outcome(state.settled).how
    'bounds'
    """

    graph: nx.Graph
    core: nx.Graph
    peeled: list[Hashable]
    clique: list[Hashable]
    incumbent: dict[Hashable, int]
    source: str
    lower: int
    stats: dict[str, Any]
    settled: str | None = None
    columns: list[frozenset] = field(default_factory=list)
    pricer_stats: dict[str, Any] = field(default_factory=dict)
    mycielski: MycielskiWitness | None = None

    @property
    def colors(self) -> int:
        """Colours of the incumbent."""
        return len(set(self.incumbent.values()))

    @cached_property
    def sparse(self) -> Any:
        """CSR adjacency of the core, in the order of its vertices."""
        return csr_adjacency(self.core)

    def settle(self, global_lower: int, proof: str = "bounds") -> None:
        """Record why no more search is needed: the colours meet the bound, or another needs more.

        Examples
        --------
        >>> import networkx as nx
        >>> path = nx.path_graph(3)
        >>> state = CoreState(path, path, [], [0, 1], {0: 0, 1: 1, 2: 2}, "DSATUR", 2, {})
        >>> state.settle(global_lower=0), state.settled
        (None, None)
        >>> state.settle(global_lower=3), state.settled
        (None, 'dominated')
        >>> state.incumbent[2] = 0
        >>> state.settle(global_lower=0, proof="sat"), state.settled
        (None, 'sat')
        """
        if self.colors <= self.lower:
            self.settled = proof
        elif self.colors <= global_lower:
            self.settled = "dominated"
        else:
            self.settled = None

    def outcome(self, how: str, stopped: str | None = None) -> ComponentOutcome:
        """The component coloured by the incumbent and its peeled vertices, with the bound so far.

        Examples
        --------
        >>> import networkx as nx
        >>> path = nx.path_graph(4)  # vertex 3 was peeled off the core 0-1-2
        >>> core = path.subgraph([0, 1, 2])
        >>> state = CoreState(path, core, [3], [0, 1], {0: 0, 1: 1, 2: 0}, "DSATUR", 2, {})
        >>> outcome = state.outcome("bounds")
        >>> outcome.coloring[3] != outcome.coloring[2], outcome.num_colors, outcome.how
        (True, 2, 'bounds')
        """
        coloring = extend_coloring(self.graph, self.incumbent, self.peeled)
        return ComponentOutcome(coloring, self.lower, how, stopped, self.stats)
