"""The result of a colouring search, and the check that a colouring is proper."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import SearchError

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["SUMMED_STATS", "ColoringResult", "color_classes", "verify_coloring"]

#: Counters of ``ColoringResult.stats`` that are sums over the searched components.
SUMMED_STATS = (
    "nodes_explored",
    "completions",
    "nodes_pruned",
    "duplicates",
    "open_nodes",
    "peeled",
    "nodes_from_sampler",
    "nodes_from_enumeration",
)


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
    stopped : str or None
        Why the run ended before proving optimality: ``"time_limit"``, ``"node_limit"``,
        ``"memory_limit"`` or ``"interrupted"``, or ``"size_limit"`` when a component's
        core was too large for a tree (more than 5,000 vertices after peeling: it keeps
        the heuristics' colouring); None when it finished (optimal, or a heuristic run that
        exhausted its tree).
    stats : dict
        Search statistics: ``nodes_explored`` (node expansions, ``completions``
        of them enumerating the children a sampler missed), ``nodes_pruned``,
        ``duplicates``, ``open_nodes``, ``nodes_from_sampler`` and
        ``nodes_from_enumeration`` (open nodes created from the sampler's classes and
        from the exhaustive enumeration's), ``root_lower_bound``, ``root_bounds``,
        ``initial_colors`` (best of networkx's DSATUR, largest-first, smallest-last;
        for a component settled or skipped without a search, its bound and colouring),
        ``stop_reason`` (``"bounds_met"``, ``"exhausted"``, or what ``stopped``
        says), ``exhaustive``, ``seconds``, ``incumbents`` (list of
        ``[seconds, colours, source]``), ``sampler`` (calls, circuits, shots,
        quantum_seconds, fallbacks, cut_components, seconds: the branching sampler's
        work), ``pricing`` (circuits, shots, quantum_seconds that the LP bounds'
        pricers sent to quantum devices, e.g. QAOA pricing; empty without LP bounds), and
        for a QAOA sampler ``training``: the branching sampler's work split into training
        the angles and sampling (:func:`~bbqmis.mis.training.training_summary`: problems,
        evaluations, circuits, shots, quantum_seconds, sampling, mean_gap,
        mean_relative_gap), derived from ``sampler`` when the result is built.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import color_graph
    >>> result = color_graph(nx.cycle_graph(5), sampler="exact")
    >>> result.num_colors, result.lower_bound, result.optimal
    (3, 3, True)
    >>> verify_coloring(nx.cycle_graph(5), result.coloring)
    """

    coloring: dict
    num_colors: int
    lower_bound: int
    optimal: bool
    stopped: str | None = None
    stats: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Add ``stats["training"]`` from the sampler's training counters, when it has them."""
        sampler = self.stats.get("sampler")
        if isinstance(sampler, Mapping) and "training_problems" in sampler and "training" not in self.stats:
            from ..mis.training import training_summary  # imports qiskit: only for a trained run

            summary = training_summary(sampler)
            if summary is not None:
                self.stats["training"] = summary

    def __repr__(self) -> str:
        """One line: colours, bound, optimality, stop reason, vertices and seconds (not the colouring)."""
        seconds = self.stats.get("seconds")
        return (
            f"ColoringResult(num_colors={self.num_colors}, lower_bound={self.lower_bound}, "
            f"optimal={self.optimal}, stopped={self.stopped!r}, vertices={len(self.coloring)}"
            + ("" if seconds is None else f", seconds={seconds:.3g}")
            + ")"
        )

    def to_json(self) -> dict:
        """JSON-ready dict.

        Exactly the keys ``coloring`` (labels as strings: ``str(label)``, or ``repr(label)``
        for every label when two labels have the same ``str``, as ``1`` and ``"1"`` do),
        ``num_colors``, ``lower_bound``, ``optimal``, ``stopped`` and ``stats``.

        Examples
        --------
        >>> import json
        >>> result = ColoringResult({"a": 0, "b": 1}, num_colors=2, lower_bound=2, optimal=True)
        >>> data = result.to_json()
        >>> sorted(data)
        ['coloring', 'lower_bound', 'num_colors', 'optimal', 'stats', 'stopped']
        >>> json.loads(json.dumps(data))["coloring"]
        {'a': 0, 'b': 1}
        """
        key = str if len({str(label) for label in self.coloring}) == len(self.coloring) else repr
        return {
            "coloring": {key(label): color for label, color in self.coloring.items()},
            "num_colors": self.num_colors,
            "lower_bound": self.lower_bound,
            "optimal": self.optimal,
            "stopped": self.stopped,
            "stats": self.stats,
        }


def verify_coloring(graph: nx.Graph, coloring: dict) -> None:
    """Raise :class:`SearchError` unless ``coloring`` (node -> colour) is proper and complete.

    Examples
    --------
    >>> import networkx as nx
    >>> verify_coloring(nx.path_graph(3), {0: 0, 1: 1, 2: 0})
    >>> verify_coloring(nx.path_graph(3), {0: 0, 1: 1})
    Traceback (most recent call last):
    ...
    bbqmis.coloring.errors.SearchError: colouring misses 1 vertices, e.g. 2
    """
    missing = [v for v in graph if v not in coloring]
    if missing:
        raise SearchError(f"colouring misses {len(missing)} vertices, e.g. {missing[0]!r}")
    for u, v in graph.edges:
        if coloring[u] == coloring[v]:
            raise SearchError(
                f"colouring is not proper: adjacent vertices {u!r} and {v!r} share colour {coloring[u]}"
            )


def color_classes(coloring: dict[Hashable, int]) -> tuple[frozenset, ...]:
    """The colour classes of ``coloring`` (vertex -> colour), in order of first appearance.

    Examples
    --------
    >>> [sorted(c) for c in color_classes({"a": 0, "b": 1, "c": 0})]
    [['a', 'c'], ['b']]
    """
    groups: dict[int, set] = {}
    for v, color in coloring.items():
        groups.setdefault(color, set()).add(v)
    return tuple(frozenset(g) for g in groups.values())
