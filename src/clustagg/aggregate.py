"""From base clusterings to one clustering: candidates, conflict graph, MWIS QUBO, labels.

Every cluster of every base clustering is a candidate. Two candidates conflict when they
share a point; an independent set of the conflict graph is a set of non-overlapping
clusters, and the heaviest one (weights |C_i| / max_j |C_j|) covers the most points.

Tie-break
---------
A base clustering that covers every point is always an optimum (weight ``N / max|C|``),
so optima tie heavily. Every candidate gets a bonus ``delta = 1 / (2 n max|C|)``
(``n`` candidates) on top of its weight, which breaks ties toward *more* clusters, the
choice that reproduces the reference run. It cannot change the optimum weight: see
:func:`mwis_problem`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np
from numpy.typing import ArrayLike, NDArray

from backends.utils.validation import check_positive_int
from bbqmis.mis.problem import MISProblem

from ._validation import check_candidate_ids, check_points, check_round_seed, first_overlap
from .errors import InvalidParameterError
from .silhouette import silhouette_score

__all__ = ["Candidates", "assign_labels", "conflict_graph", "mwis_problem", "score"]


@dataclass(frozen=True)
class Candidates:
    """The candidate clusters of one round.

    Attributes
    ----------
    labelings : ndarray of shape (n_algorithms, n_samples), dtype int32
        Labels ``0..k_a-1`` of each base clustering. Any non-negative integer labels are
        accepted and renumbered ``0..k_a-1`` in increasing order, dropping labels no point
        carries, so every candidate holds at least one point.
    algorithms : tuple of str
        Name of each row.

    Raises
    ------
    InvalidParameterError
        If ``labelings`` is not an integer array of shape ``(len(algorithms), n_samples)``
        or has a negative label.

    Examples
    --------
    Two base clusterings of four points; candidates 0, 1 are ``a``'s clusters and 2, 3 ``b``'s:

    >>> import numpy as np
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> candidates.offsets.tolist(), candidates.sizes.tolist()
    ([0, 2, 4], [2, 2, 1, 3])

    Unused labels (k-means may leave a cluster empty) are dropped:

    >>> Candidates(np.array([[0, 0, 7, 7], [5, 1, 1, 1]]), ("a", "b")).labelings.tolist()
    [[0, 0, 1, 1], [1, 0, 0, 0]]
    """

    labelings: NDArray[np.integer[Any]]
    algorithms: tuple[str, ...]

    def __post_init__(self) -> None:
        labelings = np.asarray(self.labelings)
        if labelings.ndim != 2 or len(labelings) != len(self.algorithms):
            raise InvalidParameterError(
                f"labelings must have shape ({len(self.algorithms)}, n_samples), got {labelings.shape}"
            )
        if labelings.dtype.kind not in "iu":
            raise InvalidParameterError(f"labelings must be integers, got dtype {labelings.dtype}")
        if labelings.size and labelings.min() < 0:
            raise InvalidParameterError("labelings must be non-negative (noise is a cluster of its own)")
        dense = np.empty(labelings.shape, dtype=np.int32)
        for row, labels in enumerate(labelings):
            dense[row] = np.unique(labels, return_inverse=True)[1].reshape(-1)
        object.__setattr__(self, "labelings", dense)

    @cached_property
    def offsets(self) -> NDArray[np.int64]:
        """Global id of each algorithm's cluster 0, shape (n_algorithms + 1,); the last is n."""
        return np.r_[0, np.cumsum(self.labelings.max(axis=1) + 1)]

    @property
    def global_labels(self) -> NDArray[np.int64]:
        """Labelings shifted to global candidate ids (per-rank offsets), shape (n_algorithms, n_samples)."""
        return self.labelings + self.offsets[:-1, None]

    @cached_property
    def sizes(self) -> NDArray[np.int64]:
        """Points per candidate, shape (n_candidates,)."""
        return np.bincount(self.global_labels.ravel(), minlength=int(self.offsets[-1]))

    def origin(self, candidate: int) -> dict[str, Any]:
        """``{"algorithm", "cluster", "size"}`` of a global candidate id.

        Examples
        --------
        >>> import numpy as np
        >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
        >>> candidates.origin(3)
        {'algorithm': 'b', 'cluster': 1, 'size': 3}
        """
        a = int(np.searchsorted(self.offsets, candidate, side="right") - 1)
        return {
            "algorithm": self.algorithms[a],
            "cluster": int(candidate - self.offsets[a]),
            "size": int(self.sizes[candidate]),
        }


