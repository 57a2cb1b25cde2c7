"""Exact silhouette over all points, chunked, compiled and run on every core (numba).

The silhouette of point ``i`` in cluster ``A`` is ``(b - a) / max(a, b)`` with ``a`` the
mean distance from ``i`` to the other points of ``A`` and ``b`` the least mean distance
from ``i`` to the points of another cluster; the score is the mean over the points. This
is the definition of scikit-learn's ``silhouette_score`` (a point alone in its cluster
scores 0), computed without any distance matrix:

* points are sorted by cluster, so the distances from one point to one cluster are one
  contiguous, vectorised loop (a float32 reciprocal square root refined by one Newton step
  in float64, relative error about 2e-14; sums in float64);
* ``b`` needs only the clusters that can beat the best mean found so far: by Jensen's
  inequality the mean distance from ``i`` to a cluster is at least the distance from
  ``i`` to its centroid, so clusters are visited by increasing centroid distance and the
  rest are skipped once that bound reaches the best mean. The result is the same
  minimum; only work is saved (on well-separated clusters, most of it);
* points are processed ``chunk_size`` at a time, in parallel over the points of a chunk
  (numba ``prange``, ``NUMBA_NUM_THREADS`` threads, all cores by default). Besides
  copies of the points and labels sorted by cluster, memory is O(``chunk_size``).

The kernel is compiled once per machine (cached next to this module, or in numba's
user cache when that is not writable).
"""

from __future__ import annotations

from collections.abc import Iterator
from math import sqrt

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from backends.utils.validation import check_positive_int

from ._validation import check_points, check_round_seed
from .errors import InvalidParameterError

__all__ = ["silhouette_samples", "silhouette_score"]

#: Relative slack on the centroid bound, far above rounding error: a cluster is skipped
#: only when its bound exceeds the best mean by more than this.
_BOUND_SLACK = 1e-12

_FASTMATH = {"reassoc", "contract"}  # lets LLVM vectorise the sums; no change to IEEE special values

_FLOAT32_TINY = np.float32(np.finfo(np.float32).tiny)


@numba.njit(fastmath=_FASTMATH, inline="always", error_model="numpy", cache=True)
def _distance(squared: float) -> float:  # pragma: no cover - compiled
    """``sqrt(squared)`` for ``squared`` in [0, 4d]: float32 ``1/sqrt``, one float64 Newton step.

    The float32 estimate is within about 1e-7 (relative); the Newton step for ``1/sqrt``
    squares that error, to about 2e-14. It needs no division in float64 and runs
    twice as many lanes per instruction as a float64 square root. A zero distance
    stays exactly zero; one below about 1e-19 (data scaled to at most 1) comes out
    below 1e-19.
    """
    y = np.float64(np.float32(1.0) / np.sqrt(max(np.float32(squared), _FLOAT32_TINY)))
    y = y * (1.5 - 0.5 * squared * y * y)
    return squared * y


@numba.njit(fastmath=_FASTMATH, inline="always", error_model="numpy", cache=True)
def _distance_sum(Xt: NDArray[np.float64], i: int, lo: int, hi: int) -> float:  # pragma: no cover - compiled
    """Sum of distances from point ``i`` to points ``lo..hi-1`` of ``Xt`` (shape (d, n), in [-1, 1])."""
    d = Xt.shape[0]
    total = 0.0
    if d == 2:
        x0 = Xt[0, i]
        x1 = Xt[1, i]
        for j in range(lo, hi):
            t0 = Xt[0, j] - x0
            t1 = Xt[1, j] - x1
            total += _distance(t0 * t0 + t1 * t1)
        return total
    for j in range(lo, hi):
        squared = 0.0
        for f in range(d):
            t = Xt[f, j] - Xt[f, i]
            squared += t * t
        total += _distance(squared)
    return total


@numba.njit(parallel=True, fastmath=_FASTMATH, cache=True)
def _silhouette_block(
    Xt: NDArray[np.float64],
    starts: NDArray[np.int64],
    centroids: NDArray[np.float64],
    cluster_of: NDArray[np.int64],
    lo: int,
    hi: int,
) -> NDArray[np.float64]:  # pragma: no cover - compiled
    """Silhouettes of sorted points ``lo..hi-1``; cluster ``c`` is ``starts[c]..starts[c+1]-1``."""
    d = Xt.shape[0]
    k = starts.size - 1
    out = np.empty(hi - lo)
    for r in numba.prange(hi - lo):
        i = lo + r
        own = cluster_of[i]
        size = starts[own + 1] - starts[own]
        if size <= 1:
            out[r] = 0.0
            continue
        a = _distance_sum(Xt, i, starts[own], starts[own + 1]) / (size - 1)
        bound = np.empty(k)
        for c in range(k):
            squared = 0.0
            for f in range(d):
                t = centroids[c, f] - Xt[f, i]
                squared += t * t
            bound[c] = sqrt(squared)
        b = np.inf
        for c in np.argsort(bound):
            if c == own:
                continue
            if bound[c] * (1.0 - _BOUND_SLACK) >= b:
                break
            b = min(b, _distance_sum(Xt, i, starts[c], starts[c + 1]) / (starts[c + 1] - starts[c]))
        scale = max(a, b)
        out[r] = (b - a) / scale if scale > 0 else 0.0
    return out


