"""Exceptions raised by :mod:`bbqmis`.

Every exception specific to :mod:`bbqmis` derives from :class:`BBQMISError`; errors
caused by bad input also derive from :class:`ValueError`, so callers that only know the
standard library can still catch them. A parameter out of range raises the
project-wide :class:`~backends.errors.InvalidParameterError`, re-exported here.
"""

from backends.errors import InvalidParameterError

__all__ = ["BBQMISError", "GraphFormatError", "InvalidParameterError"]


class BBQMISError(Exception):
    """Base class for every error specific to :mod:`bbqmis`."""


class GraphFormatError(BBQMISError, ValueError):
    """A graph file cannot be parsed; the message names the file and the line."""