def conflict_graph(candidates: Candidates) -> nx.Graph:
    """Graph of candidates, with an edge between every two clusters that share a point.

    Parameters
    ----------
    candidates : Candidates

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1`` (global candidate ids) with attributes ``algorithm``,
        ``cluster`` and ``size``. Clusters of one base clustering never conflict.

    Examples
    --------
    >>> import numpy as np
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> sorted(conflict_graph(candidates).edges)
    [(0, 2), (0, 3), (1, 3)]
    """
    labels = candidates.global_labels.astype(np.int64)
    n = int(candidates.offsets[-1])
    graph: nx.Graph = nx.Graph()
    graph.add_nodes_from((c, candidates.origin(c)) for c in range(n))
    for a in range(len(labels)):
        for b in range(a + 1, len(labels)):
            pairs = np.unique(labels[a] * n + labels[b])
            graph.add_edges_from(zip((pairs // n).tolist(), (pairs % n).tolist(), strict=True))
    return graph


def mwis_problem(graph: nx.Graph) -> MISProblem:
    """Build the reference's MWIS QUBO, with the tie-break bonus.

    Weights ``w_i = |C_i| / M + delta`` with ``M = max_j |C_j|`` and
    ``delta = 1 / (2 n M)``; penalty ``lambda = n`` (at least 2, which only matters for
    a single candidate).

    Why the bonus cannot change the optimum weight: for independent sets ``S`` and ``T``
    the unperturbed weights ``W(S) = sum_{i in S} |C_i| / M`` are multiples of ``1 / M``,
    so ``W(S) != W(T)`` implies ``|W(S) - W(T)| >= 1 / M``. The bonuses differ by
    ``delta * ||S| - |T|| <= delta * n = 1 / (2M) < 1 / M``, so the perturbed order of
    ``S`` and ``T`` is the unperturbed one; only sets of equal weight are reordered, the
    one with more clusters first. The penalty exceeds every weight (``n >= 2 > 1 + delta``),
    so every QUBO optimum is an independent set.

    Parameters
    ----------
    graph : networkx.Graph
        From :func:`conflict_graph` (node attribute ``size``).

    Returns
    -------
    MISProblem
        Its graph's nodes also carry ``weight = 2 n |C_i| + 1``, the same weights times
        ``2 n M``, as exact integers for exact solvers.

    Examples
    --------
    Weights are the cluster sizes over the largest (3 points) plus the bonus ``1 / 24``:

    >>> import numpy as np
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> problem = mwis_problem(conflict_graph(candidates))
    >>> (problem.weights * 24).round(6).tolist(), problem.penalty
    ([17.0, 17.0, 9.0, 25.0], 4.0)
    """
    sizes = np.array([graph.nodes[c]["size"] for c in graph.nodes], dtype=np.int64)
    n = len(sizes)
    integer = 2 * n * sizes + 1
    nx.set_node_attributes(graph, dict(zip(graph.nodes, integer.tolist(), strict=True)), "weight")
    return MISProblem(graph, weights=integer / (2 * n * sizes.max()), penalty=max(n, 2))


def assign_labels(
    X: ArrayLike, candidates: Candidates, chosen: Iterable[int], *, chunk_size: int = 65536
) -> NDArray[np.int32]:
    """Labels of the aggregated clustering.

    Points of a chosen cluster keep it; the others join the chosen cluster with the
    nearest centroid.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    candidates : Candidates
    chosen : iterable of int
        Global ids of pairwise non-overlapping candidates (at least one).
    chunk_size : int, default=65536
        Points per distance block (the block is ``chunk_size x len(chosen)``).

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32
        ``0..len(chosen)-1`` in the order of ``sorted(chosen)``.

    Raises
    ------
    InvalidParameterError
        If ``chosen`` is empty or names no candidate id (an id outside ``0..n-1``, a
        float or a bool), or two chosen clusters share a point.

    Examples
    --------
    Keep ``b``'s large cluster (candidate 3); point 0 joins the nearest chosen centroid:

    >>> import numpy as np
    >>> X = np.array([[0.0], [5.0], [6.0], [7.0]])
    >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
    >>> assign_labels(X, candidates, [3]).tolist()
    [0, 0, 0, 0]
    >>> assign_labels(X, candidates, [0, 1]).tolist()
    [0, 0, 1, 1]
    """
    points = check_points(X, name="X", min_samples=1)
    ids = check_candidate_ids(chosen, int(candidates.offsets[-1]))
    position = np.full(int(candidates.offsets[-1]), -1, dtype=np.int64)
    position[ids] = np.arange(ids.size)
    overlap = first_overlap(candidates.global_labels, ids)
    if overlap is not None:
        raise InvalidParameterError(f"chosen clusters overlap at point {overlap[2]}")
    hits = position[candidates.global_labels]
    labels = hits.max(axis=0)
    inside = labels >= 0
    sums = np.stack(
        [np.bincount(labels[inside], points[inside, j], ids.size) for j in range(points.shape[1])], 1
    )
    centroids = sums / np.bincount(labels[inside], minlength=ids.size)[:, None]
    outside = np.flatnonzero(~inside)
    for start in range(0, outside.size, chunk_size):
        block = outside[start : start + chunk_size]
        distance = ((points[block, None, :] - centroids[None]) ** 2).sum(-1)
        labels[block] = np.argmin(distance, axis=1)
    return labels.astype(np.int32)


def score(
    X: NDArray[np.floating[Any]],
    labels: NDArray[np.integer[Any]],
    *,
    sample_size: int | None = 20000,
    seed: int = 0,
) -> float:
    """Silhouette of a clustering, on a seeded sample or exact.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    labels : ndarray of shape (n_samples,)
    sample_size : int or None, default=20000
        Points in the seeded sample (within about 0.001 of the exact score on the reference
        data; the sample scikit-learn's ``silhouette_score`` draws with ``random_state=seed``);
        ``None`` for the exact score over all points. Both are computed by
        :func:`clustagg.silhouette.silhouette_score`, in chunks of bounded memory, never as a
        full n x n matrix.
    seed : int, default=0

    Returns
    -------
    float
        In [-1, 1]; ``-1`` for a single cluster (the silhouette is undefined there).
        Singletons score 0 (scikit-learn), not 1 as in the reference C++ code.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [4.0, 0.0], [4.0, 1.0]])
    >>> round(score(X, np.array([0, 0, 1, 1]), sample_size=None), 3)
    0.754
    >>> score(X, np.zeros(4, dtype=int))
    -1.0
    """
    if sample_size is not None:
        sample_size = check_positive_int(sample_size, "sample_size")
    if len(np.unique(labels)) < 2:
        return -1.0
    return silhouette_score(X, labels, sample_size=sample_size, seed=check_round_seed(seed))
