"""The cut circuit of a fragment layout and its subexperiments, built with qiskit-addon-cutting.

The problem's p = 1 circuit (:meth:`~cutting.problem.QAOAProblem.qaoa_circuit`) is rebuilt
with its ``RZZ`` gates grouped by fragment and a ``CutWire`` on a separator qubit between
visits to consecutive fragments. qiskit-addon-cutting then does the rest: ``cut_wires`` (Move decomposition),
``expand_observables`` (an all-Z observable, so that every original qubit is measured),
``partition_problem`` and ``generate_cutting_experiments(..., num_samples=np.inf)``, once,
with unbound angles.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from qiskit.circuit import CircuitInstruction, Parameter, QuantumCircuit
from qiskit.quantum_info import PauliList
from qiskit_addon_cutting import (
    PartitionedCuttingProblem,
    cut_wires,
    expand_observables,
    generate_cutting_experiments,
    partition_problem,
)
from qiskit_addon_cutting.instructions import CutWire
from qiskit_addon_cutting.qpd import WeightType

from backends.utils.errors import InvalidParameterError

from .errors import CuttingError
from .layout import FragmentLayout
from .problem import QAOAProblem

__all__ = [
    "CutExperiments",
    "problem_circuit",
    "grouped_circuit",
    "wire_labels",
    "twin_indices",
    "cut_experiments",
]


class CutExperiments(NamedTuple):
    """Everything qiskit-addon-cutting makes of a layout; the circuit half of a ``CutPlan``.

    Attributes
    ----------
    circuit : QuantumCircuit
        The uncut p = 1 circuit with ``RZZ`` gates grouped by fragment and ``CutWire`` markers.
    parameters : (Parameter, Parameter)
        ``(gamma, beta)``, unbound in every circuit.
    cut_circuit : QuantumCircuit
        ``cut_wires(circuit)``: each cut adds a qubit before the cut one.
    partition_labels : tuple of int
        Partition label of every qubit of ``cut_circuit``.
    fragment_qubits : dict of int to tuple of int
        Per label (increasing): the original qubits the partition measures, in the bit
        order of its ``observable_measurements`` register.
    fragment_widths : dict of int to int
        Per label: qubits of the partition's circuits, cut ancillas included.
    coefficients : list of (float, WeightType)
        ``8**K`` quasi-probability coefficients.
    subexperiments : dict of int to list of QuantumCircuit
        Per label: one circuit per coefficient, in coefficient order.
    twins : dict of int to ndarray of shape (8**K,) of int
        Per label: :func:`twin_indices` of its subexperiments.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting.layout import separator_layout
    >>> problem = MISProblem(nx.path_graph(5))
    >>> experiments = cut_experiments(problem, separator_layout(problem, [2], 3), [0, 1])
    >>> experiments.fragment_qubits, experiments.fragment_widths, len(experiments.coefficients)
    ({0: (0, 1), 1: (2, 3, 4)}, {0: 3, 1: 3}, 8)
    """

    circuit: QuantumCircuit
    parameters: tuple[Parameter, Parameter]
    cut_circuit: QuantumCircuit
    partition_labels: tuple[int, ...]
    fragment_qubits: dict[int, tuple[int, ...]]
    fragment_widths: dict[int, int]
    coefficients: list[tuple[float, WeightType]]
    subexperiments: dict[int, list[QuantumCircuit]]
    twins: dict[int, NDArray[np.int64]]


def problem_circuit(problem: QAOAProblem) -> tuple[QuantumCircuit, tuple[Parameter, Parameter]]:
    """The problem's p = 1 circuit without measurements, checked for what the layout assumes.

    Parameters
    ----------
    problem : QAOAProblem

    Returns
    -------
    circuit : QuantumCircuit
        ``problem.qaoa_circuit(measure=False)``.
    parameters : (Parameter, Parameter)
        ``(gamma, beta)``; one the circuit lacks (``gamma`` when no field or coupling is
        nonzero) is a new parameter of that name.

    Raises
    ------
    InvalidParameterError
        If the circuit does not have ``problem.num_nodes`` qubits, has a parameter other
        than ``gamma`` and ``beta``, or a gate on two or more qubits other than an ``RZZ``
        on an edge of ``problem.edges``.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> circuit, (gamma, beta) = problem_circuit(MISProblem(nx.path_graph(3)))
    >>> circuit.num_qubits, circuit.num_clbits, gamma.name, beta.name
    (3, 0, 'gamma', 'beta')
    """
    base = problem.qaoa_circuit(measure=False)
    if base.num_qubits != problem.num_nodes:
        raise InvalidParameterError(
            f"problem.qaoa_circuit() must have one qubit per vertex ({problem.num_nodes}), "
            f"got {base.num_qubits} qubits"
        )
    by_name = {parameter.name: parameter for parameter in base.parameters}
    extra = sorted(set(by_name) - {"gamma", "beta"})
    if extra:
        raise InvalidParameterError(
            f"problem.qaoa_circuit() must have only the parameters gamma and beta, got also {extra}"
        )
    edges = {frozenset(edge) for edge in problem.edges.tolist()}
    for instruction in base.data:
        qubits = frozenset(base.find_bit(q).index for q in instruction.qubits)
        name = instruction.operation.name
        if len(qubits) > 1 and (name != "rzz" or qubits not in edges):
            raise InvalidParameterError(
                f"problem.qaoa_circuit() may act on several qubits only with RZZ gates on edges; "
                f"got {name} on qubits {sorted(qubits)}"
            )
    gamma, beta = (by_name[name] if name in by_name else Parameter(name) for name in ("gamma", "beta"))
    return base, (gamma, beta)


def _group_gates(
    base: QuantumCircuit, layout: FragmentLayout
) -> tuple[list[CircuitInstruction], list[list[CircuitInstruction]], list[CircuitInstruction]]:
    """Split ``base``: gates before the ``RZZ`` layer, ``RZZ`` gates per fragment id, the mixer."""
    home = layout.home
    head: list[CircuitInstruction] = []
    tail: list[CircuitInstruction] = []
    groups: list[list[CircuitInstruction]] = [[] for _ in layout.components]
    for instruction in base.data:
        if instruction.operation.name == "rzz":
            u, v = (base.find_bit(q).index for q in instruction.qubits)
            if u in home or v in home:
                groups[home[u] if u in home else home[v]].append(instruction)
            else:
                groups[layout.edge_fragment[frozenset((u, v))]].append(instruction)
        else:
            (tail if instruction.operation.name == "rx" else head).append(instruction)
    return head, groups, tail


def grouped_circuit(
    problem: QAOAProblem, layout: FragmentLayout
) -> tuple[QuantumCircuit, tuple[Parameter, Parameter]]:
    """The p = 1 circuit with ``RZZ`` gates grouped by fragment and a ``CutWire`` between visits.

    Parameters
    ----------
    problem : QAOAProblem
    layout : FragmentLayout
        From :mod:`~cutting.layout`, for the same problem.

    Returns
    -------
    circuit : QuantumCircuit
        ``problem.num_nodes`` qubits, no measurements.
    parameters : (Parameter, Parameter)
        ``(gamma, beta)``.

    Raises
    ------
    InvalidParameterError
        If the problem's circuit is not a p = 1 QAOA circuit of its graph (:func:`problem_circuit`).
    CuttingError
        If the cuts on two separator qubits interleave: qiskit-addon-cutting 0.10's
        ``cut_wires`` counts a qubit's cuts only within one run of ``CutWire`` markers.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting.layout import separator_layout
    >>> problem = MISProblem(nx.path_graph(5))
    >>> circuit, (gamma, beta) = grouped_circuit(problem, separator_layout(problem, [2], 3))
    >>> circuit.count_ops()["rzz"], circuit.count_ops()["cut_wire"], gamma.name, beta.name
    (4, 1, 'gamma', 'beta')
    """
    base, parameters = problem_circuit(problem)
    head, groups, tail = _group_gates(base, layout)
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
        raise CuttingError(
            "this separator needs interleaved cuts on two separator qubits, which cut_wires cannot "
            "allocate; pass a different separator"
        )
    return circuit, parameters


def wire_labels(
    circuit: QuantumCircuit, cut: QuantumCircuit, layout: FragmentLayout, fragment_label: Sequence[int]
) -> tuple[list[int], dict[int, int]]:
    """Partition label of every wire of the cut circuit, and the final wire of every qubit.

    Parameters
    ----------
    circuit : QuantumCircuit
        From :func:`grouped_circuit`.
    cut : QuantumCircuit
        ``cut_wires(circuit)``: original qubit ``q`` with ``m`` segments becomes wires
        ``i - m + 1 .. i``, ``i`` its last segment.
    layout : FragmentLayout
    fragment_label : sequence of int
        Partition label of every fragment id (:func:`~cutting.layout.pack_fragments`).

    Returns
    -------
    labels : list of int
        One per qubit of ``cut``.
    final : dict of int to int
        Wire of ``cut`` holding an original qubit's last segment -> that qubit.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting.layout import separator_layout
    >>> problem = MISProblem(nx.path_graph(5))
    >>> layout = separator_layout(problem, [2], 3)
    >>> circuit, _ = grouped_circuit(problem, layout)
    >>> wire_labels(circuit, cut_wires(circuit), layout, [0, 1])  # wires 2 and 3 are qubit 2's segments
    ([0, 0, 0, 1, 1, 1], {0: 0, 1: 1, 3: 2, 4: 3, 5: 4})
    """
    home = layout.home
    by_wire: dict[int, int] = {}
    final: dict[int, int] = {}
    for q, qubit in enumerate(circuit.qubits):
        last = cut.find_bit(qubit).index
        final[last] = q
        segments = layout.segments[q] if q in layout.segments else [home[q]]
        for k, f in enumerate(segments):
            by_wire[last - len(segments) + 1 + k] = fragment_label[f]
    return [by_wire[i] for i in range(cut.num_qubits)], final


def _measured_qubits(
    partitioned: PartitionedCuttingProblem, labels: Sequence[int], final: dict[int, int]
) -> dict[int, tuple[int, ...]]:
    """Per partition label (increasing), the original qubits its observable measures, in bit order."""
    out = {}
    for label in sorted(partitioned.subcircuits):
        wires = [i for i, lab in enumerate(labels) if lab == label]
        measured = np.flatnonzero(partitioned.subobservables[label][0].z)
        out[int(label)] = tuple(final[wires[i]] for i in measured)
    return out


def twin_indices(circuits: Sequence[QuantumCircuit]) -> NDArray[np.int64]:
    """Index of the first identical circuit, for every circuit.

    Several terms of the Move decomposition share a circuit on one side of the cut;
    circuits are compared by their instructions, parameters and bit indices.

    Parameters
    ----------
    circuits : sequence of QuantumCircuit

    Returns
    -------
    ndarray of shape (len(circuits),) of int

    Examples
    --------
    >>> a, b = QuantumCircuit(1), QuantumCircuit(1)
    >>> _ = b.x(0)
    >>> twin_indices([a, b, b.copy(), a]).tolist()
    [0, 1, 1, 0]
    """
    first: dict[tuple[tuple[str, tuple[str, ...], tuple[int, ...], tuple[int, ...]], ...], int] = {}
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


def cut_experiments(
    problem: QAOAProblem, layout: FragmentLayout, fragment_label: Sequence[int]
) -> CutExperiments:
    """Cut the p = 1 circuit as ``layout`` says and generate every subexperiment.

    Parameters
    ----------
    problem : QAOAProblem
    layout : FragmentLayout
    fragment_label : sequence of int
        Partition label of every fragment id (:func:`~cutting.layout.pack_fragments`).

    Returns
    -------
    CutExperiments

    Raises
    ------
    InvalidParameterError, CuttingError
        As :func:`grouped_circuit`.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting.layout import separator_layout
    >>> problem = MISProblem(nx.path_graph(5))
    >>> experiments = cut_experiments(problem, separator_layout(problem, [2], 3), [0, 1])
    >>> [len(circuits) for circuits in experiments.subexperiments.values()]  # 8**1 per fragment
    [8, 8]
    >>> experiments.partition_labels
    (0, 0, 0, 1, 1, 1)
    """
    circuit, parameters = grouped_circuit(problem, layout)
    cut = cut_wires(circuit)
    labels, final = wire_labels(circuit, cut, layout, fragment_label)
    observable = expand_observables(PauliList(["Z" * circuit.num_qubits]), circuit, cut)
    partitioned = partition_problem(cut, labels, observables=observable)
    subexperiments, coefficients = generate_cutting_experiments(
        partitioned.subcircuits, partitioned.subobservables, num_samples=np.inf
    )
    order = sorted(subexperiments)
    return CutExperiments(
        circuit=circuit,
        parameters=parameters,
        cut_circuit=cut,
        partition_labels=tuple(labels),
        fragment_qubits=_measured_qubits(partitioned, labels, final),
        fragment_widths={int(k): c.num_qubits for k, c in sorted(partitioned.subcircuits.items())},
        coefficients=coefficients,
        subexperiments={label: subexperiments[label] for label in order},
        twins={label: twin_indices(subexperiments[label]) for label in order},
    )