def _blocks(X: ArrayLike, labels: ArrayLike, chunk_size: int) -> Iterator[NDArray[np.float64]]:
    """Silhouettes of the points sorted by cluster, ``chunk_size`` at a time."""
    points = check_points(X, name="X", min_samples=2)
    chunk = check_positive_int(chunk_size, "chunk_size")
    labels = np.asarray(labels)
    if labels.shape != (len(points),):
        raise InvalidParameterError(f"labels must have shape ({len(points)},), got {labels.shape}")
    _, cluster = np.unique(labels, return_inverse=True)
    cluster = cluster.ravel()
    counts = np.bincount(cluster)
    if counts.size < 2:
        raise InvalidParameterError(f"labels must name at least 2 clusters, got {counts.size}")
    order = np.argsort(cluster, kind="stable")
    cluster_of = cluster[order].astype(np.int64)
    starts = np.r_[0, np.cumsum(counts)].astype(np.int64)
    # The silhouette does not change with scale: a power of two brings every coordinate
    # into [-1, 1] exactly, so squared distances fit float32 (see _distance).
    _, exponent = np.frexp(np.abs(points).max())
    Xt = np.ascontiguousarray(np.ldexp(points[order], -exponent).T)
    centroids = np.stack([np.bincount(cluster_of, Xt[f]) for f in range(len(Xt))], axis=1) / counts[:, None]
    for lo in range(0, len(points), chunk):
        yield _silhouette_block(Xt, starts, centroids, cluster_of, lo, min(lo + chunk, len(points)))


def silhouette_samples(X: ArrayLike, labels: ArrayLike, *, chunk_size: int = 8192) -> NDArray[np.float64]:
    """Silhouette of every point, as scikit-learn's ``silhouette_samples`` (Euclidean).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of shape (n_samples,)
        Cluster of each point; at least 2 distinct values.
    chunk_size : int, default=8192
        Points computed per parallel block.

    Returns
    -------
    ndarray of shape (n_samples,)
        In [-1, 1]; 0 for a point alone in its cluster.

    Raises
    ------
    InvalidParameterError
        If ``labels`` has another length than ``X`` or fewer than 2 clusters.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [4.0, 0.0], [4.0, 1.0]])
    >>> silhouette_samples(X, [0, 0, 1, 1]).round(3).tolist()
    [0.754, 0.754, 0.754, 0.754]
    """
    labels = np.asarray(labels)
    order = np.argsort(np.unique(labels, return_inverse=True)[1].ravel(), kind="stable")
    values = np.empty(len(order))
    values[order] = np.concatenate(list(_blocks(X, labels, chunk_size)))
    return values


def silhouette_score(
    X: ArrayLike,
    labels: ArrayLike,
    *,
    sample_size: int | None = None,
    seed: int = 0,
    chunk_size: int = 8192,
) -> float:
    """Mean silhouette over all points, or over a seeded sample.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    labels : array-like of shape (n_samples,)
        At least 2 distinct values (in the sample, when sampling).
    sample_size : int, optional
        Score the points ``numpy.random.RandomState(seed).permutation(n_samples)[:sample_size]``,
        the sample scikit-learn's ``silhouette_score(sample_size=..., random_state=seed)``
        draws; ``None`` (or at least ``n_samples``) for all points.
    seed : int, default=0
    chunk_size : int, default=8192
        Points computed per parallel block; memory besides copies of ``X`` and
        ``labels`` sorted by cluster is O(``chunk_size``).

    Returns
    -------
    float
        In [-1, 1]; equal to scikit-learn's value up to rounding (about 1e-12).

    Raises
    ------
    InvalidParameterError
        On a bad parameter, or fewer than 2 clusters.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [4.0, 0.0], [4.0, 1.0]])
    >>> round(silhouette_score(X, [0, 0, 1, 1]), 3)
    0.754
    """
    points = check_points(X, name="X", min_samples=2)
    labels = np.asarray(labels)
    if sample_size is not None:
        sample_size = check_positive_int(sample_size, "sample_size")
        if sample_size < len(points):
            rows = np.random.RandomState(check_round_seed(seed)).permutation(len(points))[:sample_size]
            points, labels = points[rows], labels[rows]
    total = sum(float(block.sum()) for block in _blocks(points, labels, chunk_size))
    return total / len(points)
