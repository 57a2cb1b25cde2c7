"""Exceptions raised by :mod:`bbqmis`.

Every exception derives from :class:`BBQMISError`. Errors caused by bad input also
derive from :class:`ValueError`, so callers that only know the standard library can
still catch them.
"""

__all__ = ["BBQMISError", "GraphFormatError", "InvalidParameterError", "SearchError"]


class BBQMISError(Exception):
    """Base class for every error raised by :mod:`bbqmis`."""


class GraphFormatError(BBQMISError, ValueError):
    """A graph file cannot be parsed; the message names the file and the line."""


class InvalidParameterError(BBQMISError, ValueError):
    """A parameter has a value outside its documented range."""


class SearchError(BBQMISError):
    """The colouring search cannot continue (for example, a checkpoint does not match the graph)."""
