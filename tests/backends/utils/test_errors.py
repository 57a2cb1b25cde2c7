"""One hierarchy: every package's base error and the project-wide parameter error derive from ProjectError."""

import pytest

from backends.utils.errors import InvalidParameterError, ProjectError


@pytest.mark.parametrize(
    ("module", "base"),
    [
        ("backends.errors", "BackendError"),
        ("bbqmis.mis.errors", "BBQMISError"),
        ("cutting.errors", "CuttingError"),
        ("clustagg.errors", "ClustAggError"),
    ],
)
def test_every_package_base_error_derives_from_project_error(module, base):
    import importlib

    errors = importlib.import_module(module)
    assert issubclass(getattr(errors, base), ProjectError)
    assert errors.InvalidParameterError is InvalidParameterError


def test_invalid_parameter_error_is_a_value_and_type_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)
    assert issubclass(InvalidParameterError, ProjectError)


def test_one_except_clause_catches_a_bad_graph_and_a_bad_parameter():
    from bbqmis import parse_dimacs
    from cutting import find_separators

    caught = []
    for call in (lambda: parse_dimacs(["p edge 2 1", "e 1 3"]), lambda: find_separators(None, 0)):
        try:
            call()
        except ProjectError as error:
            caught.append(type(error).__name__)
    assert caught == ["GraphFormatError", "InvalidParameterError"]
