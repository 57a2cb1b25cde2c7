"""Parameter checks for :mod:`clustagg`; every message names the parameter.

The generic checks come from :mod:`bbqmis._validation`; this module adds the ones that
only clustering needs.
"""

from __future__ import annotations

import numbers

import numpy as np

from bbqmis._validation import check_choice, check_nonnegative, check_positive_int

from .errors import InvalidParameterError

__all__ = [
    "check_choice",
    "check_interval",
    "check_nonnegative",
    "check_points",
    "check_positive_int",
    "check_seed",
]


def check_interval(value, name: str, low: float, high: float) -> float:
    """Return ``value`` as a float, or raise unless ``low < value <= high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low < value <= high:
        raise InvalidParameterError(f"{name} must be a number in ({low:g}, {high:g}], got {value!r}")
    return float(value)


def check_seed(seed, name: str = "seed") -> int:
    """Return ``seed`` as a non-negative int (seeds are offset per iteration, so no Generators)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidParameterError(f"{name} must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_points(points, name: str = "points", min_samples: int = 2) -> np.ndarray:
    """Return ``points`` as a C-contiguous float64 array of shape (n_samples, n_features).

    Raises
    ------
    InvalidParameterError
        If the array is not 2-D, has fewer than ``min_samples`` rows, no column, or a
        value that is not finite.
    """
    try:
        array = np.ascontiguousarray(points, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidParameterError(f"{name} must be a numeric array, got {type(points).__name__}") from error
    if array.ndim != 2 or array.shape[1] < 1:
        raise InvalidParameterError(f"{name} must have shape (n_samples, n_features), got {array.shape}")
    if array.shape[0] < min_samples:
        raise InvalidParameterError(f"{name} must have at least {min_samples} samples, got {array.shape[0]}")
    if not np.isfinite(array).all():
        row = int(np.flatnonzero(~np.isfinite(array).all(axis=1))[0])
        raise InvalidParameterError(f"{name} must be finite; row {row} is {array[row].tolist()}")
    return array
