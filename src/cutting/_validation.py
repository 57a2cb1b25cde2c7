"""Parameter checks of :mod:`cutting` beyond :mod:`bbqmis._validation`; messages name the parameter."""

from __future__ import annotations

import numbers

from bbqmis.errors import InvalidParameterError

__all__ = ["check_nonnegative_int", "check_probability"]


def check_nonnegative_int(value, name: str) -> int:
    """Return ``value`` as an int, or raise naming ``name`` when it is not >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidParameterError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_probability(value, name: str) -> float:
    """Return ``value`` as a float, or raise naming ``name`` when it is not in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise InvalidParameterError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)
