import math

import networkx as nx
import numpy as np
import pytest

from bbqmis import InvalidParameterError
from bbqmis.coloring.lp.master import ColumnPool, IndexedGraph, safe_ceil, solve_master

# -- safe rounding -----------------------------------------------------------------------


def test_safe_ceil():
    assert safe_ceil(4.0000001) == 4
    assert safe_ceil(4.2) == 5
    assert safe_ceil(3.9999999) == 4
    assert safe_ceil(4.0) == 4
    assert safe_ceil(4.00001) == 5
    assert safe_ceil(4.00001, tol=1e-4) == 4
    with pytest.raises(InvalidParameterError, match="tol"):
        safe_ceil(2.0, tol=-1.0)
    with pytest.raises(InvalidParameterError, match="x must be"):
        safe_ceil(math.inf)


# -- column pool and master ----------------------------------------------------------------


def test_pool_deduplicates_and_extends(is_maximal_independent):
    pool = ColumnPool(nx.cycle_graph(6))
    assert pool.add([{0}, {0, 2}, {0, 2, 4}, {1, 4}]) == 2  # {0} and {0,2} extend to {0,2,4}
    assert pool.add([{2, 4}]) == 0
    assert all(is_maximal_independent(pool.graph, m) for m in pool.masks)
    assert {frozenset(s) for s in pool.sets()} == {frozenset({0, 2, 4}), frozenset({1, 4})}
    assert pool.matrix().shape == (6, 2)
    assert pool.add(["not a node", {7, 9}]) == 0  # labels outside the graph are dropped, empty extends
    with pytest.raises(InvalidParameterError, match="independent"):
        pool.add([{0, 1}])
    with pytest.raises(InvalidParameterError, match="masks"):
        pool.add_masks([1 << 6])


def test_pool_cover_and_labels():
    graph = nx.relabel_nodes(nx.path_graph(4), {0: "a", 1: "b", 2: "c", 3: "d"})
    pool = ColumnPool(graph, [{"a", "c"}])
    assert pool.cover() == 1
    assert {frozenset(s) for s in pool.sets()} == {frozenset("ac"), frozenset("bd")}
    with pytest.raises(InvalidParameterError, match="cover"):
        solve_master(ColumnPool(graph, [{"a", "c"}]))


def test_master_duals_c5():
    pool = ColumnPool(nx.cycle_graph(5), [{i, (i + 2) % 5} for i in range(5)])
    solution = solve_master(pool)
    assert solution.value == pytest.approx(2.5)
    assert solution.duals.shape == (5,)
    assert np.all(solution.duals >= 0)
    assert solution.duals.sum() == pytest.approx(solution.value)
    assert solution.x.shape == (5,)


def test_indexed_graph_validation():
    with pytest.raises(InvalidParameterError, match="symmetric"):
        IndexedGraph(np.array([[0, 1], [0, 0]]))
    with pytest.raises(InvalidParameterError, match="self-loop"):
        IndexedGraph(np.eye(2))
    with pytest.raises(InvalidParameterError, match="nodes"):
        IndexedGraph(np.zeros((2, 2)), nodes=["a", "a"])
    with pytest.raises(InvalidParameterError, match="graph must be"):
        IndexedGraph.coerce([[0, 1], [1, 0]])  # type: ignore[arg-type]
