"""Exceptions raised by :mod:`cutting`.

Every exception derives from :class:`CuttingError`; refusals caused by the input
(a graph without a small separator, a plan too wide or too costly) also derive from
:class:`ValueError`.
"""

__all__ = ["CuttingError", "NoSeparatorError", "FragmentTooWideError", "OverheadTooLargeError"]


class CuttingError(Exception):
    """Base class for every error raised by :mod:`cutting`."""


class NoSeparatorError(CuttingError, ValueError):
    """No vertex separator within the requested bounds exists (or was found by the heuristic)."""


class FragmentTooWideError(CuttingError, ValueError):
    """A fragment of the cut circuit needs more qubits than allowed."""


class OverheadTooLargeError(CuttingError, ValueError):
    """The sampling overhead of the cuts exceeds the allowed maximum."""
