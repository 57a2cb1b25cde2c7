"""Exceptions raised by :mod:`cutting`.

Every exception specific to :mod:`cutting` derives from :class:`CuttingError`; refusals
caused by the input (a graph without a small separator, a plan too wide or too costly)
also derive from :class:`ValueError`. A parameter out of range raises the project-wide
:class:`~backends.errors.InvalidParameterError`, re-exported here.
"""

from backends.errors import InvalidParameterError

__all__ = [
    "CuttingError",
    "InvalidParameterError",
    "NoSeparatorError",
    "FragmentTooWideError",
    "OverheadTooLargeError",
]


class CuttingError(Exception):
    """Base class for every error raised by :mod:`cutting`."""


class NoSeparatorError(CuttingError, ValueError):
    """No vertex separator within the requested bounds exists (or was found by the heuristic)."""


class FragmentTooWideError(CuttingError, ValueError):
    """A fragment of the cut circuit needs more qubits than allowed."""


class OverheadTooLargeError(CuttingError, ValueError):
    """The sampling overhead of the cuts exceeds the allowed maximum."""
