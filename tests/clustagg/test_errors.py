import pytest

import backends.errors
from clustagg import errors, steps
from clustagg.data import parse_points


def test_hierarchy():
    assert errors.InvalidParameterError is backends.utils.errors.InvalidParameterError
    for error in (errors.DataFormatError, errors.StepInputError):
        assert issubclass(error, errors.ClustAggError) and issubclass(error, ValueError)
    assert not issubclass(errors.ClustAggError, ValueError)  # e.g. a workflow step that failed twice


def test_bad_input_is_caught_as_value_error(tmp_path):
    with pytest.raises(ValueError, match="absent.json: missing or unreadable step output"):
        steps.load_json(tmp_path / "absent.json")
    with pytest.raises(errors.ClustAggError, match="data.csv, line 2: expected numbers"):
        parse_points(["1,2", "x,y", "3,4"], source="data.csv")
