"""Wire-cut plans for the p = 1 QAOA circuit of a problem: ``cut_qaoa -> CutPlan``.

The problem is any :class:`~cutting.problem.QAOAProblem`, such as
:class:`bbqmis.mis.MISProblem`.

:func:`cut_qaoa` chains two steps. :mod:`~cutting.layout` plans the cuts: it chooses a
vertex separator (or takes the caller's), assigns every qubit, wire segment and ``RZZ``
gate to a fragment, and packs cut-free fragments into partitions with room.
:mod:`~cutting.circuits` then builds the cut circuit and its subexperiments with
qiskit-addon-cutting. A :class:`CutPlan` holds both results.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from qiskit.circuit import Parameter, QuantumCircuit
from qiskit_addon_cutting.qpd import WeightType

from backends.utils.validation import check_nonnegative, check_positive_int

from .circuits import CutExperiments, cut_experiments
from .errors import NoSeparatorError, OverheadTooLargeError
from .layout import FragmentLayout, fewest_cut_layout, pack_fragments, separator_layout
from .problem import QAOAProblem, check_problem

__all__ = ["Fragment", "CutPlan", "cut_qaoa"]


@dataclass(frozen=True)
class Fragment:
    """One partition of the cut circuit, run as its own subexperiments.

    Attributes
    ----------
    label : int
        Partition label (key of :attr:`CutPlan.subexperiments`).
    qubits : tuple of int
        Original qubits whose final value this fragment measures; bit ``b`` of the
        fragment's ``observable_measurements`` register is qubit ``qubits[b]``.
    width : int
        Qubits of the fragment's circuits, cut ancillas (pre-cut wire segments) included.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> cut_qaoa(MISProblem(nx.path_graph(5)), 3).fragments  # vertex 2 is cut once
    (Fragment(label=0, qubits=(0, 1), width=3), Fragment(label=1, qubits=(2, 3, 4), width=3))
    """

    label: int
    qubits: tuple[int, ...]
    width: int


@dataclass(frozen=True, eq=False)
class CutPlan:
    """Wire cuts of the p = 1 QAOA circuit and the subexperiments they need.

    Build it with :func:`cut_qaoa`. The subexperiments carry the unbound ``(gamma, beta)``
    parameters of the problem's circuit and are bound per run.

    Attributes
    ----------
    problem : QAOAProblem
    max_qubits : int
        Width limit the plan was made for.
    separator : tuple of int
        Separator qubits (``problem.nodes[q]`` is the vertex).
    num_cuts : int
        Wire cuts ``K``.
    fragments : tuple of Fragment
    circuit : QuantumCircuit
        The uncut p = 1 circuit with ``RZZ`` gates grouped by fragment and ``CutWire`` markers.
    cut_circuit : QuantumCircuit
        ``cut_wires(circuit)``: each cut adds a qubit before the cut one.
    partition_labels : tuple of int
        Fragment label of every qubit of ``cut_circuit``.
    parameters : (Parameter, Parameter)
        ``(gamma, beta)``.
    coefficients : list of (float, WeightType)
        From :func:`qiskit_addon_cutting.generate_cutting_experiments`: ``8**K`` terms,
        each ``+-1/2**K``.
    subexperiments : dict of int to list of QuantumCircuit
        One circuit per coefficient for every fragment, in coefficient order.
    twins : dict of int to ndarray of shape (8**K,) of int
        For every fragment and coefficient, the first coefficient whose circuit is
        identical (several terms of the Move decomposition share a circuit on one side of
        the cut); :func:`run_subexperiments` pools the shots of identical circuits.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> plan = cut_qaoa(MISProblem(nx.path_graph(5)), 3)
    >>> plan.separator, plan.num_cuts, len(plan.coefficients), plan.kappa, plan.overhead
    ((2,), 1, 8, 4.0, 16.0)
    >>> [p.name for p in plan.parameters], plan.qubit_map[2]  # qubit 2: fragment 1, bit 0
    (['gamma', 'beta'], (1, 0))
    """

    problem: QAOAProblem
    max_qubits: int
    separator: tuple[int, ...]
    num_cuts: int
    fragments: tuple[Fragment, ...]
    circuit: QuantumCircuit = field(repr=False)
    cut_circuit: QuantumCircuit = field(repr=False)
    partition_labels: tuple[int, ...] = field(repr=False)
    parameters: tuple[Parameter, Parameter] = field(repr=False)
    coefficients: list[tuple[float, WeightType]] = field(repr=False)
    subexperiments: dict[int, list[QuantumCircuit]] = field(repr=False)
    twins: dict[int, NDArray[np.int64]] = field(repr=False)

    @property
    def num_qubits(self) -> int:
        """Qubits of the uncut circuit (vertices)."""
        return self.problem.num_nodes

    @property
    def widths(self) -> tuple[int, ...]:
        """Fragment widths, cut ancillas included."""
        return tuple(f.width for f in self.fragments)

    @property
    def num_subexperiments(self) -> int:
        """Circuits per run: coefficients times fragments."""
        return sum(map(len, self.subexperiments.values()))

    @property
    def weights(self) -> NDArray[np.float64]:
        """Coefficients ``a_i`` as an ndarray of shape (8**K,)."""
        return np.array([c for c, _ in self.coefficients], dtype=float)

    @property
    def kappa(self) -> float:
        """``sum_i |a_i| = 4**K``: the factor on the standard deviation at fixed shots."""
        return float(np.abs(self.weights).sum())

    @property
    def overhead(self) -> float:
        """Sampling overhead ``kappa**2 = 16**K``."""
        return self.kappa**2

    @property
    def qubit_map(self) -> dict[int, tuple[int, int]]:
        """Original qubit -> (fragment label, bit in that fragment's measurement register)."""
        return {q: (f.label, b) for f in self.fragments for b, q in enumerate(f.qubits)}

    def to_json(self) -> dict[str, object]:
        """Plain-dict summary (no circuits): the numbers of :meth:`summary`.

        Returns
        -------
        dict
            JSON-serialisable: ``num_qubits``, ``max_qubits``, ``separator``, ``num_cuts``,
            ``fragments`` (label, width, qubits), ``num_subexperiments``, ``kappa``, ``overhead``.

        Examples
        --------
        >>> import json
        >>> import networkx as nx
        >>> from bbqmis.mis import MISProblem
        >>> print(json.dumps(cut_qaoa(MISProblem(nx.path_graph(5)), 3).to_json()))  # doctest: +ELLIPSIS
        {"num_qubits": 5, "max_qubits": 3, "separator": [2], "num_cuts": 1, "fragments": [...], ...}
        """
        return {
            "num_qubits": self.num_qubits,
            "max_qubits": self.max_qubits,
            "separator": list(self.separator),
            "num_cuts": self.num_cuts,
            "fragments": [
                {"label": f.label, "width": f.width, "qubits": list(f.qubits)} for f in self.fragments
            ],
            "num_subexperiments": self.num_subexperiments,
            "kappa": self.kappa,
            "overhead": self.overhead,
        }

    def summary(self) -> str:
        """Describe the plan in a few human-readable lines.

        Returns
        -------
        str
            Also what ``str(plan)`` gives.

        Examples
        --------
        >>> import networkx as nx
        >>> from bbqmis.mis import MISProblem
        >>> print(cut_qaoa(MISProblem(nx.path_graph(5)), 3).summary())
        5 qubits -> 2 fragments of widths [3, 3] (max 3); separator qubits [2]
        1 wire cuts: 8 coefficients, 16 subexperiments, overhead kappa^2 = 16
          fragment 0: width 3, measures qubits [0, 1]
          fragment 1: width 3, measures qubits [2, 3, 4]
        """
        lines = [
            f"{self.num_qubits} qubits -> {len(self.fragments)} fragments of widths {list(self.widths)} "
            f"(max {self.max_qubits}); separator qubits {list(self.separator)}",
            f"{self.num_cuts} wire cuts: {len(self.coefficients)} coefficients, "
            f"{self.num_subexperiments} subexperiments, overhead kappa^2 = {self.overhead:g}",
        ]
        lines += [
            f"  fragment {f.label}: width {f.width}, measures qubits {list(f.qubits)}" for f in self.fragments
        ]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _fewest_cut_layout(problem: QAOAProblem, max_qubits: int, max_overhead: float | None) -> FragmentLayout:
    """:func:`fewest_cut_layout` with no more cuts than ``max_overhead`` allows."""
    if max_overhead is None:
        return fewest_cut_layout(problem, max_qubits)
    max_cuts = int(math.log(max(max_overhead, 1.0)) / math.log(16.0) + 1e-9)
    try:
        return fewest_cut_layout(problem, max_qubits, max_cuts)
    except NoSeparatorError as exc:
        raise OverheadTooLargeError(
            f"no layout with at most {max_cuts} wire cuts (sampling overhead 16**{max_cuts} = "
            f"{16.0**max_cuts:g}, within max_overhead={max_overhead:g}) fits max_qubits={max_qubits}"
        ) from exc


def _check_overhead(num_cuts: int, max_overhead: float | None) -> None:
    """Raise :class:`OverheadTooLargeError` if ``16**num_cuts`` exceeds ``max_overhead``."""
    overhead = 16.0**num_cuts
    if max_overhead is not None and overhead > max_overhead:
        raise OverheadTooLargeError(
            f"{num_cuts} wire cuts have sampling overhead 16**{num_cuts} = {overhead:g}, "
            f"more than max_overhead={max_overhead:g}"
        )


def _assemble(
    problem: QAOAProblem, max_qubits: int, layout: FragmentLayout, experiments: CutExperiments
) -> CutPlan:
    """The :class:`CutPlan` of a layout and the experiments built from it."""
    return CutPlan(
        problem=problem,
        max_qubits=max_qubits,
        separator=tuple(sorted(layout.segments)),
        num_cuts=layout.num_cuts,
        fragments=tuple(
            Fragment(label, qubits, experiments.fragment_widths[label])
            for label, qubits in experiments.fragment_qubits.items()
        ),
        circuit=experiments.circuit,
        cut_circuit=experiments.cut_circuit,
        partition_labels=experiments.partition_labels,
        parameters=experiments.parameters,
        coefficients=experiments.coefficients,
        subexperiments=experiments.subexperiments,
        twins=experiments.twins,
    )


def cut_qaoa(
    problem: QAOAProblem,
    max_qubits: int,
    *,
    max_overhead: float | None = None,
    separator: Iterable[Hashable] | None = None,
) -> CutPlan:
    """Plan wire cuts so that every fragment of the p = 1 QAOA circuit fits ``max_qubits``.

    Without ``separator``, :func:`~cutting.layout.fewest_cut_layout` keeps the fewest-cut
    separator whose fragments, cut wires included, fit (a graph whose components all fit
    needs no cut). Cut-free fragments are packed into others with room
    (:func:`~cutting.layout.pack_fragments`); :func:`~cutting.circuits.cut_experiments`
    builds the subexperiments with qiskit-addon-cutting, once, with unbound angles.

    Parameters
    ----------
    problem : QAOAProblem
        Such as :class:`bbqmis.mis.MISProblem`; any object with the members of
        :class:`~cutting.problem.QAOAProblem`.
    max_qubits : int
        Largest allowed fragment width (device qubits).
    max_overhead : float, optional
        Largest allowed sampling overhead ``16**cuts``.
    separator : iterable of graph nodes, optional
        Use this vertex separator instead of searching for one.

    Returns
    -------
    CutPlan

    Raises
    ------
    InvalidParameterError
        If ``problem`` is not a :class:`~cutting.problem.QAOAProblem` (the message names
        the missing members), has no vertex or a circuit that does not fit its graph
        (:func:`~cutting.circuits.problem_circuit`), ``max_qubits`` is not a positive
        integer, ``max_overhead`` is negative, or ``separator`` names a node not in the graph.
    NoSeparatorError
        If no separator found by :func:`find_separators` gives fragments that fit.
    FragmentTooWideError
        If the given separator leaves a fragment wider than ``max_qubits``.
    OverheadTooLargeError
        If ``16**cuts`` exceeds ``max_overhead``, or no layout found within it fits
        (the separator search then stops early, so a dense graph fails fast).
    CuttingError
        If the given separator needs interleaved cuts that ``cut_wires`` cannot allocate.

    Examples
    --------
    >>> from bbqmis.mis import MISProblem
    >>> from cutting.graphs import kd_clustered_graph
    >>> plan = cut_qaoa(MISProblem(kd_clustered_graph(2, 4, 1, 0.7, 0.5, seed=1)), 5)
    >>> plan.widths, plan.num_cuts, plan.num_subexperiments, plan.overhead
    ((5, 5), 1, 16, 16.0)
    """
    problem = check_problem(problem)
    max_qubits = check_positive_int(max_qubits, "max_qubits")
    if max_overhead is not None:
        max_overhead = check_nonnegative(max_overhead, "max_overhead")
    if separator is None:
        layout = _fewest_cut_layout(problem, max_qubits, max_overhead)
    else:
        layout = separator_layout(problem, separator, max_qubits)
    _check_overhead(layout.num_cuts, max_overhead)
    experiments = cut_experiments(problem, layout, pack_fragments(layout, max_qubits))
    return _assemble(problem, max_qubits, layout, experiments)
