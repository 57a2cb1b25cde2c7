"""Samples and counters of a quantum MIS call (bbqmis.samples)."""

from collections import Counter, defaultdict

import networkx as nx
import numpy as np
import pytest

from bbqmis.mis.errors import InvalidParameterError
from bbqmis.mis.problem import MISProblem
from bbqmis.samples import ANNEALING_WORK, MISSamples, add_stats, annealing_reads, new_stats


# -- MISSamples ---------------------------------------------------------------------------
def test_from_counts_orders_by_count_then_key_and_reads_qiskit_order():
    stats = new_stats(calls=1)
    samples = MISSamples.from_counts({"110": 3, "100": 5, "011": 3}, 3, stats)
    # Qubit 0 is the rightmost character: "100" selects qubit 2 only.
    assert samples.bits.tolist() == [[0, 0, 1], [1, 1, 0], [0, 1, 1]]
    assert samples.counts.tolist() == [5, 3, 3]
    assert samples.bits.dtype == np.uint8 and samples.counts.dtype == np.int64
    assert samples.stats is stats


def test_from_counts_of_nothing_has_no_rows():
    samples = MISSamples.from_counts({}, 4, new_stats())
    assert samples.bits.shape == (0, 4) and samples.counts.shape == (0,)


def test_from_counts_rejects_strings_of_another_width():
    with pytest.raises(InvalidParameterError, match="expected a bitstring of 3 characters"):
        MISSamples.from_counts({"01": 1}, 3, new_stats())


def test_from_rows_counts_distinct_rows_most_frequent_first():
    rng = np.random.default_rng(4)
    rows = rng.integers(0, 2, size=(500, 4))
    samples = MISSamples.from_rows(rows, new_stats())
    expected = Counter(tuple(int(b) for b in row) for row in rows)
    assert {tuple(row): int(c) for row, c in zip(samples.bits.tolist(), samples.counts, strict=True)} == (
        expected
    )
    assert np.all(np.diff(samples.counts) <= 0)
    assert int(samples.counts.sum()) == 500 and samples.bits.dtype == np.uint8


def test_from_rows_breaks_ties_by_row_order_of_numpy_unique():
    samples = MISSamples.from_rows(np.array([[1, 0], [0, 1], [1, 0], [0, 0], [0, 1]]), new_stats())
    assert samples.bits.tolist() == [[0, 1], [1, 0], [0, 0]]
    assert samples.counts.tolist() == [2, 2, 1]


def test_repaired_rows_are_maximal_and_reproducible(graphs):
    rng = np.random.default_rng(8)
    for graph in graphs(5, seed=6):
        problem = MISProblem(graph)
        samples = MISSamples.from_rows(rng.integers(0, 2, size=(40, problem.num_nodes)), new_stats())
        repaired = samples.repaired(problem, seed=3)
        assert repaired.shape == samples.bits.shape and repaired.dtype == np.uint8
        assert all(problem.is_maximal(row) for row in repaired)
        np.testing.assert_array_equal(repaired, samples.repaired(problem, seed=3))
        # Row r is the repair of bits[r], drawn from one generator in row order.
        seeded = np.random.default_rng(3)
        expected = [problem.repair(row, seed=seeded) for row in samples.bits]
        np.testing.assert_array_equal(repaired, expected)


def test_repaired_of_no_rows():
    problem = MISProblem(nx.path_graph(3))
    assert MISSamples.from_counts({}, 3, new_stats()).repaired(problem).shape == (0, 3)


# -- Stats ----------------------------------------------------------------------------------
def test_new_stats_starts_at_the_given_values_and_zero_elsewhere():
    stats = new_stats(calls=2, shots=10.5)
    assert isinstance(stats, defaultdict)
    assert stats["calls"] == 2 and stats["shots"] == 10.5 and stats["circuits"] == 0.0
    assert new_stats() == {}


def test_add_stats_adds_every_counter_except_skipped_ones():
    total = new_stats(calls=1, circuits=2)
    add_stats(total, {"calls": 3, "circuits": 1, "seconds": 0.5}, skip=("calls",))
    assert dict(total) == {"calls": 1, "circuits": 3, "seconds": 0.5}
    add_stats(total, new_stats(fallbacks=1))
    assert total["fallbacks"] == 1


def test_annealing_reads_are_the_shots_within_the_work_budget_and_at_least_one():
    assert annealing_reads(100, 10, 10) == 100
    assert annealing_reads(10**9, 1, 1) == ANNEALING_WORK
    assert annealing_reads(5, 10**9, 10**9) == 1
