"""Exceptions raised by :mod:`bbqmis`.

Every exception specific to :mod:`bbqmis` derives from :class:`BBQMISError`; errors
caused by bad input also derive from :class:`ValueError`, so callers that only know the
standard library can still catch them. A parameter out of range raises the
project-wide :class:`~backends.utils.errors.InvalidParameterError`, re-exported here.
"""

from backends.utils.errors import InvalidParameterError, ProjectError

__all__ = ["BBQMISError", "GraphFormatError", "InvalidParameterError"]


class BBQMISError(ProjectError):
    """Base class for every error specific to :mod:`bbqmis`.

    Examples
    --------
    >>> from bbqmis import BBQMISError, read_graph
    >>> try:
    ...     read_graph("no/such/graph.col")
    ... except BBQMISError as error:
    ...     print(type(error).__name__)
    GraphFormatError
    """


class GraphFormatError(BBQMISError, ValueError):
    """A graph file cannot be parsed; the message names the file and the line.

    Examples
    --------
    >>> from bbqmis import GraphFormatError, parse_dimacs
    >>> try:
    ...     parse_dimacs(["p edge 3 1", "e 1 4"], source="tiny.col")
    ... except GraphFormatError as error:
    ...     print(error)
    tiny.col:2: expected a vertex between 1 and n=3, found 4
    """
