import numpy as np
import pytest

from clustagg.data import make_reference_points, parse_points, read_points, write_points
from clustagg.errors import DataFormatError, InvalidParameterError


def test_reference_points_are_deterministic_blobs():
    a, b = make_reference_points(500), make_reference_points(500)
    assert a.shape == (500, 2)
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).max() < 30


def test_parse_points_skips_header_blank_and_comment_lines():
    X = parse_points(["x,y", "1,2", "", "# note", "3.5,-4"])
    np.testing.assert_array_equal(X, [[1, 2], [3.5, -4]])


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["x,y", "1,2", "3,oops"], "data.csv, line 3: expected numbers, got '3,oops'"),
        (["1,2", "3,4,5"], "data.csv, line 2: expected 2 columns, got 3"),
        (["1,2", "3,nan"], "data.csv, line 2: values must be finite"),
        (["x,y", "1,2"], "data.csv: expected at least 2 points, got 1"),
    ],
)
def test_parse_points_errors_name_file_and_line(lines, message):
    with pytest.raises(DataFormatError, match="^" + message.replace("(", r"\(")):
        parse_points(lines, source="data.csv")


def test_read_write_round_trip_and_missing_file(tmp_path):
    X = make_reference_points(50)
    write_points(X, tmp_path / "p.csv")
    np.testing.assert_array_equal(read_points(tmp_path / "p.csv"), X)
    np.save(tmp_path / "p.npy", X)
    np.testing.assert_array_equal(read_points(tmp_path / "p.npy"), X)
    with pytest.raises(DataFormatError, match="missing.csv: cannot read points"):
        read_points(tmp_path / "missing.csv")


def test_n_samples_is_validated():
    with pytest.raises(InvalidParameterError, match="n_samples must be a positive integer, got 0"):
        make_reference_points(0)
