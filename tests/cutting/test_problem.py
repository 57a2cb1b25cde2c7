"""Cutting takes any QAOAProblem: a weighted Ising problem that is no MISProblem is cut exactly."""

import subprocess
import sys
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from qiskit.circuit import Parameter
from qiskit.quantum_info import Statevector

import cutting
from backends.utils.errors import InvalidParameterError
from bbqmis.mis import MISProblem, qaoa
from cutting.problem import MEMBERS, QAOAProblem, check_problem

from .conftest import exact_counts


class WeightedIsing:
    """A weighted Ising problem on a graph with string labels: its own fields, couplings and circuit."""

    def __init__(self, graph, seed):
        rng = np.random.default_rng(seed)
        self.graph = graph
        self.nodes = list(graph)
        index = {v: i for i, v in enumerate(self.nodes)}
        self.edges = np.array(sorted(sorted((index[u], index[v])) for u, v in graph.edges), dtype=np.int64)
        self.h = rng.normal(size=len(self.nodes))
        self.couplings = rng.normal(size=len(self.edges))
        self.offset = 0.75

    @property
    def num_nodes(self):
        return len(self.nodes)

    def ising(self):
        n = self.num_nodes
        J = sp.csr_array((self.couplings, (self.edges[:, 0], self.edges[:, 1])), shape=(n, n))
        return self.h, J, self.offset

    def qaoa_circuit(self, *, measure=True):
        return qaoa.circuit(self.ising(), measure=measure)


class Without:
    """A WeightedIsing that lacks one member of QAOAProblem."""

    def __init__(self, problem, missing):
        self._problem, self._missing = problem, missing

    def __getattr__(self, name):
        if name == self._missing:
            raise AttributeError(name)
        return getattr(self._problem, name)


@pytest.fixture(scope="module")
def ising():
    """7 vertices named a..g: two triangles joined through vertex d, which a 4-qubit device must cut."""
    graph = nx.relabel_nodes(nx.barbell_graph(3, 1), dict(zip(range(7), "abcdefg", strict=True)))
    return WeightedIsing(graph, seed=5)


@pytest.fixture(scope="module")
def ising_plan(ising):
    return cutting.cut_qaoa(ising, 4)


ANGLES = SimpleNamespace(gamma=0.37, beta=-0.61)


def statevector(problem):
    bound = problem.qaoa_circuit(measure=False).assign_parameters(
        {"gamma": ANGLES.gamma, "beta": ANGLES.beta}
    )
    return Statevector(bound).probabilities()


def test_a_weighted_ising_problem_is_a_qaoa_problem_and_is_cut(ising, ising_plan):
    assert isinstance(ising, QAOAProblem) and not isinstance(ising, MISProblem)
    assert ising_plan.problem is ising and ising_plan.num_cuts == 1
    assert [ising.nodes[q] for q in ising_plan.separator] == ["d"] and max(ising_plan.widths) <= 4


def test_its_exact_cut_energy_and_distribution_equal_the_uncut_statevector(ising, ising_plan):
    counts = {
        label: [exact_counts(ising_plan, ANGLES, circuit) for circuit in circuits]
        for label, circuits in ising_plan.subexperiments.items()
    }
    results = cutting.collect(ising_plan, counts)
    probabilities = statevector(ising)
    k = np.arange(probabilities.size)
    z = 1 - 2 * ((k[:, None] >> np.arange(ising.num_nodes)) & 1)
    h, J, offset = ising.ising()
    exact = probabilities @ (offset + z @ h + np.einsum("ki,ij,kj->k", z, J.toarray(), z))
    assert cutting.energy(ising_plan, results).value == pytest.approx(exact, abs=1e-9)
    assert np.abs(cutting.quasi_distribution(ising_plan, results) - probabilities).max() < 1e-12


def test_its_sampled_cut_energy_is_within_three_standard_errors(ising, ising_plan):
    h, J, offset = ising.ising()
    exact = qaoa.expectation((h, J, offset), ANGLES.gamma, ANGLES.beta)
    results = cutting.run_subexperiments(ising_plan, ANGLES, "aer", 4000, seed=3)  # angles as attributes
    estimate = cutting.energy(ising_plan, results)
    assert abs(estimate.value - exact) < 3 * estimate.standard_error


@pytest.mark.parametrize("missing", MEMBERS)
def test_an_object_missing_a_member_is_refused_by_name(ising, missing):
    partial = Without(ising, missing)
    assert not isinstance(partial, QAOAProblem)
    with pytest.raises(InvalidParameterError) as info:
        cutting.cut_qaoa(partial, 4)
    assert str(info.value) == (
        f"problem must be a QAOAProblem such as MISProblem(graph), got Without, which has no {missing}"
    )


def test_members_are_those_of_the_protocol():
    assert MEMBERS == ("graph", "nodes", "edges", "num_nodes", "ising", "qaoa_circuit")


def test_check_problem_returns_the_problem_and_refuses_an_empty_one(ising):
    assert check_problem(ising) is ising
    with pytest.raises(InvalidParameterError) as info:
        check_problem(MISProblem(nx.Graph()))
    assert str(info.value) == "problem must have at least one vertex, got an empty graph"


class Rewired(WeightedIsing):
    """A problem whose circuit does not fit its graph, as ``change`` makes it."""

    def __init__(self, graph, change):
        super().__init__(graph, seed=1)
        self.change = change

    def qaoa_circuit(self, *, measure=True):
        circuit = super().qaoa_circuit(measure=measure)
        self.change(circuit)
        return circuit


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda c: c.rz(Parameter("delta"), 0),
            "problem.qaoa_circuit() must have only the parameters gamma and beta, got also ['delta']",
        ),
        (
            lambda c: c.cx(0, 1),
            "problem.qaoa_circuit() may act on several qubits only with RZZ gates on "
            "edges; got cx on qubits [0, 1]",
        ),
        (
            lambda c: c.rzz(0.3, 0, 5),
            "problem.qaoa_circuit() may act on several qubits only with RZZ gates "
            "on edges; got rzz on qubits [0, 5]",
        ),
    ],
)
def test_a_circuit_that_does_not_fit_the_graph_is_refused(change, message):
    with pytest.raises(InvalidParameterError) as info:
        cutting.cut_qaoa(Rewired(nx.path_graph(6), change), 4)
    assert str(info.value) == message


def test_a_circuit_of_another_width_is_refused():
    problem = WeightedIsing(nx.path_graph(6), seed=1)
    problem.qaoa_circuit = lambda *, measure=True: qaoa.circuit(MISProblem(nx.path_graph(5)), measure=measure)
    with pytest.raises(InvalidParameterError) as info:
        cutting.cut_qaoa(problem, 4)
    assert str(info.value) == "problem.qaoa_circuit() must have one qubit per vertex (6), got 5 qubits"


def test_importing_cutting_loads_nothing_of_bbqmis():
    code = "import sys, cutting; print(sorted(m for m in sys.modules if m.split('.')[0] == 'bbqmis'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "[]", done.stderr
