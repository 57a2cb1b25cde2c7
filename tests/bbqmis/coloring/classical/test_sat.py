import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from bbqmis import read_graph
from bbqmis.coloring.classical.bounds import dsatur_coloring
from bbqmis.coloring.classical.dsatur_exact import exact_coloring
from bbqmis.coloring.classical.sat import sat_clauses, sat_coloring
from bbqmis.coloring.classical.sat_worker import decode, encode
from bbqmis.coloring.classical.tabucol import improve_coloring
from bbqmis.coloring.result import verify_coloring

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"


def inputs(graph: nx.Graph) -> tuple[sp.csr_array, np.ndarray, list[int]]:
    """Adjacency, a greedy colouring and a maximum clique (positions in node order)."""
    nodes = list(graph)
    position = {v: i for i, v in enumerate(nodes)}
    greedy = dsatur_coloring(graph)
    clique = max(nx.find_cliques(graph), key=len) if len(graph) else []
    return (
        nx.to_scipy_sparse_array(graph, nodelist=nodes, weight=None, format="csr"),
        np.array([greedy[v] for v in nodes]),
        [position[v] for v in clique],
    )


def as_coloring(graph: nx.Graph, colors: np.ndarray) -> dict:
    return dict(zip(graph, colors.tolist(), strict=True))


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_exact_dsatur_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    for _ in range(6):
        graph = nx.gnp_random_graph(int(rng.integers(8, 30)), float(rng.uniform(0.15, 0.6)), seed=rng)
        adjacency, greedy, clique = inputs(graph)
        chi = exact_coloring(adjacency).num_colors
        # from the worst colouring, so that every colour count down to chi is asked
        result = sat_coloring(adjacency, np.arange(len(graph)), clique=clique)
        verify_coloring(graph, as_coloring(graph, result.colors))
        assert result.optimal and result.stopped is None
        assert result.num_colors == result.lower_bound == chi


@pytest.mark.parametrize(("name", "chi"), [("myciel5", 6), ("1-Insertions_4", 5), ("le450_5a", 5)])
def test_proves_dimacs_graphs_beyond_the_trees(name, chi):
    graph = read_graph(DATA / f"{name}.col")
    adjacency, greedy, clique = inputs(graph)
    result = sat_coloring(
        adjacency, greedy, clique=clique, lower=len(clique), deadline=time.perf_counter() + 60
    )
    verify_coloring(graph, as_coloring(graph, result.colors))
    assert result.optimal and result.num_colors == result.lower_bound == chi


@pytest.mark.parametrize("seed", range(2))
def test_the_implied_clauses_agree_with_the_plain_encoding(seed):
    rng = np.random.default_rng(10 + seed)
    for _ in range(6):
        graph = nx.gnp_random_graph(int(rng.integers(10, 30)), float(rng.uniform(0.3, 0.7)), seed=rng)
        adjacency, greedy, clique = inputs(graph)
        results = [
            sat_coloring(adjacency, greedy, clique=clique, lower=len(clique), implied=implied)
            for implied in (True, False)
        ]
        for result in results:
            verify_coloring(graph, as_coloring(graph, result.colors))
            assert result.optimal
        assert results[0].num_colors == results[1].num_colors


def test_queen8_8_is_proved_at_once_by_every_colour_on_every_line():
    graph = read_graph(DATA / "queen8_8.col")  # chi 9, clique 8: the plain encoding takes ~10 s
    adjacency, greedy, clique = inputs(graph)
    start = time.perf_counter()
    result = sat_coloring(adjacency, greedy, clique=clique, lower=8, deadline=start + 60)
    verify_coloring(graph, as_coloring(graph, result.colors))
    assert result.optimal and result.num_colors == result.lower_bound == 9


def test_queen9_9_is_proved():
    graph = read_graph(DATA / "queen9_9.col")  # chi 10, clique 9: no 9-queens partition of the board
    adjacency, greedy, clique = inputs(graph)
    # from TabuCol's colouring, as in the pipeline: SAT then asks the clique bound, 9 colours
    start = improve_coloring(adjacency, greedy, max_iterations_per_k=500 * 81, seed=0, lower_bound=9)
    result = sat_coloring(adjacency, start, clique=clique, lower=9, deadline=time.perf_counter() + 60)
    verify_coloring(graph, as_coloring(graph, result.colors))
    assert result.optimal and result.num_colors == result.lower_bound == 10


def test_a_deadline_kills_the_solver_and_keeps_the_best_colouring():
    graph = nx.mycielski_graph(8)  # 191 vertices, chi 8: no proof within seconds
    adjacency, greedy, clique = inputs(graph)
    start = time.perf_counter()
    result = sat_coloring(adjacency, greedy, clique=clique, deadline=start + 1.0)
    assert time.perf_counter() - start < 1.0 + 2.0  # a poll, a kill and a wait
    verify_coloring(graph, as_coloring(graph, result.colors))
    assert result.stopped == "time_limit" and not result.optimal
    assert result.num_colors <= len(set(greedy.tolist())) and result.lower_bound < 8


def test_a_stop_request_ends_the_solver_as_the_deadline_does():
    graph = nx.mycielski_graph(8)
    adjacency, greedy, clique = inputs(graph)
    asked = time.perf_counter() + 0.5
    start = time.perf_counter()
    result = sat_coloring(adjacency, greedy, clique=clique, stop=lambda: time.perf_counter() >= asked)
    assert time.perf_counter() - start < 0.5 + 2.0
    assert result.stopped == "time_limit" and not result.optimal


def test_a_solver_out_of_memory_is_reported_and_the_initial_colouring_kept():
    graph = nx.mycielski_graph(6)
    adjacency, greedy, clique = inputs(graph)
    result = sat_coloring(adjacency, greedy, clique=clique, memory_gb=0.02)  # Python itself needs more
    assert result.stopped in ("memory_limit", "failed") and not result.optimal
    np.testing.assert_array_equal(result.colors, greedy)
    assert result.lower_bound == len(clique)


def test_nothing_to_ask_when_the_colouring_meets_the_bound():
    graph = nx.complete_graph(5)
    adjacency, greedy, clique = inputs(graph)
    result = sat_coloring(adjacency, greedy, clique=clique)
    assert result.optimal and result.nodes == 0 and result.num_colors == 5


def test_encoding_round_trip_on_a_satisfying_assignment():
    graph = nx.cycle_graph(6)
    colors = [v % 2 for v in graph]
    k = 3
    model = [(v * k + c + 1) * (1 if colors[v] == c else -1) for v in graph for c in range(k)]
    clauses = list(encode(6, list(graph.edges()), [0, 1], k))
    assert all(any(lit in model for lit in clause) for clause in clauses)
    assert decode(model, 6, k) == colors
    assert len(clauses) == sat_clauses(6, 6, k) + 2  # and the two clique units


def test_inputs_that_would_give_a_false_proof_are_refused():
    from backends.errors import InvalidParameterError

    path = nx.to_scipy_sparse_array(nx.path_graph(3))  # chi 2
    with pytest.raises(InvalidParameterError, match="clique must be distinct pairwise adjacent"):
        sat_coloring(path, [0, 1, 2], clique=[0, 2])  # not adjacent: would "prove" 3
    with pytest.raises(InvalidParameterError, match="clique must be distinct"):
        sat_coloring(path, [0, 1, 2], clique=[0, 0])
    with pytest.raises(InvalidParameterError, match="initial is not"):
        sat_coloring(path, [0, 0, 1])
    with pytest.raises(InvalidParameterError, match="symmetric"):
        sat_coloring(sp.csr_array(np.triu(np.ones((3, 3)), 1)), [0, 1, 2])
