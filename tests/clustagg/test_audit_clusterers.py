"""Audit defects 2 and 3: clusterings of points whose coordinates span a huge range."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.cluster import DBSCAN, AgglomerativeClustering

from clustagg.clusterers import GridDBSCAN, SingleLinkage, delaunay_graph


def same_partition(a, b):
    """Whether two labelings group the points alike (labels may be renamed)."""
    pairs = set(zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=True))
    return len(pairs) == len(set(np.asarray(a).tolist())) == len(set(np.asarray(b).tolist()))


@pytest.mark.parametrize("scale", [1e19, 1e25, 1e100])
def test_grid_dbscan_matches_scikit_learn_with_outliers_far_out(scale):
    # The grid cell index used to overflow int64 (with a RuntimeWarning only): an isolated
    # point became a cluster of its own.
    X = np.random.default_rng(0).normal(size=(40, 2))
    X[-1] = [scale, 0.0]
    X[-2] = [-scale, 0.0]
    expected = DBSCAN(eps=1.5, min_samples=5).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = GridDBSCAN(eps=1.5, min_samples=5).fit(X)
    np.testing.assert_array_equal(got.labels_, expected.labels_)
    np.testing.assert_array_equal(got.core_sample_indices_, expected.core_sample_indices_)


@pytest.mark.parametrize("seed", range(12))
def test_grid_dbscan_core_points_and_noise_match_scikit_learn_over_wide_ranges(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 4))
    X = rng.normal(size=(120, d)) * 3
    X[:20] *= 10.0 ** rng.integers(5, 40)
    eps, min_samples = float(rng.uniform(0.3, 3)), int(rng.integers(2, 6))
    expected = DBSCAN(eps=eps, min_samples=min_samples).fit(X)
    got = GridDBSCAN(eps=eps, min_samples=min_samples).fit(X)
    core = expected.core_sample_indices_
    np.testing.assert_array_equal(got.core_sample_indices_, core)
    np.testing.assert_array_equal(got.labels_ < 0, expected.labels_ < 0)
    assert same_partition(got.labels_[core], expected.labels_[core])


@pytest.mark.parametrize("d", [2, 3])
def test_single_linkage_is_exact_when_qhull_cannot_resolve_the_points(d):
    # Spanning 1e7 times their smallest distance, Qhull merged distinct points and the
    # Delaunay graph lost edges of the minimum spanning tree: wrong clusters, silently.
    X = np.random.default_rng(0).normal(size=(150, d))
    X[:5] *= 1e7
    assert delaunay_graph(X) is None
    for k in (4, 7, 10):
        expected = AgglomerativeClustering(k, linkage="single").fit(X).labels_
        assert same_partition(SingleLinkage(k).fit(X).labels_, expected)


def test_delaunay_graph_does_not_hand_qhull_points_it_crashes_on():
    # These points (1e140 and 1 in 3-D) made scipy's Delaunay crash the interpreter.
    code = (
        "import numpy as np\n"
        "from clustagg.clusterers import delaunay_graph\n"
        "rng = np.random.default_rng(0)\n"
        "rng.normal(size=(30, 2))\n"
        "X = rng.normal(size=(200, 3))\n"
        "X[:5] *= 1e140\n"
        "print(delaunay_graph(X))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "None\n")
