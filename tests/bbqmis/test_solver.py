"""The quantum MIS solver shared by every workload (bbqmis.solver)."""

import pickle
import re
import threading
from collections import Counter

import networkx as nx
import numpy as np
import pytest

import bbqmis.samples as samples_module
import bbqmis.solver as solver_module
from backends import record_timings
from bbqmis.mis.classical import maximum_independent_set
from bbqmis.mis.errors import InvalidParameterError
from bbqmis.mis.problem import MISProblem
from bbqmis.samples import annealing_reads
from bbqmis.solver import DEFAULT_MAX_QUBITS, QuantumMISSolver
from cutting import kd_clustered_graph


def is_maximum(problem, bits, size):
    """Rows of ``bits`` that are independent sets of ``size`` vertices (the maximum)."""
    return problem.is_independent(bits) & (bits.sum(-1) == size)


# -- sampling on aer -------------------------------------------------------------------
@pytest.mark.parametrize("graph", [nx.path_graph(5), nx.cycle_graph(6)], ids=["P5", "C6"])
def test_samples_have_shape_k_by_n_counts_sum_to_shots_most_frequent_first(graph):
    problem = MISProblem(graph)
    samples = QuantumMISSolver("aer", shots=300).sample(problem, seed=2)
    k = len(samples.counts)
    assert samples.bits.shape == (k, problem.num_nodes) and samples.bits.dtype == np.uint8
    assert samples.counts.dtype == np.int64
    assert int(samples.counts.sum()) == 300
    assert np.all(np.diff(samples.counts) <= 0)
    assert len({row.tobytes() for row in samples.bits}) == k  # distinct rows
    assert set(np.unique(samples.bits)) <= {0, 1}


def test_same_seed_same_samples():
    problem = MISProblem(nx.cycle_graph(5))
    solver = QuantumMISSolver("aer", shots=128)
    first, second = solver.sample(problem, seed=9), solver.sample(problem, seed=9)
    np.testing.assert_array_equal(first.bits, second.bits)
    np.testing.assert_array_equal(first.counts, second.counts)


@pytest.mark.parametrize("graph", [nx.path_graph(6), nx.cycle_graph(6)], ids=["P6", "C6"])
def test_qaoa_finds_maximum_independent_sets_more_often_than_uniform_random(graph, bitstrings):
    problem = MISProblem(graph)
    size = len(maximum_independent_set(graph))
    # Uniform random bitstrings hit a maximum independent set with this probability, exactly.
    uniform = is_maximum(problem, bitstrings(problem.num_nodes), size).mean()
    samples = QuantumMISSolver("aer", shots=1024).sample(problem, seed=5)
    hits = samples.counts[is_maximum(problem, samples.bits, size)].sum() / samples.counts.sum()
    assert hits > 2 * uniform
    # The most frequent set after repair is a maximum independent set.
    repaired = Counter()
    for row, count in zip(samples.repaired(problem, seed=0), samples.counts, strict=True):
        repaired[problem.to_nodes(row)] += int(count)
    best, _ = repaired.most_common(1)[0]
    assert len(best) == size and problem.is_independent(problem.to_bits(best))


def test_stats_count_circuits_shots_and_quantum_seconds_of_the_call():
    problem = MISProblem(nx.path_graph(4))
    solver = QuantumMISSolver("aer", shots=200)
    with record_timings() as records:
        samples = solver.sample(problem, seed=1)
    stats = samples.stats
    assert stats["calls"] == 1
    assert stats["circuits"] == sum(r.circuits for r in records) == 1
    assert stats["shots"] == 200 * stats["circuits"]
    assert stats["quantum_seconds"] == pytest.approx(sum(r.quantum_seconds for r in records))
    assert stats["quantum_seconds"] > 0
    assert stats["fallbacks"] == stats["cut_problems"] == 0
    assert stats["seconds"] >= stats["quantum_seconds"]


