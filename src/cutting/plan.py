"""Wire-cut plans for the p = 1 QAOA circuit of an MIS problem.

A separator ``S`` splits the graph into components. In the p = 1 circuit every ``RZZ``
gate commutes with every other, so the gates can be grouped by fragment: the gates
inside component ``c`` and those between ``c`` and a separator vertex form fragment ``c``.
A separator qubit adjacent to ``m`` fragments visits them in order and is cut ``m - 1``
times, once between consecutive visits; each visit is a wire segment of that fragment.
The widths therefore count the component's qubits plus one qubit per visiting segment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby

import numpy as np
from qiskit.circuit import Parameter, QuantumCircuit
from qiskit.quantum_info import PauliList
from qiskit_addon_cutting import (
    cut_wires,
    expand_observables,
    generate_cutting_experiments,
    partition_problem,
)
from qiskit_addon_cutting.instructions import CutWire

from backends.errors import InvalidParameterError
from backends.validation import check_nonnegative, check_positive_int
from bbqmis.mis import qaoa
from bbqmis.mis.problem import MISProblem

from .errors import CuttingError, FragmentTooWideError, NoSeparatorError, OverheadTooLargeError
from .separators import Separation, _components, find_separators

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
    """

    label: int
    qubits: tuple[int, ...]
    width: int


@dataclass(frozen=True, eq=False)
class CutPlan:
    """Wire cuts of the p = 1 QAOA circuit and the subexperiments they need.

    Build it with :func:`cut_qaoa`. The subexperiments carry the unbound ``(gamma, beta)``
    parameters of :func:`bbqmis.qaoa.circuit` and are bound per run.

    Attributes
    ----------
    problem : MISProblem
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
    """

    problem: MISProblem
    max_qubits: int
    separator: tuple[int, ...]
    num_cuts: int
    fragments: tuple[Fragment, ...]
    circuit: QuantumCircuit = field(repr=False)
    cut_circuit: QuantumCircuit = field(repr=False)
    partition_labels: tuple[int, ...] = field(repr=False)
    parameters: tuple[Parameter, Parameter] = field(repr=False)
    coefficients: list = field(repr=False)
    subexperiments: dict[int, list[QuantumCircuit]] = field(repr=False)
    twins: dict[int, np.ndarray] = field(repr=False)

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
    def weights(self) -> np.ndarray:
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

    def to_json(self) -> dict:
        """Plain-dict summary (no circuits): the numbers of :meth:`summary`."""
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
        """Describe the plan in a few human-readable lines."""
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


@dataclass
class _Layout:
    """Where the gates of a separation go, before any circuit is built."""

    components: list[list[int]]  # qubits per fragment id (separator-only fragments are empty)
    segments: dict[int, list[int]]  # separator qubit -> fragment ids it visits, increasing
    edge_fragment: dict[frozenset, int]  # separator-separator edge -> fragment id

    @property
    def num_cuts(self) -> int:
        return sum(len(v) - 1 for v in self.segments.values())

    def widths(self) -> list[int]:
        widths = [len(c) for c in self.components]
        for fragments in self.segments.values():
            for f in fragments:
                widths[f] += 1
        return widths


def _layout(problem: MISProblem, separation: Separation) -> _Layout:
    index = {v: i for i, v in enumerate(problem.nodes)}
    components = [sorted(index[v] for v in c) for c in separation.components]
    home = {q: f for f, c in enumerate(components) for q in c}
    separator = sorted(index[v] for v in separation.separator)
    segments = {s: set() for s in separator}
    pending = []
    for u, v in problem.edges.tolist():
        if u in segments and v in segments:
            pending.append((u, v))
        elif u in segments or v in segments:
            s, other = (u, v) if u in segments else (v, u)
            segments[s].add(home[other])
    edge_fragment = {}
    while pending:
        placed = []
        for s, t in pending:
            common = segments[s] & segments[t]
            if common or (segments[s] and segments[t]):
                f = min(common) if common else min(segments[t])
            elif segments[s] or segments[t]:
                f = min(segments[s] or segments[t])
            else:
                continue
            segments[s].add(f)
            segments[t].add(f)
            edge_fragment[frozenset((s, t))] = f
            placed.append((s, t))
        if not placed:  # separator vertices touching no component: a fragment of their own
            segments[pending[0][0]].add(len(components))
            components.append([])
        pending = [e for e in pending if e not in placed]
    for s in separator:
        if not segments[s]:
            segments[s].add(len(components))
            components.append([])
    return _Layout(components, {s: sorted(f) for s, f in segments.items()}, edge_fragment)


