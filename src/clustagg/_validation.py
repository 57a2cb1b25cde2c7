"""Parameter checks only clustering needs; the generic ones are in :mod:`backends.utils.validation`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from numpy.typing import ArrayLike, NDArray

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_seed

__all__ = ["MAX_ABS_VALUE", "check_candidate_ids", "check_points", "check_round_seed", "first_overlap"]

#: Largest magnitude :func:`check_points` accepts: squared distances between such points
#: (up to ``4 * n_features * MAX_ABS_VALUE**2``) stay far below the float64 limit (1.8e308).
MAX_ABS_VALUE = 1e150


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
        If ``points`` is None, complex or not numeric, or the array is not 2-D, has fewer
        than ``min_samples`` rows, no column, or a value that is not finite or exceeds
        :data:`MAX_ABS_VALUE` in magnitude (distances between such points overflow).

    Examples
    --------
    >>> check_points([[0, 1], [2, 3]]).dtype
    dtype('float64')
    >>> try:
    ...     check_points([[0.0, 1.0], [2e200, 3.0]])
    ... except ValueError as error:
    ...     print(error)
    points must have values of magnitude at most 1e+150 (distances overflow beyond); row 1 is [2e+200, 3.0]
    """
    if points is None:
        raise InvalidParameterError(f"{name} must be an array of shape (n_samples, n_features), got None")
    try:
        raw = np.asarray(points)
        complex_values = raw.dtype.kind == "c"
        if not complex_values:
            array = np.ascontiguousarray(raw, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidParameterError(f"{name} must be a numeric array, got {type(points).__name__}") from error
    if complex_values:  # a cast would silently drop the imaginary parts
        raise InvalidParameterError(f"{name} must be real numbers, got complex values ({raw.dtype})")
    if array.ndim != 2 or array.shape[1] < 1:
        raise InvalidParameterError(f"{name} must have shape (n_samples, n_features), got {array.shape}")
    if array.shape[0] < min_samples:
        raise InvalidParameterError(f"{name} must have at least {min_samples} samples, got {array.shape[0]}")
    if not np.isfinite(array).all():
        row = int(np.flatnonzero(~np.isfinite(array).all(axis=1))[0])
        raise InvalidParameterError(f"{name} must be finite; row {row} is {array[row].tolist()}")
    if array.size and np.abs(array).max() > MAX_ABS_VALUE:
        row = int(np.flatnonzero((np.abs(array) > MAX_ABS_VALUE).any(axis=1))[0])
        raise InvalidParameterError(
            f"{name} must have values of magnitude at most {MAX_ABS_VALUE:g} (distances overflow beyond); "
            f"row {row} is {array[row].tolist()}"
        )
    return array


def check_candidate_ids(ids: object, n_candidates: int, name: str = "chosen") -> NDArray[np.int64]:
    """Return ``ids``, global candidate ids in ``0..n_candidates-1``, sorted without repeats.

    Parameters
    ----------
    ids : iterable of int
        For example a selection's ``chosen``; at least one id. Booleans, floats and
        strings are refused, not truncated.
    n_candidates : int
        Number of candidate clusters.
    name : str, default="chosen"
        Name used in error messages (a selection file's path may precede it).

    Returns
    -------
    ndarray of shape (n_ids,), dtype int64

    Raises
    ------
    InvalidParameterError
        If ``ids`` is not a non-empty collection of integers in ``0..n_candidates-1``;
        the message names the first bad entry by its index.

    Examples
    --------
    >>> check_candidate_ids([3, 1, 3], 4).tolist()
    [1, 3]
    >>> try:
    ...     check_candidate_ids([1, -1], 22, name="selection.json: chosen")
    ... except ValueError as error:
    ...     print(error)
    selection.json: chosen[1] must be a candidate id in 0..21, found -1
    """
    if isinstance(ids, str | bytes | Mapping) or not isinstance(ids, Iterable):
        raise InvalidParameterError(f"{name} must be a list of candidate ids, found {ids!r}")
    values = list(ids)
    if not values:
        raise InvalidParameterError(f"{name} must name at least one candidate cluster, found none")
    for index, value in enumerate(values):
        shown = value.item() if isinstance(value, np.generic) else value
        if isinstance(shown, bool) or not isinstance(shown, int) or not 0 <= shown < n_candidates:
            raise InvalidParameterError(
                f"{name}[{index}] must be a candidate id in 0..{n_candidates - 1}, found {shown!r}"
            )
    return np.array(sorted(set(map(int, values))), dtype=np.int64)


def check_round_seed(seed: object, name: str = "seed") -> int:
    """Return ``seed`` as an int >= 0; ``None`` is refused (a round always has a seed).

    This is :func:`backends.utils.validation.check_seed` with ``optional=False``, typed as ``int``.

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


def first_overlap(global_labels: NDArray[np.int64], ids: NDArray[np.int64]) -> tuple[int, int, int] | None:
    """The first point that two of the candidates ``ids`` both hold, or None when they are disjoint.

    Parameters
    ----------
    global_labels : ndarray of shape (n_clusterings, n_samples)
        Each point's global candidate id in each clustering (``Candidates.global_labels``).
    ids : ndarray of shape (n_ids,)
        Global candidate ids, as :func:`check_candidate_ids` returns them.

    Returns
    -------
    (int, int, int) or None
        ``(first, second, point)``: two of ``ids`` (in clustering order) that share
        ``point``, the lowest such point.

    Examples
    --------
    >>> labels = np.array([[0, 0, 1, 1], [2, 3, 3, 3]])
    >>> first_overlap(labels, np.array([0, 3])), first_overlap(labels, np.array([0, 1]))
    ((0, 3, 1), None)
    """
    hits = np.isin(global_labels, ids)
    shared = np.flatnonzero(hits.sum(axis=0) > 1)
    if not shared.size:
        return None
    point = int(shared[0])
    first, second = global_labels[hits[:, point], point][:2].tolist()
    return first, second, point
