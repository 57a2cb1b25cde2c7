import numpy as np
import pytest
from sklearn.cluster import DBSCAN
from sklearn.datasets import make_blobs

from clustagg.clusterers import ALGORITHMS, GridDBSCAN, delaunay_graph, draw_parameters, fit_labels
from clustagg.errors import InvalidParameterError


@pytest.mark.parametrize("eps", [0.6, 1.5, 4.4])
def test_grid_dbscan_matches_scikit_learn(points_3000, eps):
    expected = DBSCAN(eps=eps, min_samples=10).fit(points_3000)
    got = GridDBSCAN(eps=eps, min_samples=10).fit(points_3000)
    np.testing.assert_array_equal(got.labels_, expected.labels_)
    np.testing.assert_array_equal(got.core_sample_indices_, expected.core_sample_indices_)


def test_grid_dbscan_in_three_dimensions():
    X, _ = make_blobs(1500, n_features=3, centers=5, random_state=3)
    expected = DBSCAN(eps=0.9, min_samples=8).fit(X).labels_
    np.testing.assert_array_equal(GridDBSCAN(eps=0.9, min_samples=8).fit(X).labels_, expected)


def test_grid_dbscan_all_noise():
    X = np.arange(10.0).reshape(5, 2) * 10
    assert GridDBSCAN(eps=1.0, min_samples=2).fit(X).labels_.tolist() == [-1] * 5


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"eps": -1}, r"eps must be a number in \(0, inf\], got -1"),
        ({"min_samples": 0}, "min_samples must be a positive integer, got 0"),
    ],
)
def test_grid_dbscan_validates_parameters_on_fit(points_1000, params, message):
    estimator = GridDBSCAN(**params)  # __init__ only stores
    with pytest.raises(InvalidParameterError, match=message):
        estimator.fit(points_1000)


def test_draw_parameters_ranges_and_determinism():
    draws = [draw_parameters(seed) for seed in range(200)]
    assert draws[7] == draw_parameters(7)
    assert {d["kmeans"]["n_clusters"] for d in draws} == set(range(4, 11))
    assert {d["hclust"]["n_clusters"] for d in draws} == set(range(4, 11))
    eps = [d["dbscan"]["eps"] for d in draws]
    assert 1.2 <= min(eps) and max(eps) < 4.5
    assert all(d["dbscan"]["min_samples"] == 10 for d in draws)


def test_fit_labels_turns_noise_into_one_more_cluster(points_1000):
    params = {"eps": 0.3, "min_samples": 10}
    raw = GridDBSCAN(**params).fit(points_1000).labels_
    labels = fit_labels("dbscan", points_1000, params)
    k = raw.max() + 1
    assert (raw == -1).any()
    np.testing.assert_array_equal(labels[raw == -1], k)
    np.testing.assert_array_equal(labels[raw >= 0], raw[raw >= 0])


def test_each_algorithm_gives_k_clusters(points_1000):
    params = draw_parameters(3)
    for name in ("kmeans", "hclust"):
        labels = fit_labels(name, points_1000, params[name])
        assert set(labels.tolist()) == set(range(params[name]["n_clusters"]))
    with pytest.raises(InvalidParameterError, match="algorithm must be one of 'kmeans', 'dbscan', 'hclust'"):
        fit_labels("ward", points_1000, {})
    assert ALGORITHMS == ("kmeans", "dbscan", "hclust")


def test_single_linkage_on_delaunay_edges_equals_full_single_linkage(points_3000):
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.metrics import adjusted_rand_score

    X = np.r_[points_3000, points_3000[:5]]  # duplicates are left out of the triangulation
    for k in (4, 7, 10):
        full = AgglomerativeClustering(k, linkage="single").fit(X).labels_
        assert adjusted_rand_score(fit_labels("hclust", X, {"n_clusters": k}), full) == 1.0
    collinear = np.c_[np.arange(20.0), np.arange(20.0)]
    assert delaunay_graph(collinear) is None
    assert len(set(fit_labels("hclust", collinear, {"n_clusters": 4}))) == 4


def test_kmeans_starts_from_the_given_rows_and_runs_to_convergence(points_1000):
    from sklearn.cluster import KMeans

    rows = [3, 400, 777, 21]
    params = {"n_clusters": 4, "init_rows": rows, "tol": 0.0}
    expected = KMeans(4, init=points_1000[rows], n_init=1, max_iter=200, tol=0.0).fit(points_1000).labels_
    np.testing.assert_array_equal(fit_labels("kmeans", points_1000, params), expected)


@pytest.mark.parametrize("rows", [[1, 2, 3], [1, 2, 3, 1000], [1, 2, 3, -1], [0.5, 1, 2, 3]])
def test_kmeans_initial_rows_are_checked(points_1000, rows):
    with pytest.raises(InvalidParameterError, match=r"init_rows must be 4 row indices in 0\.\.999, got"):
        fit_labels("kmeans", points_1000, {"n_clusters": 4, "init_rows": rows})


def test_single_linkage_refuses_more_clusters_than_points():
    from clustagg.clusterers import SingleLinkage

    with pytest.raises(InvalidParameterError, match="n_clusters must be at most n_samples=3, got 4"):
        SingleLinkage(4).fit(np.eye(3))


@pytest.mark.timeout(60)
def test_kmeans_on_fewer_distinct_points_than_clusters_logs_one_line_and_warns_not(recwarn, caplog):
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0], [9.0, 1.0]]), 10, axis=0)
    with caplog.at_level("WARNING", logger="clustagg.clusterers"):
        labels = fit_labels("kmeans", X, {"n_clusters": 9, "random_state": 0})
    assert not [w for w in recwarn if "distinct clusters" in str(w.message)]
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        (
            "clustagg.clusterers",
            "kmeans: Number of distinct clusters (3) found smaller than n_clusters (9). "
            "Possibly due to duplicate points in X.",
        )
    ]
    assert labels.shape == (30,) and len(set(labels[::10].tolist())) == 3  # one cluster per distinct point
    assert all(len(set(labels[i : i + 10].tolist())) == 1 for i in (0, 10, 20))