def _search(problem: MISProblem, max_qubits: int) -> tuple[Separation, _Layout]:
    """Fewest-cut separation over component bounds ``max_qubits, max_qubits - 1, ...`` whose fragments fit.

    The descent stops once the separator has more vertices than the best plan has cuts.
    """
    best = None
    for max_component in range(max_qubits, 0, -1):
        separation = find_separators(problem.graph, max_component)
        if best is not None and len(separation.separator) > best[1].num_cuts:
            break
        layout = _layout(problem, separation)
        widths = layout.widths()
        if max(widths, default=0) <= max_qubits and (best is None or layout.num_cuts < best[1].num_cuts):
            best = (separation, layout)
    if best is not None:
        return best
    raise NoSeparatorError(
        f"no vertex separator splits the {problem.num_nodes}-vertex graph into fragments of at most "
        f"{max_qubits} qubits (cut wires included)"
    )


def _labels(layout: _Layout, max_qubits: int) -> list[int]:
    """Partition label of every fragment id: cut-free fragments are packed first-fit decreasing."""
    widths = layout.widths()
    touched = {f for fragments in layout.segments.values() for f in fragments}
    label = {f: i for i, f in enumerate(sorted(touched))}
    room = [max_qubits - widths[f] for f in sorted(touched)]
    for f in sorted(set(range(len(widths))) - touched, key=lambda f: (-widths[f], f)):
        fit = next((i for i, r in enumerate(room) if r >= widths[f]), None)
        if fit is None:
            fit = len(room)
            room.append(max_qubits)
        room[fit] -= widths[f]
        label[f] = fit
    return [label[f] for f in range(len(widths))]


def _cut_circuit(problem: MISProblem, layout: _Layout) -> tuple[QuantumCircuit, tuple[Parameter, Parameter]]:
    """Build the p = 1 circuit with RZZ gates grouped by fragment and a CutWire between visits."""
    base, parameters = qaoa.circuit(problem, measure=False)
    home = {q: f for f, c in enumerate(layout.components) for q in c}
    head, tail = [], []
    groups = [[] for _ in layout.components]
    for instruction in base.data:
        if instruction.operation.name == "rzz":
            u, v = (base.find_bit(q).index for q in instruction.qubits)
            if u in home or v in home:
                groups[home[u] if u in home else home[v]].append(instruction)
            else:
                groups[layout.edge_fragment[frozenset((u, v))]].append(instruction)
        else:
            (tail if instruction.operation.name == "rx" else head).append(instruction)
    circuit = base.copy_empty_like()
    for instruction in head:
        circuit.append(instruction)
    cut_order = []
    for f, group in enumerate(groups):
        for s, fragments in layout.segments.items():
            if f in fragments[1:]:
                circuit.append(CutWire(), [s])
                cut_order.append(s)
        for instruction in group:
            circuit.append(instruction)
    for instruction in tail:
        circuit.append(instruction)
    runs = [s for s, _ in groupby(cut_order)]
    if len(runs) != len(set(runs)):
        # qiskit-addon-cutting 0.10's cut_wires counts a qubit's cuts only within one run of CutWires.
        raise CuttingError(
            "this separator needs interleaved cuts on two separator qubits, which cut_wires cannot "
            "allocate; pass a different separator"
        )
    return circuit, parameters


def _twins(circuits: list[QuantumCircuit]) -> np.ndarray:
    """Index of the first identical circuit, for every circuit."""
    first: dict = {}
    out = []
    for i, circuit in enumerate(circuits):
        key = tuple(
            (
                instruction.operation.name,
                tuple(map(str, instruction.operation.params)),
                tuple(circuit.find_bit(q).index for q in instruction.qubits),
                tuple(circuit.find_bit(c).index for c in instruction.clbits),
            )
            for instruction in circuit.data
        )
        out.append(first.setdefault(key, i))
    return np.array(out, dtype=np.int64)


