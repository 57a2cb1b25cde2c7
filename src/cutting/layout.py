"""Cut planning: which fragment every qubit, gate and wire segment of the p = 1 circuit goes to.

A separator ``S`` splits the graph into components. In the p = 1 circuit every ``RZZ``
gate commutes with every other, so the gates can be grouped by fragment: the gates
inside component ``c`` and those between ``c`` and a separator vertex form fragment ``c``.
A separator qubit adjacent to ``m`` fragments visits them in order and is cut ``m - 1``
times, once between consecutive visits; each visit is a wire segment of that fragment.
The widths therefore count the component's qubits plus one qubit per visiting segment.

This module decides all of that on qubit indices, before any circuit exists; the
circuits are built by :mod:`~cutting.circuits`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import numpy as np

from backends.utils.errors import InvalidParameterError

from .errors import FragmentTooWideError, NoSeparatorError
from .problem import QAOAProblem
from .separators import Separation, find_separators, separator_components

__all__ = ["FragmentLayout", "assign_fragments", "fewest_cut_layout", "separator_layout", "pack_fragments"]


@dataclass(frozen=True)
class FragmentLayout:
    """Where the gates of a separation go, before any circuit is built.

    Fragment ids are the indices of :attr:`components`: the components of ``G - S`` in
    their order, then one id per group of separator qubits that touches no component.

    Attributes
    ----------
    components : list of list of int
        Qubits of every fragment id, increasing (empty for separator-only fragments).
    segments : dict of int to list of int
        Separator qubit -> fragment ids it visits, increasing; the qubit is cut between
        consecutive visits. Keys are increasing.
    edge_fragment : dict of frozenset of int to int
        Edge between two separator qubits -> fragment id that holds its ``RZZ`` gate.

    Examples
    --------
    >>> layout = FragmentLayout([[0, 1], [3, 4]], {2: [0, 1]}, {})  # path 0-1-2-3-4 cut at 2
    >>> layout.num_cuts, layout.home
    (1, {0: 0, 1: 0, 3: 1, 4: 1})
    """

    components: list[list[int]]
    segments: dict[int, list[int]]
    edge_fragment: dict[frozenset[int], int]

    @property
    def num_cuts(self) -> int:
        """Wire cuts ``K``: one between consecutive visits of every separator qubit."""
        return sum(len(v) - 1 for v in self.segments.values())

    @property
    def home(self) -> dict[int, int]:
        """Fragment id of every non-separator qubit."""
        return {q: f for f, c in enumerate(self.components) for q in c}

    def widths(self) -> list[int]:
        """Qubits of every fragment id: its component plus one per visiting wire segment.

        Returns
        -------
        list of int
            ``widths[f]`` for every fragment id ``f``.

        Examples
        --------
        >>> FragmentLayout([[0, 1], [3, 4]], {2: [0, 1]}, {}).widths()  # qubit 2 visits both
        [3, 3]
        """
        widths = [len(c) for c in self.components]
        for fragments in self.segments.values():
            for f in fragments:
                widths[f] += 1
        return widths


def _place_separator_edges(
    pending: list[tuple[int, int]], visits: dict[int, set[int]], components: list[list[int]]
) -> dict[frozenset[int], int]:
    """Give every separator-separator edge a fragment, preferring fragments both ends visit.

    Edges whose ends visit no fragment yet wait for a later round; when a round places
    none, a new empty fragment is opened for the first waiting edge. ``visits`` and
    ``components`` are updated in place.
    """
    edge_fragment: dict[frozenset[int], int] = {}
    while pending:
        placed = []
        for s, t in pending:
            common = visits[s] & visits[t]
            if common or (visits[s] and visits[t]):
                f = min(common) if common else min(visits[t])
            elif visits[s] or visits[t]:
                f = min(visits[s] or visits[t])
            else:
                continue
            visits[s].add(f)
            visits[t].add(f)
            edge_fragment[frozenset((s, t))] = f
            placed.append((s, t))
        if not placed:  # separator vertices touching no component: a fragment of their own
            visits[pending[0][0]].add(len(components))
            components.append([])
        pending = [e for e in pending if e not in placed]
    return edge_fragment


def assign_fragments(problem: QAOAProblem, separation: Separation) -> FragmentLayout:
    """Assign every qubit, wire segment and ``RZZ`` gate of ``problem`` to a fragment.

    Parameters
    ----------
    problem : QAOAProblem
    separation : Separation
        A separator of ``problem.graph`` and the components it leaves.

    Returns
    -------
    FragmentLayout
        A separator qubit visits every fragment it has an edge into; edges between two
        separator qubits go to a fragment both visit when possible.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> problem = MISProblem(nx.path_graph(5))
    >>> layout = assign_fragments(problem, find_separators(problem.graph, 2))
    >>> layout.components, layout.segments, layout.num_cuts, layout.widths()
    ([[0, 1], [3, 4]], {2: [0, 1]}, 1, [3, 3])
    """
    index = {v: i for i, v in enumerate(problem.nodes)}
    components = [sorted(index[v] for v in c) for c in separation.components]
    home = {q: f for f, c in enumerate(components) for q in c}
    separator = sorted(index[v] for v in separation.separator)
    visits: dict[int, set[int]] = {s: set() for s in separator}
    pending: list[tuple[int, int]] = []
    for u, v in problem.edges.tolist():
        if u in visits and v in visits:
            pending.append((u, v))
        elif u in visits or v in visits:
            s, other = (u, v) if u in visits else (v, u)
            visits[s].add(home[other])
    edge_fragment = _place_separator_edges(pending, visits, components)
    for s in separator:
        if not visits[s]:
            visits[s].add(len(components))
            components.append([])
    return FragmentLayout(components, {s: sorted(f) for s, f in visits.items()}, edge_fragment)


def fewest_cut_layout(problem: QAOAProblem, max_qubits: int, max_cuts: int | None = None) -> FragmentLayout:
    """Fewest-cut layout whose fragments, cut wires included, fit ``max_qubits``.

    :func:`find_separators` is called with component bounds ``max_qubits, max_qubits - 1,
    ...``; the descent stops once the separator has more vertices than the best layout
    has cuts (ties keep the larger bound), or than ``max_cuts``: every separator vertex
    costs at least one cut.

    Parameters
    ----------
    problem : QAOAProblem
    max_qubits : int
        Largest allowed fragment width, >= 1.
    max_cuts : int, optional
        Largest number of cuts worth a layout; default no bound.

    Returns
    -------
    FragmentLayout

    Raises
    ------
    NoSeparatorError
        If no bound gives fragments that fit.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> layout = fewest_cut_layout(MISProblem(nx.path_graph(7)), 4)
    >>> layout.segments, layout.widths()  # one cut at vertex 3 leaves two 4-qubit fragments
    ({3: [0, 1]}, [4, 4])
    """
    best: FragmentLayout | None = None
    for max_component in range(max_qubits, 0, -1):
        try:
            separation = find_separators(problem.graph, max_component, max_size=max_cuts)
        except NoSeparatorError:
            break
        if best is not None and len(separation.separator) > best.num_cuts:
            break
        layout = assign_fragments(problem, separation)
        fits = max(layout.widths(), default=0) <= max_qubits
        if fits and (best is None or layout.num_cuts < best.num_cuts):
            best = layout
    if best is not None:
        return best
    raise NoSeparatorError(
        f"no vertex separator splits the {problem.num_nodes}-vertex graph into fragments of at most "
        f"{max_qubits} qubits (cut wires included)"
    )


def separator_layout(problem: QAOAProblem, separator: Iterable[Hashable], max_qubits: int) -> FragmentLayout:
    """Layout of a given vertex separator, checked against ``max_qubits``.

    Parameters
    ----------
    problem : QAOAProblem
    separator : iterable of graph nodes
    max_qubits : int
        Largest allowed fragment width.

    Returns
    -------
    FragmentLayout

    Raises
    ------
    InvalidParameterError
        If ``separator`` names a node not in the graph.
    FragmentTooWideError
        If a fragment, cut wires included, is wider than ``max_qubits``.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> layout = separator_layout(MISProblem(nx.path_graph(7)), [1], 6)
    >>> layout.components, layout.segments, layout.widths()
    ([[0], [2, 3, 4, 5, 6]], {1: [0, 1]}, [2, 6])
    """
    nodes = frozenset(separator)
    missing = [v for v in nodes if v not in problem.graph]
    if missing:
        raise InvalidParameterError(f"separator node {missing[0]!r} is not in the graph")
    layout = assign_fragments(problem, Separation(nodes, separator_components(problem.graph, set(nodes))))
    widths = layout.widths()
    f = int(np.argmax(widths))
    if widths[f] > max_qubits:
        vertices = len(layout.components[f])
        raise FragmentTooWideError(
            f"a fragment needs {widths[f]} qubits ({vertices} vertices + {widths[f] - vertices} cut wires), "
            f"more than max_qubits={max_qubits}"
        )
    return layout


def pack_fragments(layout: FragmentLayout, max_qubits: int) -> list[int]:
    """Partition label of every fragment id; cut-free fragments share partitions with room.

    Fragments that some cut touches get labels ``0, 1, ...`` in id order. The others
    (components no separator qubit visits) are packed first-fit decreasing by width into
    the room those leave under ``max_qubits``, opening new labels when none has room.

    Parameters
    ----------
    layout : FragmentLayout
    max_qubits : int
        Largest allowed partition width.

    Returns
    -------
    list of int
        ``labels[f]`` for every fragment id ``f``.

    Examples
    --------
    >>> layout = FragmentLayout([[0, 1], [3], [4], [5, 6]], {2: [0, 1]}, {})
    >>> pack_fragments(layout, 4)
    [0, 1, 0, 1]
    """
    widths = layout.widths()
    touched = sorted({f for fragments in layout.segments.values() for f in fragments})
    label = {f: i for i, f in enumerate(touched)}
    room = [max_qubits - widths[f] for f in touched]
    for f in sorted(set(range(len(widths))) - set(touched), key=lambda f: (-widths[f], f)):
        fit = next((i for i, r in enumerate(room) if r >= widths[f]), None)
        if fit is None:
            fit = len(room)
            room.append(max_qubits)
        room[fit] -= widths[f]
        label[f] = fit
    return [label[f] for f in range(len(widths))]
