"""The parameter check that only clustering needs; the generic ones are in :mod:`backends.validation`."""

from __future__ import annotations

import numpy as np

from backends.errors import InvalidParameterError

__all__ = ["check_points"]


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
