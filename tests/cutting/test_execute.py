from collections import Counter

import networkx as nx
import numpy as np
import pytest
from qiskit.circuit import ClassicalRegister, QuantumCircuit, QuantumRegister

import cutting
from backends import get_backend
from bbqmis.mis.errors import InvalidParameterError
from bbqmis.mis.problem import MISProblem
from bbqmis.mis.qaoa import QAOAAngles
from cutting.execute import register_values, resolve_backend

from .conftest import exact_distribution


def test_register_values_by_hand():
    # clbits 0-1 are qpd_measurements, clbits 2-4 observable_measurements; clbit k is key[-1 - k]
    circuit = QuantumCircuit(
        QuantumRegister(1),
        ClassicalRegister(2, "qpd_measurements"),
        ClassicalRegister(3, "observable_measurements"),
    )
    observable, qpd = register_values(circuit, ["10110", "00001", "11100"])
    assert observable.tolist() == [0b101, 0b000, 0b111]
    assert qpd.tolist() == [0b10, 0b01, 0b00]
    assert observable.dtype == qpd.dtype == np.int64


def test_register_values_without_qpd_register():
    circuit = QuantumCircuit(QuantumRegister(1), ClassicalRegister(2, "observable_measurements"))
    observable, qpd = register_values(circuit, ["10", "01"])
    assert observable.tolist() == [2, 1] and qpd.tolist() == [0, 0]


def test_register_values_decode_a_run(aer):
    # X on qubits 0 and 2; qubit 0 -> observable bit 0, qubit 1 -> observable bit 1, qubit 2 -> qpd bit 0
    observable_register = ClassicalRegister(2, "observable_measurements")
    qpd_register = ClassicalRegister(1, "qpd_measurements")
    circuit = QuantumCircuit(QuantumRegister(3), qpd_register, observable_register)
    circuit.x([0, 2])
    circuit.measure(0, observable_register[0])
    circuit.measure(1, observable_register[1])
    circuit.measure(2, qpd_register[0])
    (counts,) = aer.run([circuit], shots=20, seed=1)
    assert sum(counts.values()) == 20
    observable, qpd = register_values(circuit, list(counts))
    assert observable.tolist() == [1] and qpd.tolist() == [1]


def test_resolve_backend():
    first = resolve_backend("aer")
    assert resolve_backend("aer") is first
    own = get_backend("aer")
    assert resolve_backend(own) is own and own is not first


def test_collect_hand_made_counts(plan9):
    # every subexperiment: outcome all-zeros 3 times, all-ones once
    counts = {}
    for label, circuits in plan9.subexperiments.items():
        counts[label] = [{"0" * c.num_clbits: 3, "1" * c.num_clbits: 1} for c in circuits]
    results = cutting.collect(plan9, counts)
    assert results.counts is counts
    for fragment in plan9.fragments:
        shots = results.fragments[fragment.label]
        circuits = plan9.subexperiments[fragment.label]
        assert shots.experiment.tolist() == [i for i in range(len(circuits)) for _ in range(2)]
        width = len(fragment.qubits)
        assert shots.outcome.tolist() == [0, 2**width - 1] * len(circuits)
        cut_bits = [next((r.size for r in c.cregs if r.name == "qpd_measurements"), 0) for c in circuits]
        assert shots.sign.tolist() == [v for k in cut_bits for v in (1.0, (-1.0) ** k)]
        assert shots.weight.tolist() == [0.75, 0.25] * len(circuits)
        assert shots.totals.tolist() == [4.0] * len(circuits)


def test_run_subexperiments_pools_identical_circuits(plan9, angles9, aer):
    results = cutting.run_subexperiments(plan9, angles9, aer, 300, seed=3)
    for label, twins in plan9.twins.items():
        tables = results.counts[label]
        assert len(tables) == len(plan9.subexperiments[label]) == twins.size
        for i, j in enumerate(twins):
            assert tables[i] == tables[j]  # one pooled table per distinct circuit
        multiplicity = np.bincount(twins)[twins]
        assert results.fragments[label].totals.tolist() == (300 * multiplicity).tolist()
    assert plan9.num_subexperiments > sum(len(set(t.tolist())) for t in plan9.twins.values())


def test_run_subexperiments_is_seeded_and_takes_angle_pairs(plan9, angles9):
    pair = (angles9.gamma, angles9.beta)
    first = cutting.run_subexperiments(plan9, angles9, "aer", 100, seed=7)
    assert first.counts == cutting.run_subexperiments(plan9, pair, "aer", 100, seed=7).counts
    assert first.counts != cutting.run_subexperiments(plan9, pair, "aer", 100, seed=8).counts
    with pytest.raises(InvalidParameterError, match=r"^shots must be a positive integer, got 0$"):
        cutting.run_subexperiments(plan9, pair, "aer", 0)


def test_uncut_plan_samples_the_qaoa_distribution(aer):
    # a plan without cuts runs the whole circuit once: its outcomes are the QAOA distribution
    problem = MISProblem(nx.disjoint_union(nx.path_graph(3), nx.empty_graph(2)))
    plan = cutting.cut_qaoa(problem, 5)
    assert plan.num_cuts == 0 and len(plan.fragments) == 1
    angles = QAOAAngles(gamma=0.7, beta=0.4, energy=0.0, evaluations=0, seconds=0.0)
    results = cutting.run_subexperiments(plan, angles, aer, 20_000, seed=5)
    (fragment,) = plan.fragments
    shots = results.fragments[fragment.label]
    index = sum(((shots.outcome >> b) & 1) << q for b, q in enumerate(fragment.qubits))
    sampled = np.bincount(index, weights=shots.weight, minlength=2**problem.num_nodes)
    exact = exact_distribution(problem, angles)
    assert sampled.sum() == pytest.approx(1.0)
    assert np.all(shots.sign == 1.0)
    assert 0.5 * np.abs(sampled - exact).sum() < 0.03
    assert sum(Counter(t).total() for t in results.counts[fragment.label]) == 20_000
