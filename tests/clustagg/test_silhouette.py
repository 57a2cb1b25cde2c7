import numpy as np
import pytest
import sklearn.metrics
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from clustagg.errors import InvalidParameterError
from clustagg.silhouette import silhouette_samples, silhouette_score


@st.composite
def clusterings(draw):
    n = draw(st.integers(3, 60))
    d = draw(st.integers(1, 4))
    coordinates = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2))  # duplicates happen
    X = draw(arrays(np.float64, (n, d), elements=coordinates))
    k = draw(st.integers(2, min(n - 1, 6)))
    labels = draw(arrays(np.int64, n, elements=st.integers(0, k - 1)))
    labels[:2] = [0, 1]  # at least two clusters; singletons are likely
    return X, labels


@pytest.mark.timeout(120)
@settings(max_examples=50, deadline=None)
@given(clusterings(), st.sampled_from([3, 8192]))
def test_exact_silhouette_equals_scikit_learn(data, chunk_size):
    X, labels = data
    expected = sklearn.metrics.silhouette_score(X, labels)
    assert abs(silhouette_score(X, labels, chunk_size=chunk_size) - expected) < 1e-9
    np.testing.assert_allclose(
        silhouette_samples(X, labels, chunk_size=chunk_size),
        sklearn.metrics.silhouette_samples(X, labels),
        rtol=0,
        atol=1e-9,
    )


def test_well_separated_blobs_skip_far_clusters_and_stay_exact():
    # Far blobs are skipped by the centroid bound; the value must not move.
    rng = np.random.default_rng(4)
    centres = np.array([[0, 0], [0, 6], [40, 0], [40, 40], [-30, 20]])
    labels = np.repeat(np.arange(5), 300)
    X = centres[labels] + rng.normal(size=(1500, 2))
    assert abs(silhouette_score(X, labels) - sklearn.metrics.silhouette_score(X, labels)) < 1e-9


@pytest.mark.parametrize("seed", [0, 5])
def test_sample_is_the_one_scikit_learn_draws(points_3000, seed):
    labels = (points_3000[:, 0] > np.median(points_3000[:, 0])).astype(int) + 2 * (points_3000[:, 1] > 0)
    expected = sklearn.metrics.silhouette_score(points_3000, labels, sample_size=700, random_state=seed)
    assert abs(silhouette_score(points_3000, labels, sample_size=700, seed=seed) - expected) < 1e-9
    full = silhouette_score(points_3000, labels)
    assert silhouette_score(points_3000, labels, sample_size=3000, seed=seed) == full


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda X: silhouette_score(X, np.zeros(10)), "labels must name at least 2 clusters, got 1"),
        (lambda X: silhouette_score(X, np.arange(9) % 2), r"labels must have shape \(10,\), got \(9,\)"),
        (lambda X: silhouette_score(X, np.arange(10) % 2, chunk_size=0), "chunk_size must be a positive"),
        (lambda X: silhouette_score(X, np.arange(10) % 2, sample_size=-1), "sample_size must be a positive"),
        (lambda X: silhouette_score(X, np.arange(10) % 2, sample_size=5, seed=-2), "seed must be"),
    ],
)
def test_bad_parameters_are_named(call, message):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(InvalidParameterError, match=message):
        call(X)


@pytest.mark.parametrize(("scale", "offset"), [(1e-30, 0.0), (1e30, 0.0), (1.0, 1e6), (1.0, -3e3)])
def test_any_scale_and_offset_against_direct_distances(scale, offset):
    # Direct differences (cdist), not scikit-learn's expanded form, which loses digits far from 0.
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 2)) * scale + offset
    X[1] = X[0]  # a duplicate: distance exactly 0
    labels = rng.integers(0, 3, 400)
    expected = sklearn.metrics.silhouette_score(cdist(X, X), labels, metric="precomputed")
    assert abs(silhouette_score(X, labels) - expected) < 1e-9