def test_solver_stats_total_every_call():
    problem = MISProblem(nx.path_graph(3))
    solver = QuantumMISSolver("aer", shots=50)
    calls = [solver.sample(problem, seed=s).stats for s in range(3)]
    for key in ("calls", "circuits", "shots", "quantum_seconds", "seconds"):
        assert solver.stats[key] == pytest.approx(sum(stats[key] for stats in calls))
    assert solver.stats["calls"] == 3 and solver.stats["shots"] == 150


def test_empty_problem_needs_no_circuit():
    samples = QuantumMISSolver("aer", shots=10).sample(MISProblem(nx.Graph()), seed=0)
    assert samples.bits.shape == (1, 0) and samples.counts.tolist() == [10]
    assert samples.stats["circuits"] == samples.stats["fallbacks"] == 0


def test_width_is_max_qubits_capped_by_the_device():
    solver = QuantumMISSolver("aer")
    device_qubits = solver.device().num_qubits
    assert solver.width() == min(DEFAULT_MAX_QUBITS, device_qubits)
    assert QuantumMISSolver("aer", max_qubits=3).width() == min(3, device_qubits)
    assert QuantumMISSolver("aer", max_qubits=10**6).width() == device_qubits


# -- wider than the device ---------------------------------------------------------------
def test_wide_problem_without_cutting_falls_back_to_annealing():
    problem = MISProblem(nx.cycle_graph(7))
    solver = QuantumMISSolver("aer", shots=64, max_qubits=4, cut=False, fallback_sweeps=50)
    samples = solver.sample(problem, seed=3)
    stats = samples.stats
    assert stats["fallbacks"] == 1
    assert stats["circuits"] == stats["shots"] == stats["quantum_seconds"] == stats["cut_problems"] == 0
    assert int(samples.counts.sum()) == 64
    assert samples.bits.shape[1] == 7
    assert all(problem.is_maximal(row) for row in samples.repaired(problem, seed=0))


def test_a_problem_far_wider_than_the_device_is_annealed_without_optimising_angles(monkeypatch):
    # A dense residual of a thousand vertices made the closed-form energy ask for 14 GiB
    # before the fallback, which needs no angles.
    def refuse(problem):
        raise AssertionError("angles optimised for a problem that no circuit runs")

    monkeypatch.setattr(solver_module.qaoa, "optimize", refuse)
    problem = MISProblem(nx.gnp_random_graph(200, 0.3, seed=1))  # more than (cuts + 1) x width
    samples = QuantumMISSolver("aer", shots=64, max_qubits=5, fallback_sweeps=20).sample(problem, seed=0)
    assert samples.stats["fallbacks"] == 1 and samples.stats["circuits"] == 0
    assert all(problem.is_maximal(row) for row in samples.repaired(problem, seed=0))


def test_the_fallback_takes_fewer_reads_when_they_would_exceed_the_annealing_work(monkeypatch):
    problem = MISProblem(nx.cycle_graph(40))
    size = problem.num_nodes + len(problem.edges)
    monkeypatch.setattr(samples_module, "ANNEALING_WORK", 20 * size * 7)  # 7 reads of 20 sweeps
    solver = QuantumMISSolver("aer", shots=64, max_qubits=4, cut=False, fallback_sweeps=20)
    samples = solver.sample(problem, seed=0)
    assert samples.stats["fallbacks"] == 1
    assert int(samples.counts.sum()) == annealing_reads(64, 20, size) == 7


def test_problem_without_a_small_separator_falls_back_even_with_cutting():
    problem = MISProblem(nx.complete_graph(6))  # every separator leaves a clique: no plan fits 3 qubits
    samples = QuantumMISSolver("aer", shots=32, max_qubits=3, fallback_sweeps=20).sample(problem, seed=0)
    assert samples.stats["fallbacks"] == 1 and samples.stats["cut_problems"] == 0
    assert samples.stats["circuits"] == 0


def test_cutting_with_no_allowed_cut_falls_back():
    graph = kd_clustered_graph(2, 4, 1, 0.5, 0.5, seed=0)
    solver = QuantumMISSolver("aer", shots=32, max_qubits=5, max_cut_overhead=1.0, fallback_sweeps=20)
    samples = solver.sample(MISProblem(graph), seed=0)
    assert samples.stats["fallbacks"] == 1 and samples.stats["cut_problems"] == 0


