"""Exceptions raised by :mod:`clustagg`.

Every exception specific to :mod:`clustagg` derives from :class:`ClustAggError`. Bad
parameters raise the project-wide :class:`~backends.utils.errors.InvalidParameterError`
(re-exported here), so one ``except`` clause covers every package. Errors caused by bad
input also derive from :class:`ValueError`.
"""

from backends.utils.errors import InvalidParameterError, ProjectError

__all__ = ["ClustAggError", "DataFormatError", "InvalidParameterError", "StepInputError"]


class ClustAggError(ProjectError):
    """Base class for the errors specific to :mod:`clustagg`.

    Examples
    --------
    >>> from clustagg import ClustAggError, parse_points
    >>> try:
    ...     parse_points(["1,2"])
    ... except ClustAggError as error:
    ...     print(type(error).__name__)
    DataFormatError
    """


class DataFormatError(ClustAggError, ValueError):
    """A points file cannot be parsed; the message names the file and the line.

    Examples
    --------
    >>> from clustagg import DataFormatError, parse_points
    >>> try:
    ...     parse_points(["x,y", "1,2", "3,four"], source="points.csv")
    ... except DataFormatError as error:
    ...     print(error)
    points.csv, line 3: expected numbers, got '3,four'
    """


class StepInputError(ClustAggError, ValueError):
    """A workflow step's input file is missing, truncated or belongs to another run.

    Examples
    --------
    >>> import tempfile
    >>> from clustagg import StepInputError
    >>> from clustagg.steps import load_json, save_json
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_json(f"{folder}/score.json", {"seed": 1})
    ...     try:
    ...         load_json(f"{folder}/score.json", seed=2)
    ...     except StepInputError as error:
    ...         print(str(error).removeprefix(folder))
    /score.json: not the output of the step with seed 2
    """
