import pytest

import backends
import cutting
from cutting import (
    CuttingError,
    FragmentTooWideError,
    InvalidParameterError,
    NoSeparatorError,
    OverheadTooLargeError,
)


def test_one_invalid_parameter_error_for_the_project():
    assert InvalidParameterError is backends.InvalidParameterError is cutting.errors.InvalidParameterError


@pytest.mark.parametrize("error", [NoSeparatorError, FragmentTooWideError, OverheadTooLargeError])
def test_refusals_are_cutting_errors_and_value_errors(error):
    assert issubclass(error, CuttingError) and issubclass(error, ValueError)


def test_bad_parameters_raise_the_shared_error(problem9):
    with pytest.raises(InvalidParameterError, match=r"^max_qubits must be a positive integer, got 0$"):
        cutting.cut_qaoa(problem9, 0)
    with pytest.raises(ValueError, match=r"^max_overhead must be a finite number >= 0, got -1$"):
        cutting.cut_qaoa(problem9, 5, max_overhead=-1)  # the shared error is a ValueError too
