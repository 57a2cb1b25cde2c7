import json

import networkx as nx
import numpy as np
import pytest
from qiskit.circuit import Parameter

import cutting
from bbqmis.mis.problem import MISProblem
from cutting import FragmentTooWideError, NoSeparatorError, OverheadTooLargeError, cut_qaoa


def test_numbers(plan9):
    assert plan9.separator == (4,)
    assert plan9.num_cuts == 1
    assert plan9.widths == (5, 5)
    assert len(plan9.coefficients) == 8
    assert plan9.num_subexperiments == 16
    assert plan9.kappa == 4 and plan9.overhead == 16
    assert np.allclose(np.abs(plan9.weights), 0.5)
    # the cut sends qubit 4's final wire to one fragment; every original qubit is measured once
    assert sorted(q for f in plan9.fragments for q in f.qubits) == list(range(9))
    assert plan9.qubit_map[4][0] in (0, 1)
    assert all(c.num_qubits <= 5 for cs in plan9.subexperiments.values() for c in cs)
    assert all(set(c.parameters) <= set(plan9.parameters) for cs in plan9.subexperiments.values() for c in cs)
    assert all(isinstance(p, Parameter) for p in plan9.parameters)
    data = json.loads(json.dumps(plan9.to_json()))
    assert data["num_cuts"] == 1 and data["num_subexperiments"] == 16 and data["overhead"] == 16
    assert "2 fragments of widths [5, 5]" in plan9.summary()


def test_two_cuts():
    plan = cut_qaoa(MISProblem(cutting.kd_clustered_graph(3, 3, 1, 0.7, 0.5, seed=1)), 5)
    assert plan.num_cuts == 2 and plan.overhead == 256
    assert len(plan.coefficients) == 64 and plan.num_subexperiments == 64 * len(plan.fragments)
    assert max(plan.widths) <= 5


def test_no_cut_when_it_fits_and_idle_qubits_merge():
    graph = nx.disjoint_union(nx.path_graph(3), nx.empty_graph(2))
    plan = cut_qaoa(MISProblem(graph), 5)
    assert plan.num_cuts == 0 and plan.widths == (5,) and plan.num_subexperiments == 1


def test_refusals(problem9):
    with pytest.raises(
        FragmentTooWideError,
        match=r"^a fragment needs 5 qubits \(4 vertices \+ 1 cut wires\), more than max_qubits=4$",
    ):
        cut_qaoa(problem9, 4, separator=[4])
    with pytest.raises(
        OverheadTooLargeError,
        match=r"^no layout with at most 0 wire cuts \(sampling overhead 16\*\*0 = 1, within "
        r"max_overhead=10\) fits max_qubits=5$",
    ):
        cut_qaoa(problem9, 5, max_overhead=10)
    with pytest.raises(
        NoSeparatorError,
        match=r"^no vertex separator splits the 9-vertex graph into fragments of at most 1 qubits "
        r"\(cut wires included\)$",
    ):
        cut_qaoa(problem9, 1)


def test_given_separator_gives_the_searched_plan(plan9, problem9):
    given = cut_qaoa(problem9, 5, separator=[4])
    assert given.separator == plan9.separator and given.fragments == plan9.fragments
    assert given.partition_labels == plan9.partition_labels
    assert given.coefficients == plan9.coefficients
    assert all(np.array_equal(given.twins[k], plan9.twins[k]) for k in plan9.twins)
    # the partition labels are the fragments': each fragment's width counts its labelled wires
    assert [given.partition_labels.count(f.label) for f in given.fragments] == list(given.widths)
