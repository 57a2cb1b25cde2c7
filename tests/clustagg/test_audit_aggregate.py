"""Audit defects 4 and 5: empty candidates, and candidate ids that are not ids."""

import warnings

import numpy as np
import pytest
from sklearn.metrics import silhouette_score

from clustagg._validation import check_points
from clustagg.aggregate import Candidates, assign_labels
from clustagg.errors import InvalidParameterError
from clustagg.solvers import ExactSolver
from clustagg.steps import aggregate, score_round

X = np.array([[0.0, 0.0], [0.0, 1.0], [5.0, 0.0], [5.0, 1.0], [9.0, 0.0], [9.0, 1.0]])
LABELINGS = np.array([[0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1], [0, 1, 2, 3, 4, 5]])


def test_unused_labels_are_dropped_so_every_candidate_holds_points():
    # k-means may leave label ids unused: they were candidates of size 0, in conflict with
    # nothing, so the MWIS always chose them.
    candidates = Candidates(np.array([[0, 0, 2, 2], [0, 0, 0, 0]]), ("a", "b"))
    assert candidates.labelings.tolist() == [[0, 0, 1, 1], [0, 0, 0, 0]]
    assert candidates.sizes.tolist() == [2, 2, 4]
    selection = aggregate(candidates, ExactSolver(), seed=0)
    assert selection["chosen"] == [0, 1]
    assert [c["size"] for c in selection["chosen_clusters"]] == [2, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # was "invalid value encountered in divide"
        labels = assign_labels(np.array([[0.0], [0.1], [5.0], [5.1]]), candidates, selection["chosen"])
    assert labels.tolist() == [0, 0, 1, 1]


def test_labels_far_apart_give_the_same_round_as_contiguous_ones():
    # Labels x 1000 made empty candidates, which the MWIS chose (x 1e8 made it hang).
    labelings = np.array([[0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1]])
    contiguous = Candidates(labelings, ("a", "b", "c"))
    spread = Candidates(labelings * 1000, ("a", "b", "c"))
    selection = aggregate(spread, ExactSolver(), seed=0)
    assert selection["n_candidates"] == 7
    assert selection["chosen"] == aggregate(contiguous, ExactSolver(), seed=0)["chosen"]
    labels, silhouette = score_round(X, spread, selection, sample_size=None)
    assert labels.tolist() == [2, 2, 0, 0, 1, 1]
    assert silhouette == pytest.approx(silhouette_score(X, labels))


@pytest.mark.parametrize("labelings", [np.array([[0.0, 1.0]]), np.array([[True, False]])])
def test_labelings_that_are_not_integers_are_refused(labelings):
    with pytest.raises(
        InvalidParameterError, match=f"labelings must be integers, got dtype {labelings.dtype}$"
    ):
        Candidates(labelings, ("a",))


@pytest.mark.parametrize(
    ("chosen", "message"),
    [
        ([-1, 2], "chosen[0] must be a candidate id in 0..10, found -1"),
        ([1, 2, 999], "chosen[2] must be a candidate id in 0..10, found 999"),
        ([1.5, 2], "chosen[0] must be a candidate id in 0..10, found 1.5"),
        ([True, 2], "chosen[0] must be a candidate id in 0..10, found True"),
        ([np.float64(1.0)], "chosen[0] must be a candidate id in 0..10, found 1.0"),
        ("abc", "chosen must be a list of candidate ids, found 'abc'"),
        ([], "chosen must name at least one candidate cluster, found none"),
    ],
)
def test_assign_labels_refuses_what_is_not_a_candidate_id(chosen, message):
    candidates = Candidates(LABELINGS, ("a", "b", "c"))
    with pytest.raises(InvalidParameterError) as caught:
        assign_labels(X, candidates, chosen)
    assert str(caught.value) == message


def test_assign_labels_takes_numpy_ids():
    candidates = Candidates(LABELINGS, ("a", "b", "c"))
    assert assign_labels(X, candidates, np.array([0, 1, 2])).tolist() == [0, 0, 1, 1, 2, 2]


def test_check_points_refuses_complex_values_and_values_whose_distances_overflow():
    with pytest.raises(InvalidParameterError) as caught:
        check_points(np.array([[1 + 1j, 0], [1 - 1j, 0]]), name="c.npy")
    assert str(caught.value) == "c.npy must be real numbers, got complex values (complex128)"
    with pytest.raises(InvalidParameterError) as caught:
        check_points([[0.0, 1.0], [2.0, -1e151]])
    assert str(caught.value) == (
        "points must have values of magnitude at most 1e+150 (distances overflow beyond); "
        "row 1 is [2.0, -1e+151]"
    )
    assert check_points([[0.0, 1e150], [-1e150, 0.0]]).shape == (2, 2)
