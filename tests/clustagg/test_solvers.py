import logging

import networkx as nx
import numpy as np
import pytest

from bbqmis.mis.classical import maximum_independent_set
from bbqmis.mis.problem import MISProblem
from clustagg.errors import InvalidParameterError
from clustagg.solvers import AnnealingSolver, ExactSolver, QAOASolver, get_solver, solve


def small_problem():
    graph = nx.cycle_graph(6)
    graph.add_edge(0, 3)
    weights = np.array([1.0, 0.5, 0.9, 0.2, 0.7, 0.6])
    return MISProblem(graph, weights, penalty=6)


def test_get_solver_by_name_callable_and_bad_value():
    assert isinstance(get_solver("anneal", num_reads=3), AnnealingSolver)
    assert isinstance(get_solver("exact"), ExactSolver)

    def custom(problem, *, seed=0):
        return np.zeros(problem.num_nodes)

    assert get_solver(custom) is custom
    with pytest.raises(
        InvalidParameterError,
        match="solver must be one of 'anneal', 'exact', 'qaoa' or a callable; got 'dwave'",
    ):
        get_solver("dwave")
    with pytest.raises(
        InvalidParameterError, match=r"solver options \['shots'\] apply to named solvers only"
    ):
        get_solver(custom, shots=3)
    with pytest.raises(InvalidParameterError, match="num_reads must be a positive integer, got 0"):
        AnnealingSolver(num_reads=0)


@pytest.mark.parametrize("solver", [ExactSolver(), AnnealingSolver(num_reads=10)], ids=["exact", "anneal"])
def test_solvers_reach_the_optimum(solver):
    problem = small_problem()
    best = problem.to_bits(maximum_independent_set(problem.graph, problem.weights))
    np.testing.assert_array_equal(solve(problem, solver, seed=1), best)


def test_solve_repairs_whatever_the_solver_returns():
    problem = small_problem()
    bits = solve(problem, lambda problem, seed: np.ones(problem.num_nodes), seed=0)
    assert problem.is_maximal(bits)
    with pytest.raises(
        InvalidParameterError, match=r"solver must return bits of shape \(6,\) or \(k, 6\); got \(1, 3\)"
    ):
        solve(problem, lambda problem, seed: np.ones(3))


def test_qaoa_solver_samples_on_a_backend_object(statevector_backend):
    problem = small_problem()
    solver = QAOASolver(statevector_backend, shots=256)
    best = problem.to_bits(maximum_independent_set(problem.graph, problem.weights))
    np.testing.assert_array_equal(solve(problem, solver, seed=3), best)
    assert solver.fallbacks == 0


def test_qaoa_solver_falls_back_to_annealing_when_too_wide(statevector_backend, caplog):
    problem = small_problem()
    solver = QAOASolver(statevector_backend, max_qubits=4, cut=False)
    with caplog.at_level(logging.WARNING, logger="clustagg.solvers"):
        bits = solve(problem, solver, seed=0)
    assert solver.fallbacks == 1
    assert "6 candidates does not fit 4 qubits" in caplog.text
    assert problem.is_maximal(bits)


def test_qaoa_solver_takes_a_backend_spec():
    problem = small_problem()
    best = problem.to_bits(maximum_independent_set(problem.graph, problem.weights))
    np.testing.assert_array_equal(solve(problem, QAOASolver("aer", shots=256), seed=2), best)
