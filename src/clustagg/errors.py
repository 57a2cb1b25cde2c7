"""Exceptions raised by :mod:`clustagg`.

Bad parameters raise :class:`bbqmis.errors.InvalidParameterError` (re-exported here), so
one ``except`` clause covers both packages. Errors caused by bad input also derive from
:class:`ValueError`.
"""

from bbqmis.errors import InvalidParameterError

__all__ = ["ClustAggError", "DataFormatError", "InvalidParameterError", "StepInputError"]


class ClustAggError(Exception):
    """Base class for the errors specific to :mod:`clustagg`."""


class DataFormatError(ClustAggError, ValueError):
    """A points file cannot be parsed; the message names the file and the line."""


class StepInputError(ClustAggError, ValueError):
    """A workflow step's input file is missing, truncated or belongs to another run."""