def test_clustered_problem_is_sampled_through_circuit_cutting():
    graph = kd_clustered_graph(2, 4, 1, 0.5, 0.5, seed=0)  # 9 vertices, one separator vertex
    problem = MISProblem(graph)
    samples = QuantumMISSolver("aer", shots=256, max_qubits=5).sample(problem, seed=1)
    stats = samples.stats
    assert stats["cut_problems"] == 1 and stats["fallbacks"] == 0
    assert stats["circuits"] > 1  # sub-experiments of the cut circuit
    assert stats["shots"] == 256 * stats["circuits"]
    assert stats["quantum_seconds"] > 0
    assert samples.bits.shape[1] == problem.num_nodes == 9
    assert int(samples.counts.sum()) == 256
    assert all(problem.is_maximal(row) for row in samples.repaired(problem, seed=0))


# -- sharing ------------------------------------------------------------------------------
def test_solver_pickles_and_the_clone_compares_equal():
    solver = QuantumMISSolver("aer", shots=64, max_qubits=7, cut=False, fallback_sweeps=30)
    solver.sample(MISProblem(nx.path_graph(3)), seed=0)
    clone = pickle.loads(pickle.dumps(solver))
    assert clone == solver and clone is not solver
    assert clone.stats == solver.stats
    assert clone != QuantumMISSolver("aer", shots=64, max_qubits=7, cut=False, fallback_sweeps=31)
    assert clone != QuantumMISSolver("aer", shots=65, max_qubits=7, cut=False, fallback_sweeps=30)
    samples = clone.sample(MISProblem(nx.path_graph(3)), seed=0)  # the clone has a working lock
    assert int(samples.counts.sum()) == 64


def test_solver_is_unhashable_and_compares_only_with_solvers():
    solver = QuantumMISSolver("aer")
    with pytest.raises(TypeError):
        hash(solver)
    assert solver != "aer"


def test_two_threads_sharing_a_solver_each_get_their_own_stats():
    solver = QuantumMISSolver("aer", shots=64)
    solver.device()  # build the shared backend before the threads race for it
    problems = [MISProblem(nx.path_graph(4)), MISProblem(nx.cycle_graph(5))]
    barrier = threading.Barrier(2)
    results = [None, None]
    errors = []

    def work(i):
        try:
            barrier.wait(timeout=30)
            results[i] = solver.sample(problems[i], seed=i)
        except Exception as exc:  # surfaced in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    for samples, problem in zip(results, problems, strict=True):
        assert samples.stats["circuits"] == 1 and samples.stats["shots"] == 64
        assert samples.bits.shape[1] == problem.num_nodes
    assert solver.stats["calls"] == 2 and solver.stats["circuits"] == 2


# -- parameters ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": 3}, "backend must be a spec such as 'aer' or a QuantumBackend, got 3"),
        ({"shots": 0}, "shots must be a positive integer, got 0"),
        ({"shots": 1.5}, "shots must be a positive integer, got 1.5"),
        ({"max_qubits": 0}, "max_qubits must be a positive integer, got 0"),
        ({"sleep_factor": -1.0}, "sleep_factor must be a finite number >= 0, got -1.0"),
        ({"max_cut_overhead": float("inf")}, "max_cut_overhead must be a finite number >= 0, got inf"),
        ({"fallback_sweeps": 0}, "fallback_sweeps must be a positive integer, got 0"),
    ],
)
def test_bad_parameters_are_rejected_with_the_reason(kwargs, message):
    with pytest.raises(InvalidParameterError, match=f"^{re.escape(message)}$"):
        QuantumMISSolver(**kwargs)


def test_repr_names_the_settings():
    assert repr(QuantumMISSolver("aer", shots=8, max_qubits=4, cut=False)) == (
        "QuantumMISSolver(backend='aer', shots=8, max_qubits=4, cut=False)"
    )
