import itertools

import networkx as nx
import numpy as np
import pytest
from pysat.solvers import Solver

from bbqmis.coloring.classical.sat_worker import encode
from bbqmis.coloring.classical.zykov import (
    forced_merges,
    implied_clauses,
    implied_structure,
    k_cliques,
    neighbour_bitsets,
)


def colorings(graph: nx.Graph, k: int):
    """Every proper colouring of ``graph`` (vertices 0..n-1) with colours 0..k-1, by backtracking."""
    n = graph.number_of_nodes()
    colors = [-1] * n

    def extend(v):
        if v == n:
            yield list(colors)
            return
        for c in range(k):
            if all(colors[u] != c for u in graph[v] if u < v):
                colors[v] = c
                yield from extend(v + 1)
        colors[v] = -1

    yield from extend(0)


def random_graphs(seed: int, count: int, sizes=(6, 11)):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(*sizes))
        yield nx.gnp_random_graph(n, float(rng.uniform(0.3, 0.7)), seed=rng)


@pytest.mark.parametrize("seed", range(3))
def test_k_cliques_are_the_cliques_of_size_k_each_once(seed):
    for graph in random_graphs(seed, 8, sizes=(6, 16)):
        neighbours = neighbour_bitsets(len(graph), list(graph.edges))
        for k in range(1, 6):
            found = k_cliques(neighbours, k)
            expected = {frozenset(c) for c in nx.enumerate_all_cliques(graph) if len(c) == k}
            assert len(found) == len({frozenset(c) for c in found}) == len(expected)
            assert {frozenset(c) for c in found} == expected


def test_the_budgets_end_the_search_with_cliques_only():
    graph = nx.complete_graph(8)
    neighbours = neighbour_bitsets(8, list(graph.edges))
    assert len(k_cliques(neighbours, 4)) == 70
    assert len(k_cliques(neighbours, 4, max_cliques=5)) == 5
    partial = k_cliques(neighbours, 4, max_steps=20)
    assert 0 < len(partial) < 70
    assert all(len(set(c)) == 4 for c in partial)
    assert k_cliques(neighbours, 0) == [] and k_cliques(neighbours, 9) == []


@pytest.mark.parametrize("seed", range(3))
def test_every_k_colouring_satisfies_the_implied_clauses_and_merges(seed):
    checked = merged = 0
    for graph in random_graphs(seed, 10):
        n, edges = len(graph), list(graph.edges)
        k = max(len(c) for c in nx.find_cliques(graph))  # the question at the clique bound
        cliques, merges = implied_structure(n, edges, k)
        clauses = list(implied_clauses(cliques, merges, k))
        merged += len(merges)
        for u, v, j in merges:  # each merge names the clique that forces it
            assert u in cliques[j] and v not in cliques[j]
            assert all(graph.has_edge(v, w) for w in cliques[j] if w != u)
        for colors in itertools.islice(colorings(graph, k), 2000):
            true = {v * k + c + 1 for v, c in enumerate(colors)}
            assert all(any(lit in true if lit > 0 else -lit not in true for lit in cl) for cl in clauses)
            assert all(colors[u] == colors[v] for u, v, _ in merges)
            checked += 1
    assert checked > 0 and merged > 0


@pytest.mark.parametrize("seed", range(3))
def test_the_implied_clauses_change_no_answer(seed):
    for graph in random_graphs(seed, 10, sizes=(8, 16)):
        n, edges = len(graph), list(graph.edges)
        clique = max(nx.find_cliques(graph), key=len)
        k = len(clique)
        with Solver(name="cadical195", bootstrap_with=encode(n, edges, clique, k)) as plain:
            expected = plain.solve()
        with Solver(name="cadical195", bootstrap_with=encode(n, edges, clique, k)) as solver:
            solver.append_formula(implied_clauses(*implied_structure(n, edges, k), k))
            assert solver.solve() == expected
            if expected:
                model = set(solver.get_model())
                colors = [next(c for c in range(k) if v * k + c + 1 in model) for v in range(n)]
                assert all(colors[u] != colors[v] for u, v in edges)


def test_a_merge_of_adjacent_vertices_refutes_the_question():
    graph = nx.complete_graph(4)  # asked for 3 colours with a triangle: vertex 3 merges with a neighbour
    edges = list(graph.edges)
    cliques, merges = implied_structure(4, edges, 3)
    assert any(graph.has_edge(u, v) for u, v, _ in merges)
    with Solver(name="cadical195", bootstrap_with=list(implied_clauses(cliques, merges, 3))) as solver:
        solver.append_formula(
            [[-(u * 3 + a + 1), -(u * 3 + b + 1)] for u in range(4) for a in range(3) for b in range(a)]
        )
        solver.append_formula([[-(u * 3 + c + 1), -(v * 3 + c + 1)] for u, v in edges for c in range(3)])
        assert not solver.solve()


def test_queen_graph_rows_columns_and_long_diagonals_are_its_9_cliques():
    graph = nx.convert_node_labels_to_integers(nx.Graph(_queen_edges(9)))
    neighbours = neighbour_bitsets(81, list(graph.edges))
    assert len(k_cliques(neighbours, 9)) == 9 + 9 + 2
    assert forced_merges(neighbours, k_cliques(neighbours, 9)) == []  # no square sees 8 of a line


def _queen_edges(size):
    squares = list(itertools.product(range(size), repeat=2))
    for (r1, c1), (r2, c2) in itertools.combinations(squares, 2):
        if r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2):
            yield (r1, c1), (r2, c2)
