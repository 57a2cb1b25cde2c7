import numpy as np
import pytest

from bbqmis.mis.classical import maximum_independent_set
from clustagg.aggregate import Candidates, assign_labels, conflict_graph, mwis_problem, score
from clustagg.clusterers import ALGORITHMS
from clustagg.errors import InvalidParameterError
from clustagg.solvers import AnnealingSolver, ExactSolver, solve
from clustagg.steps import cluster


def all_bitstrings(n):
    k = np.arange(2**n)
    return ((k[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def sizes_of(graph, nodes):
    return sum(graph.nodes[v]["size"] for v in nodes)


def assert_non_overlapping(candidates, chosen):
    hits = np.isin(candidates.global_labels, list(chosen)).sum(axis=0)
    assert hits.max() <= 1, "two chosen clusters share a point"


def test_conflict_graph_links_clusters_sharing_a_point():
    candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 2]], dtype=np.int32), ("a", "b"))
    graph = conflict_graph(candidates)
    # a0={0,1} a1={2,3} | b0={0} b1={1,2} b2={3}: ids a0=0 a1=1 b0=2 b1=3 b2=4
    assert sorted(graph.edges) == [(0, 2), (0, 3), (1, 3), (1, 4)]
    assert graph.nodes[3] == {"algorithm": "b", "cluster": 1, "size": 2}
    assert candidates.origin(4) == {"algorithm": "b", "cluster": 2, "size": 1}


@pytest.mark.parametrize("seed", [0, 3, 14])
@pytest.mark.parametrize("solver", [ExactSolver(), AnnealingSolver()], ids=["exact", "anneal"])
def test_qubo_optimum_is_a_valid_maximum_weight_clustering(points_1000, seed, solver):
    candidates = cluster(points_1000, seed)
    graph = conflict_graph(candidates)
    problem = mwis_problem(graph)
    bits = solve(problem, solver, seed=seed)
    chosen = problem.to_nodes(bits)
    assert problem.is_independent(bits) and problem.is_maximal(bits)
    assert_non_overlapping(candidates, chosen)
    best = maximum_independent_set(graph, "size")
    assert sizes_of(graph, chosen) == sizes_of(graph, best) == len(points_1000)


def test_tie_break_keeps_the_optimum_weight_and_prefers_more_clusters():
    rng = np.random.default_rng(5)
    for _ in range(30):
        n_points = int(rng.integers(4, 9))
        rows = [rng.integers(0, int(rng.integers(1, 4)), n_points) for _ in range(3)]
        rows = [np.unique(r, return_inverse=True)[1] for r in rows]
        candidates = Candidates(np.array(rows, dtype=np.int32), ALGORITHMS)
        graph = conflict_graph(candidates)
        problem = mwis_problem(graph)
        sizes = np.array([graph.nodes[v]["size"] for v in graph])
        sets = all_bitstrings(problem.num_nodes)
        sets = sets[problem.is_independent(sets)]
        plain = sets @ sizes
        optimal = sets[plain == plain.max()]
        best = sets[np.argmin(problem.cost(sets))]
        assert best @ sizes == plain.max(), "the bonus changed the optimum weight"
        assert best.sum() == optimal.sum(axis=1).max(), "ties are not broken toward more clusters"
        exact = problem.to_bits(maximum_independent_set(graph, "weight"))
        assert problem.cost(exact) == pytest.approx(problem.cost(best))


def test_tie_between_full_clusterings_goes_to_the_finer_one():
    coarse, fine = [0, 0, 0, 1, 1, 1], [0, 0, 1, 2, 2, 3]
    candidates = Candidates(np.array([coarse, fine], dtype=np.int32), ("coarse", "fine"))
    problem = mwis_problem(conflict_graph(candidates))
    chosen = problem.to_nodes(solve(problem, ExactSolver()))
    assert [candidates.origin(c)["algorithm"] for c in sorted(chosen)] == ["fine"] * 4
    assert problem.penalty == 6 and problem.weights.max() == pytest.approx(1 + 1 / (2 * 6 * 3))


def test_assign_labels_sends_uncovered_points_to_the_nearest_centroid():
    X = np.array([[0.0, 0], [0, 1], [10, 0], [10, 1], [1, 0], [9, 1]])
    candidates = Candidates(np.array([[0, 0, 1, 1, 2, 2]], dtype=np.int32), ("a",))
    labels = assign_labels(X, candidates, [0, 1])
    assert labels.tolist() == [0, 0, 1, 1, 0, 1]
    overlapping = Candidates(np.array([[0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1]], dtype=np.int32), ("a", "b"))
    with pytest.raises(InvalidParameterError, match="chosen clusters overlap at point 2"):
        assign_labels(X, overlapping, [1, 2])
    with pytest.raises(InvalidParameterError, match="chosen must name at least one candidate"):
        assign_labels(X, candidates, [])


def test_score_sampled_close_to_exact(points_3000):
    labels = cluster(points_3000, 0).labelings[0]
    exact = score(points_3000, labels, sample_size=None)
    assert abs(score(points_3000, labels, sample_size=1500, seed=1) - exact) < 0.02
    assert score(points_3000, np.zeros(3000, int)) == -1.0


def test_candidates_check_their_shape():
    with pytest.raises(InvalidParameterError, match=r"labelings must have shape \(2, n_samples\)"):
        Candidates(np.zeros((3, 4), dtype=np.int32), ("a", "b"))