def cut_qaoa(
    problem: MISProblem,
    max_qubits: int,
    *,
    max_overhead: float | None = None,
    separator=None,
) -> CutPlan:
    """Plan wire cuts so that every fragment of the p = 1 QAOA circuit fits ``max_qubits``.

    Steps: find a separator (unless given), group the ``RZZ`` gates by fragment and mark a
    ``CutWire`` on a separator qubit between visits to consecutive fragments, then call
    qiskit-addon-cutting's ``cut_wires`` (Move decomposition), ``expand_observables`` (an
    all-Z observable, so every original qubit is measured), ``partition_problem`` and
    ``generate_cutting_experiments(..., num_samples=np.inf)`` once, with unbound angles.
    Fragments without any cut (isolated components) are packed into other fragments with
    room, first-fit decreasing, through explicit partition labels.

    Without ``separator``, :func:`find_separators` is called with component bounds
    ``max_qubits, max_qubits - 1, ...`` and the plan with the fewest cuts whose fragments,
    cut wires included, fit is kept (the descent stops once the separator alone has more
    vertices than that plan has cuts). A graph whose components all fit needs no cut.

    Parameters
    ----------
    problem : MISProblem
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
        If ``max_qubits`` is not a positive integer, ``max_overhead`` is negative, or
        ``separator`` names a node not in the graph.
    NoSeparatorError
        If no separator found by :func:`find_separators` gives fragments that fit.
    FragmentTooWideError
        If the given separator leaves a fragment wider than ``max_qubits``.
    OverheadTooLargeError
        If ``16**cuts`` exceeds ``max_overhead``.
    CuttingError
        If the given separator needs interleaved cuts that ``cut_wires`` cannot allocate.

    Examples
    --------
    >>> from cutting.graphs import kd_clustered_graph
    >>> plan = cut_qaoa(MISProblem(kd_clustered_graph(2, 4, 1, 0.7, 0.5, seed=1)), 5)
    >>> plan.widths, plan.num_cuts, plan.num_subexperiments, plan.overhead
    ((5, 5), 1, 16, 16.0)
    """
    max_qubits = check_positive_int(max_qubits, "max_qubits")
    if max_overhead is not None:
        max_overhead = check_nonnegative(max_overhead, "max_overhead")
    if separator is None:
        separation, layout = _search(problem, max_qubits)
    else:
        separator = frozenset(separator)
        missing = [v for v in separator if v not in problem.graph]
        if missing:
            raise InvalidParameterError(f"separator node {missing[0]!r} is not in the graph")
        separation = Separation(separator, _components(problem.graph, set(separator)))
        layout = _layout(problem, separation)
        widths = layout.widths()
        f = int(np.argmax(widths))
        if widths[f] > max_qubits:
            raise FragmentTooWideError(
                f"a fragment needs {widths[f]} qubits ({len(layout.components[f])} vertices + "
                f"{widths[f] - len(layout.components[f])} cut wires), more than max_qubits={max_qubits}"
            )
    overhead = 16.0**layout.num_cuts
    if max_overhead is not None and overhead > max_overhead:
        raise OverheadTooLargeError(
            f"{layout.num_cuts} wire cuts have sampling overhead 16**{layout.num_cuts} = {overhead:g}, "
            f"more than max_overhead={max_overhead:g}"
        )

    circuit, parameters = _cut_circuit(problem, layout)
    cut = cut_wires(circuit)
    fragment_label = _labels(layout, max_qubits)
    home = {q: f for f, c in enumerate(layout.components) for q in c}
    labels = [None] * cut.num_qubits
    final = {}
    for q, qubit in enumerate(circuit.qubits):
        final[cut.find_bit(qubit).index] = q
        segments = layout.segments.get(q, [home.get(q)])
        start = cut.find_bit(qubit).index - len(segments) + 1
        for k, f in enumerate(segments):
            labels[start + k] = fragment_label[f]
    observable = expand_observables(PauliList(["Z" * circuit.num_qubits]), circuit, cut)
    partitioned = partition_problem(cut, labels, observables=observable)
    subexperiments, coefficients = generate_cutting_experiments(
        partitioned.subcircuits, partitioned.subobservables, num_samples=np.inf
    )
    fragments = []
    for label in sorted(partitioned.subcircuits):
        wires = [i for i, lab in enumerate(labels) if lab == label]
        measured = np.flatnonzero(partitioned.subobservables[label][0].z)
        qubits = tuple(final[wires[i]] for i in measured)
        fragments.append(Fragment(int(label), qubits, partitioned.subcircuits[label].num_qubits))
    return CutPlan(
        problem=problem,
        max_qubits=max_qubits,
        separator=tuple(sorted(layout.segments)),
        num_cuts=layout.num_cuts,
        fragments=tuple(fragments),
        circuit=circuit,
        cut_circuit=cut,
        partition_labels=tuple(labels),
        parameters=parameters,
        coefficients=coefficients,
        subexperiments={label: subexperiments[label] for label in sorted(subexperiments)},
        twins={label: _twins(subexperiments[label]) for label in sorted(subexperiments)},
    )
