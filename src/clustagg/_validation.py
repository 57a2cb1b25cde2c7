"""The parameter checks that only clustering needs; the generic ones are in :mod:`backends.validation`."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from backends.errors import InvalidParameterError
from backends.validation import check_seed

__all__ = ["check_points", "check_round_seed"]


def check_points(points: ArrayLike | None, name: str = "points", min_samples: int = 2) -> NDArray[np.float64]:
    """Return ``points`` as a C-contiguous float64 array of shape (n_samples, n_features).

    Parameters
    ----------
    points : array-like of shape (n_samples, n_features)
        ``None`` is refused.
    name : str, default="points"
        Name used in error messages.
    min_samples : int, default=2
        Fewest rows accepted.

    Returns
    -------
    ndarray of shape (n_samples, n_features), dtype float64

    Raises
    ------
    InvalidParameterError
        If ``points`` is None or not numeric, or the array is not 2-D, has fewer than
        ``min_samples`` rows, no column, or a value that is not finite.

    Examples
    --------
    >>> check_points([[0, 1], [2, 3]]).dtype
    dtype('float64')
    """
    if points is None:
        raise InvalidParameterError(f"{name} must be an array of shape (n_samples, n_features), got None")
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


def check_round_seed(seed: object, name: str = "seed") -> int:
    """Return ``seed`` as an int >= 0; ``None`` is refused (a round always has a seed).

    This is :func:`backends.validation.check_seed` with ``optional=False``, typed as ``int``.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is not a non-negative integer.

    Examples
    --------
    >>> check_round_seed(3)
    3
    """
    value = check_seed(seed, name, optional=False)
    if value is None:  # pragma: no cover - optional=False never returns None
        raise InvalidParameterError(f"{name} must be an integer >= 0, got None")
    return value
