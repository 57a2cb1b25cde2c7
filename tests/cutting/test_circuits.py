import re
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest
from qiskit.circuit import QuantumCircuit
from qiskit.quantum_info import Statevector
from qiskit_addon_cutting import cut_wires

import cutting
from bbqmis import qaoa
from bbqmis.mis.problem import MISProblem
from cutting import CuttingError
from cutting.circuits import cut_experiments, grouped_circuit, problem_circuit, twin_indices, wire_labels
from cutting.layout import fewest_cut_layout, pack_fragments, separator_layout


@pytest.fixture(scope="module")
def two_cuts():
    """Three clusters of 3 joined by 2 separator qubits: two cuts at width 5."""
    problem = MISProblem(cutting.kd_clustered_graph(3, 3, 1, 0.7, 0.5, seed=1))
    layout = fewest_cut_layout(problem, 5)
    assert layout.num_cuts == 2
    return problem, layout


def without_cut_markers(circuit):
    out = circuit.copy_empty_like()
    for instruction in circuit.data:
        if instruction.operation.name != "cut_wire":
            out.append(instruction)
    return out


def test_grouped_circuit_is_the_qaoa_circuit_with_markers(two_cuts):
    problem, layout = two_cuts
    circuit, (gamma, beta) = grouped_circuit(problem, layout)
    base = qaoa.circuit(problem, measure=False)
    markers = [i for i in circuit.data if i.operation.name == "cut_wire"]
    assert len(markers) == layout.num_cuts
    cut_qubits = [circuit.find_bit(i.qubits[0]).index for i in markers]
    assert sorted(cut_qubits) == sorted(s for s, fs in layout.segments.items() for _ in fs[1:])
    # same gates in another order: the RZZ gates commute, so the state is the same
    assert sorted(i.operation.name for i in without_cut_markers(circuit).data) == sorted(
        i.operation.name for i in base.data
    )
    state = Statevector(without_cut_markers(circuit).assign_parameters({gamma: 0.4, beta: 0.3}))
    expected = Statevector(base.assign_parameters({"gamma": 0.4, "beta": 0.3}))
    assert state.equiv(expected)


def test_rzz_gates_follow_their_fragment(two_cuts):
    problem, layout = two_cuts
    circuit, _ = grouped_circuit(problem, layout)
    home = layout.home
    fragments = []
    for instruction in circuit.data:
        if instruction.operation.name == "rzz":
            u, v = (circuit.find_bit(q).index for q in instruction.qubits)
            inside = [home[q] for q in (u, v) if q in home]
            fragments.append(inside[0] if inside else layout.edge_fragment[frozenset((u, v))])
    assert fragments == sorted(fragments)  # grouped, fragment after fragment


def test_interleaved_cuts_are_refused():
    # qubit 4 visits fragments 0, 1, 3 and qubit 5 visits 0, 2: cuts on 4, 5, then 4 again
    graph = nx.Graph([(4, 0), (4, 1), (4, 3), (5, 0), (5, 2)])
    problem = MISProblem(_ordered(graph))
    layout = separator_layout(problem, [4, 5], 5)
    assert layout.segments == {4: [0, 1, 3], 5: [0, 2]}
    message = (
        "this separator needs interleaved cuts on two separator qubits, which cut_wires cannot "
        "allocate; pass a different separator"
    )
    with pytest.raises(CuttingError, match=f"^{re.escape(message)}$"):
        grouped_circuit(problem, layout)
    with pytest.raises(CuttingError, match="interleaved cuts"):
        cutting.cut_qaoa(problem, 5, separator=[4, 5])


def _ordered(graph):
    """The same graph with its nodes in increasing order (qubit q is node q)."""
    out = nx.Graph()
    out.add_nodes_from(sorted(graph))
    out.add_edges_from(graph.edges)
    return out


def test_wire_labels(two_cuts):
    problem, layout = two_cuts
    circuit, _ = grouped_circuit(problem, layout)
    cut = cut_wires(circuit)
    fragment_label = list(range(len(layout.components)))
    labels, final = wire_labels(circuit, cut, layout, fragment_label)
    assert len(labels) == cut.num_qubits == problem.num_nodes + layout.num_cuts
    assert sorted(final.values()) == list(range(problem.num_nodes))
    # each fragment gets as many wires as its width, cut ancillas included
    assert np.bincount(labels).tolist() == layout.widths()
    for wire, q in final.items():
        segments = layout.segments.get(q, [layout.home.get(q)])
        assert labels[wire] == segments[-1]  # the last segment holds the final value


def test_twin_indices():
    a = QuantumCircuit(2, 1)
    a.h(0)
    b = a.copy()
    b.measure(1, 0)
    c = a.copy()
    c.measure(0, 0)  # same gates as b on another qubit: not a twin
    twins = twin_indices([a, b, c, b.copy(), a.copy(), c])
    assert twins.tolist() == [0, 1, 2, 1, 0, 2]
    assert twins.dtype == np.int64


def test_cut_experiments(two_cuts):
    problem, layout = two_cuts
    experiments = cut_experiments(problem, layout, pack_fragments(layout, 5))
    k = layout.num_cuts
    assert len(experiments.coefficients) == 8**k
    assert np.allclose(np.abs([a for a, _ in experiments.coefficients]), 0.5**k)
    measured = sorted(q for qs in experiments.fragment_qubits.values() for q in qs)
    assert measured == list(range(problem.num_nodes))  # every qubit measured once
    assert list(experiments.subexperiments) == list(experiments.fragment_qubits) == sorted(experiments.twins)
    for label, circuits in experiments.subexperiments.items():
        assert len(circuits) == 8**k == experiments.twins[label].size
        assert {c.num_qubits for c in circuits} == {experiments.fragment_widths[label]}
        assert experiments.fragment_widths[label] <= 5
        for circuit in circuits:
            register = next(r for r in circuit.cregs if r.name == "observable_measurements")
            assert register.size == len(experiments.fragment_qubits[label])
            assert set(circuit.parameters) <= set(experiments.parameters)
        twins = experiments.twins[label]
        for i, j in enumerate(twins):
            assert j <= i and circuits[j] == circuits[i]
    assert len(experiments.partition_labels) == experiments.cut_circuit.num_qubits


def test_a_circuit_without_gamma_gets_a_gamma_parameter_that_binds_nothing():
    graph = nx.empty_graph(2)
    problem = SimpleNamespace(
        graph=graph,
        nodes=[0, 1],
        edges=np.zeros((0, 2), dtype=np.int64),
        num_nodes=2,
        ising=lambda: (np.zeros(2), np.zeros((2, 2)), 0.0),
        qaoa_circuit=lambda *, measure=True: qaoa.circuit(
            (np.zeros(2), np.zeros((2, 2)), 0.0), measure=measure
        ),
    )
    circuit, (gamma, beta) = problem_circuit(problem)
    assert (gamma.name, beta.name) == ("gamma", "beta")
    assert [p.name for p in circuit.parameters] == ["beta"]
    plan = cutting.cut_qaoa(problem, 2)
    assert plan.num_cuts == 0 and plan.parameters[0].name == "gamma"
