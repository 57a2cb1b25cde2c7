import numpy as np
import pytest

from clustagg._validation import check_points, check_round_seed, first_overlap
from clustagg.errors import InvalidParameterError


def test_check_points_returns_contiguous_float64():
    points = np.arange(12, dtype=np.int16).reshape(4, 3)[:, ::2]  # not contiguous
    checked = check_points(points)
    assert checked.dtype == np.float64 and checked.flags.c_contiguous
    np.testing.assert_array_equal(checked, points)
    assert check_points([[1.5]], min_samples=1).shape == (1, 1)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (None, r"X must be an array of shape \(n_samples, n_features\), got None"),
        ([1.0, 2.0, 3.0], r"X must have shape \(n_samples, n_features\), got \(3,\)"),
        (np.zeros((3, 0)), r"X must have shape \(n_samples, n_features\), got \(3, 0\)"),
        ([[1.0, 2.0]], "X must have at least 2 samples, got 1"),
        ([[0.0, 1.0], [2.0, np.inf], [np.nan, 0.0]], r"X must be finite; row 1 is \[2.0, inf\]"),
        ([["a", "b"], ["c", "d"]], "X must be a numeric array, got list"),
    ],
)
def test_check_points_rejects(points, message):
    with pytest.raises(InvalidParameterError, match=message):
        check_points(points, name="X")


def test_check_round_seed():
    assert check_round_seed(np.int64(5)) == 5 and type(check_round_seed(np.int64(5))) is int
    with pytest.raises(InvalidParameterError, match="seed must be an integer >= 0, got None"):
        check_round_seed(None)
    with pytest.raises(InvalidParameterError, match="round must be an integer >= 0, got -1"):
        check_round_seed(-1, "round")


@pytest.mark.parametrize("seed", range(20))
def test_first_overlap_is_the_lowest_point_two_chosen_candidates_share(seed):
    rng = np.random.default_rng(seed)
    local = rng.integers(0, 3, size=(3, 12))
    global_labels = local + np.array([[0], [3], [6]])  # three clusterings, three candidates each
    ids = np.unique(rng.choice(9, size=int(rng.integers(1, 5)), replace=False))
    shared = [p for p in range(12) if np.isin(global_labels[:, p], ids).sum() > 1]
    found = first_overlap(global_labels, ids)
    if not shared:
        assert found is None
    else:
        first, second, point = found
        assert point == shared[0]
        assert first != second and {first, second} <= set(ids.tolist())
        assert first in global_labels[:, point] and second in global_labels[:, point]
