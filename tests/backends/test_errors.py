"""One exception hierarchy: every backend error is a BackendError, bad input is a ValueError."""

import pytest

from backends import errors
from backends.errors import (
    BackendConnectionError,
    BackendError,
    BackendUnavailableError,
    CircuitTooWideError,
    InvalidParameterError,
    MissingTokenError,
    UnknownBackendError,
)


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (UnknownBackendError, ValueError),
        (CircuitTooWideError, ValueError),
        (MissingTokenError, ValueError),
        (BackendUnavailableError, ImportError),
        (BackendConnectionError, ConnectionError),
    ],
)
def test_backend_errors_are_backend_errors_and_builtin_errors(error, builtin):
    assert issubclass(error, BackendError) and issubclass(error, builtin)
    with pytest.raises(builtin, match="^why$"):
        raise error("why")


def test_invalid_parameter_error_is_value_and_type_error_but_not_a_backend_error():
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)
    assert not issubclass(InvalidParameterError, BackendError)  # raised by every package, not just backends


def test_all_lists_every_exception_of_the_module():
    defined = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and value.__module__ == errors.__name__
    }
    assert set(errors.__all__) == defined | {"InvalidParameterError"}  # re-exported from backends.utils


def test_one_invalid_parameter_error_for_the_whole_project():
    import bbqmis
    import clustagg
    import cutting

    assert bbqmis.InvalidParameterError is cutting.InvalidParameterError is clustagg.InvalidParameterError
    assert InvalidParameterError is bbqmis.InvalidParameterError
