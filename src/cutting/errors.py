"""Exceptions raised by :mod:`cutting`.

Every exception specific to :mod:`cutting` derives from :class:`CuttingError`; refusals
caused by the input (a graph without a small separator, a plan too wide or too costly)
also derive from :class:`ValueError`. A parameter out of range raises the project-wide
:class:`~backends.utils.errors.InvalidParameterError`, re-exported here.
"""

from backends.utils.errors import InvalidParameterError, ProjectError

__all__ = [
    "CuttingError",
    "InvalidParameterError",
    "NoSeparatorError",
    "FragmentTooWideError",
    "OverheadTooLargeError",
]


class CuttingError(ProjectError):
    """Base class for every error raised by :mod:`cutting`.

    Examples
    --------
    >>> import networkx as nx
    >>> from cutting import CuttingError, find_separators
    >>> try:
    ...     find_separators(nx.complete_graph(4), 1, max_size=1)
    ... except CuttingError as exc:
    ...     print(type(exc).__name__)
    NoSeparatorError
    """


class NoSeparatorError(CuttingError, ValueError):
    """No vertex separator within the requested bounds exists (or was found by the heuristic).

    Examples
    --------
    >>> import networkx as nx
    >>> from cutting import NoSeparatorError, find_separators
    >>> try:
    ...     find_separators(nx.star_graph(4), 2, max_size=0)  # only removing the hub splits a star
    ... except NoSeparatorError as exc:
    ...     print(exc)
    no separator of at most 0 vertices leaves components of at most 2 vertices in this 5-vertex graph
    """


class FragmentTooWideError(CuttingError, ValueError):
    """A fragment of the cut circuit needs more qubits than allowed.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting import FragmentTooWideError, cut_qaoa
    >>> try:
    ...     cut_qaoa(MISProblem(nx.path_graph(5)), 2, separator=[2])
    ... except FragmentTooWideError as exc:
    ...     print(exc)
    a fragment needs 3 qubits (2 vertices + 1 cut wires), more than max_qubits=2
    """


class OverheadTooLargeError(CuttingError, ValueError):
    """The sampling overhead of the cuts exceeds the allowed maximum.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.mis import MISProblem
    >>> from cutting import OverheadTooLargeError, cut_qaoa
    >>> try:
    ...     cut_qaoa(MISProblem(nx.path_graph(5)), 3, separator=[2], max_overhead=10)
    ... except OverheadTooLargeError as exc:
    ...     print(exc)
    1 wire cuts have sampling overhead 16**1 = 16, more than max_overhead=10
    """
