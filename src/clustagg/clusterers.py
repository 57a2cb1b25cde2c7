"""The three base clusterings, with their per-round parameters.

Each round draws its parameters from its own seed (the run's seed plus the round index,
as the reference does): k-means with ``k`` in 4..10 and random data points as initial
centres, DBSCAN with ``eps`` in [1.2, 4.5) and ``min_samples=10``, single linkage with
``k`` in 4..10. Labels are returned as ``0..k-1``; DBSCAN's noise points form one more
cluster, ``k``.

Memory
------
scikit-learn's ``DBSCAN`` stores every point's neighbourhood: at ``eps=4.47`` on the
80,000 reference points that is about 10,000 neighbours per point and 9 GB.
:class:`GridDBSCAN` gives the same clusters without any neighbourhood list:

1. core points from neighbour *counts*: on a grid of side ``eps / sqrt(d)`` a cell of at
   least ``min_samples`` points holds core points only; the points of sparser cells are
   counted with ``KDTree.query_radius(count_only=True)``, in chunks (whole tree nodes
   inside the ball are counted without visiting their points);
2. core points are put on a grid of side ``eps / sqrt(d)``, so two core points in the
   same cell are within ``eps``: each cell is connected. Two cells near enough to hold
   points within ``eps`` are joined (union-find) when a dual-tree pair count
   (``cKDTree.count_neighbors``) finds at least one pair within ``eps``;
3. border points take the cluster of their nearest core point within ``eps``.

Memory stays O(n); see the README for measured numbers. Clusters are numbered in order of
their first core point, like scikit-learn. The one documented difference: a border
point within ``eps`` of two clusters joins its *nearest* core point's cluster, whereas
scikit-learn gives it to whichever cluster's expansion reaches it first.

Single linkage (:class:`SingleLinkage`) cuts the ``k - 1`` longest edges of the
Euclidean minimum spanning tree. In 2-D and 3-D that tree is a subgraph of the Delaunay
triangulation (:func:`delaunay_graph`), so scipy's ``minimum_spanning_tree`` of the
Delaunay edges gives exactly the clusters of full single linkage in O(n log n) (about
1 s on the reference data, against about 26 s for ``AgglomerativeClustering(linkage="single")``
without connectivity, which remains the fallback in other dimensions). scipy's
``linkage`` would need the full distance matrix: it is never used.

Per-round parameters may also be given whole (:mod:`clustagg.reference`): k-means then
starts from the listed rows of ``X`` (``init_rows``) and runs with the given ``tol``.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial import Delaunay, QhullError, cKDTree
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import KDTree

from backends.utils.validation import check_choice, check_interval, check_positive_int

from ._validation import check_points, check_round_seed
from .errors import InvalidParameterError

__all__ = [
    "ALGORITHMS",
    "MAX_CLUSTERS",
    "GridDBSCAN",
    "SingleLinkage",
    "delaunay_graph",
    "draw_parameters",
    "fit_labels",
    "make_clusterer",
]

logger = logging.getLogger(__name__)

#: The base clusterings, in rank order (rank ``r`` of a 3-process run computes ``ALGORITHMS[r]``).
ALGORITHMS = ("kmeans", "dbscan", "hclust")

#: The most clusters k-means or single linkage is asked for in a round: a run needs at
#: least this many points.
MAX_CLUSTERS = 10


class GridDBSCAN(ClusterMixin, BaseEstimator):
    """DBSCAN in O(n) memory: core points by counting, clusters by a grid and union-find.

    Parameters
    ----------
    eps : float, default=0.5
        Neighbourhood radius (Euclidean, inclusive).
    min_samples : int, default=5
        Neighbours (the point itself included) that make a point a core point.
    chunk_size : int, default=4096
        Points per neighbour-count query.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point, ``-1`` for noise.
    core_sample_indices_ : ndarray of shape (n_core_samples,)
        Indices of the core points.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [5.0, 5.0]])
    >>> GridDBSCAN(eps=1.0, min_samples=3).fit(X).labels_.tolist()
    [0, 0, 0, -1]
    """

    def __init__(self, eps: float = 0.5, *, min_samples: int = 5, chunk_size: int = 4096) -> None:
        self.eps = eps
        self.min_samples = min_samples
        self.chunk_size = chunk_size

    def fit(self, X: ArrayLike, y: object = None) -> GridDBSCAN:
        """Cluster ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : GridDBSCAN

        Examples
        --------
        Three points within ``eps`` of each other are core points; the far one is noise:

        >>> X = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [5.0, 5.0]])
        >>> model = GridDBSCAN(eps=1.0, min_samples=3).fit(X)
        >>> model.labels_.tolist(), model.core_sample_indices_.tolist()
        ([0, 0, 0, -1], [0, 1, 2])
        """
        eps = check_interval(self.eps, "eps", 0.0, np.inf)
        min_samples = check_positive_int(self.min_samples, "min_samples")
        chunk = check_positive_int(self.chunk_size, "chunk_size")
        X = check_points(X, name="X", min_samples=1)
        is_core = _core_points(X, eps, min_samples, chunk)
        core = np.flatnonzero(is_core)
        labels = np.full(len(X), -1, dtype=np.int64)
        if core.size:
            _, first, core_labels = np.unique(
                _connect_core_points(X[core], eps), return_index=True, return_inverse=True
            )
            # Number clusters by their first core point, as scikit-learn does.
            rank = np.empty(first.size, dtype=np.int64)
            rank[np.argsort(first)] = np.arange(first.size)
            labels[core] = rank[core_labels]
            others = np.flatnonzero(~is_core)
            if others.size:
                distance, nearest = cKDTree(X[core]).query(X[others], k=1)
                border = distance <= eps
                labels[others[border]] = labels[core[nearest[border]]]
        self.labels_ = labels
        self.core_sample_indices_ = core
        return self


def _gap_groups(X: NDArray[np.float64], eps: float) -> NDArray[np.int64]:
    """Group of each point, such that points of different groups are more than ``eps`` apart.

    Along each axis in turn, every group is cut where its sorted coordinates jump by more
    than ``eps``. Afterwards a group of ``m`` points spans at most ``(m - 1) * eps`` along
    every axis, whatever the range of ``X``.
    """
    group = np.zeros(len(X), dtype=np.int64)
    for axis in range(X.shape[1]):
        order = np.lexsort((X[:, axis], group))
        cut = (np.diff(group[order]) != 0) | (np.diff(X[order, axis]) > eps)
        group = np.empty_like(group)
        group[order] = np.r_[0, np.cumsum(cut)]
    return group


def _grid_cells(X: NDArray[np.float64], eps: float) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """Cells of side ``eps / sqrt(d)`` (two points in one cell are within ``eps``).

    Cells are counted from the corner of each group of :func:`_gap_groups`, so their
    coordinates stay below ``n_samples * sqrt(d)`` however far apart the groups lie (a
    grid over the whole range would overflow int64 from a range of about ``1e18 * eps``).
    Groups are laid side by side along axis 0, more than ``2 sqrt(d) + 1`` cells apart.

    Returns
    -------
    cells : ndarray of shape (n_cells, n_features)
        Integer coordinates of the occupied cells.
    cell_of : ndarray of shape (n_samples,)
        Cell of each point.
    """
    d = X.shape[1]
    side = eps / np.sqrt(d)
    group = _gap_groups(X, eps)
    corner = np.full((int(group.max(initial=-1)) + 1, d), np.inf)
    np.minimum.at(corner, group, X)
    local = np.floor((X - corner[group]) / side).astype(np.int64)
    width = np.zeros(len(corner), dtype=np.int64)
    np.maximum.at(width, group, local[:, 0] + 1)
    spacing = int(np.ceil(2 * np.sqrt(d))) + 2
    start = np.r_[0, np.cumsum(width + spacing)[:-1]]
    local[:, 0] += start[group]
    cells, cell_of = np.unique(local, axis=0, return_inverse=True)
    return cells, cell_of.ravel()


def _core_points(X: NDArray[np.float64], eps: float, min_samples: int, chunk: int) -> NDArray[np.bool_]:
    """Whether each point has at least ``min_samples`` points (itself included) within ``eps``.

    A point in a grid cell holding ``min_samples`` points is core without counting (the cell's
    points are all within ``eps`` of each other); only the points of sparser cells are
    counted, ``chunk`` at a time, on a KD-tree of all points.
    """
    _, cell_of = _grid_cells(X, eps)
    is_core = np.bincount(cell_of)[cell_of] >= min_samples
    sparse = np.flatnonzero(~is_core)
    if sparse.size:
        tree = KDTree(X)
        counts = np.concatenate(
            [
                tree.query_radius(X[sparse[i : i + chunk]], eps, count_only=True)
                for i in range(0, sparse.size, chunk)
            ]
        )
        is_core[sparse] = counts >= min_samples
    return is_core


def _connect_core_points(core: NDArray[np.float64], eps: float) -> NDArray[np.intp]:
    """Return the component id of every core point, linking points within ``eps``."""
    d = core.shape[1]
    side = eps / np.sqrt(d)
    cells, cell_of = _grid_cells(core, eps)
    order = np.argsort(cell_of, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(cell_of, minlength=len(cells)))]
    members = [order[bounds[c] : bounds[c + 1]] for c in range(len(cells))]
    trees: dict[int, cKDTree] = {}

    def tree(c: int) -> cKDTree:
        if c not in trees:
            trees[c] = cKDTree(core[members[c]])
        return trees[c]

    parent = np.arange(len(cells))

    def find(c: int) -> int:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    # Cells whose closest points can be within eps: per axis, a gap of |delta| - 1 cells.
    # |delta| <= gap + 1 per axis, so ||delta|| <= sqrt(d) + sqrt(d) bounds the search.
    near = cKDTree(cells).query_ball_point(cells, r=2 * np.sqrt(d) + 1e-9)
    for a, neighbours in enumerate(near):
        for b in neighbours:
            if b <= a:
                continue
            gap = np.maximum(np.abs(cells[a] - cells[b]) - 1, 0)
            if np.sqrt((gap**2).sum()) * side > eps:
                continue
            root_a, root_b = find(a), find(b)
            if root_a != root_b and tree(a).count_neighbors(tree(b), eps) > 0:
                parent[root_b] = root_a
    roots = np.array([find(c) for c in range(len(cells))])
    return roots[cell_of]


#: Largest ratio of the points' extent to their smallest distance that :func:`delaunay_graph`
#: triangulates. Qhull lifts points to a paraboloid, squaring that ratio: from about 1e8 it
#: merges distinct points, and at extreme ratios it has crashed the interpreter.
_MAX_SPREAD = 1e10


def delaunay_graph(X: NDArray[np.float64]) -> sp.csr_array | None:
    """Delaunay edges of ``X``, a sparse graph containing its Euclidean minimum spanning tree.

    Points Qhull leaves out of the triangulation (duplicates) are linked to their
    nearest vertex.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    scipy.sparse.csr_array of shape (n_samples, n_samples), or None
        Symmetric 0/1 adjacency; None when ``n_features`` is not 2 or 3, the points are
        degenerate (for example collinear), or Qhull cannot resolve them: they span more
        than :data:`_MAX_SPREAD` times their smallest distance (Qhull then drops distinct
        points as duplicates, and may crash), or it dropped a point that is not a duplicate.
        In all these cases the triangulation does not help.

    Examples
    --------
    The corners of a square: four sides and one diagonal.

    >>> square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> int(delaunay_graph(square).sum()) // 2
    5
    >>> delaunay_graph(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])) is None
    True
    """
    if X.shape[1] not in (2, 3) or len(X) <= X.shape[1] + 1:
        return None
    distinct = np.unique(X, axis=0)
    if len(distinct) < 2:
        return None
    smallest = cKDTree(distinct).query(distinct, k=2)[0][:, 1].min()
    if np.ptp(distinct, axis=0).max() > _MAX_SPREAD * smallest:
        return None
    try:
        triangulation = Delaunay(X)
    except QhullError:
        return None
    if (X[triangulation.coplanar[:, 0]] != X[triangulation.coplanar[:, 2]]).any():
        return None  # Qhull merged distinct points: its triangulation lost them
    simplices = triangulation.simplices
    pairs = [(i, j) for i in range(simplices.shape[1]) for j in range(i + 1, simplices.shape[1])]
    rows = np.concatenate([simplices[:, i] for i, _ in pairs] + [triangulation.coplanar[:, 0]])
    cols = np.concatenate([simplices[:, j] for _, j in pairs] + [triangulation.coplanar[:, 2]])
    graph = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(len(X), len(X))).tocsr()
    return ((graph + graph.T) > 0).astype(np.float64)


class SingleLinkage(ClusterMixin, BaseEstimator):
    """Single-linkage clustering: the minimum spanning tree without its ``k - 1`` longest edges.

    Parameters
    ----------
    n_clusters : int, default=2

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point, ``0..n_clusters-1`` in order of first appearance.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [9.0, 9.0], [9.0, 8.0]])
    >>> SingleLinkage(n_clusters=2).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1]
    """

    def __init__(self, n_clusters: int = 2) -> None:
        self.n_clusters = n_clusters

    def fit(self, X: ArrayLike, y: object = None) -> SingleLinkage:
        """Cluster ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : SingleLinkage

        Raises
        ------
        InvalidParameterError
            If ``n_clusters`` is not an integer in ``1..n_samples``.

        Examples
        --------
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [9.0, 9.0], [9.0, 8.0]])
        >>> SingleLinkage(n_clusters=3).fit(X).labels_.tolist()
        [0, 0, 0, 1, 2]
        >>> try:
        ...     SingleLinkage(n_clusters=6).fit(X)
        ... except ValueError as error:
        ...     print(error)
        n_clusters must be at most n_samples=5, got 6
        """
        X = check_points(X, name="X", min_samples=1)
        k = check_positive_int(self.n_clusters, "n_clusters")
        if k > len(X):
            raise InvalidParameterError(f"n_clusters must be at most n_samples={len(X)}, got {k}")
        graph = delaunay_graph(X)
        if graph is None:
            self.labels_ = AgglomerativeClustering(k, linkage="single").fit(X).labels_
            return self
        edges = sp.triu(graph, k=1).tocoo()
        length = np.sqrt(((X[edges.row] - X[edges.col]) ** 2).sum(axis=1))
        # scipy drops explicit zeros: duplicate points keep their edge at the least length.
        length = np.maximum(length, np.finfo(np.float64).tiny)
        tree = sp.coo_array(
            minimum_spanning_tree(sp.csr_array((length, (edges.row, edges.col)), graph.shape))
        )
        keep = np.argsort(tree.data, kind="stable")[: tree.data.size - (k - 1)]
        forest = sp.csr_array((tree.data[keep], (tree.row[keep], tree.col[keep])), graph.shape)
        _, self.labels_ = connected_components(forest, directed=False)
        return self


def draw_parameters(seed: int) -> dict[str, dict[str, Any]]:
    """Parameters of the three clusterings for one round.

    Parameters
    ----------
    seed : int
        The round's seed (run seed + round index).

    Returns
    -------
    dict
        ``{"kmeans": {"n_clusters", "random_state"}, "dbscan": {"eps", "min_samples"},
        "hclust": {"n_clusters"}}``, plain Python numbers (JSON-ready).

    Examples
    --------
    >>> sorted(draw_parameters(0))
    ['dbscan', 'hclust', 'kmeans']
    """
    rng = np.random.default_rng(check_round_seed(seed))
    return {
        "kmeans": {
            "n_clusters": int(rng.integers(4, MAX_CLUSTERS + 1)),
            "random_state": int(rng.integers(2**31)),
        },
        "dbscan": {"eps": float(rng.uniform(1.2, 4.5)), "min_samples": 10},
        "hclust": {"n_clusters": int(rng.integers(4, MAX_CLUSTERS + 1))},
    }


def make_clusterer(
    algorithm: str, params: dict[str, Any], X: NDArray[np.float64] | None = None
) -> BaseEstimator:
    """Return the estimator for ``algorithm`` (one of :data:`ALGORITHMS`) with ``params``.

    A k-means ``params`` may hold ``init_rows`` (rows of ``X`` as initial centres, one per
    cluster) instead of ``random_state``.

    Raises
    ------
    InvalidParameterError
        On an unknown ``algorithm``, or ``init_rows`` that are not ``n_clusters`` rows of ``X``.

    Examples
    --------
    >>> make_clusterer("hclust", {"n_clusters": 4})
    SingleLinkage(n_clusters=4)
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [9.0, 9.0], [9.0, 8.0]])
    >>> kmeans = make_clusterer("kmeans", {"n_clusters": 2, "init_rows": [0, 2]}, X)
    >>> kmeans.fit(X).labels_.tolist()
    [0, 0, 1, 1]
    """
    check_choice(algorithm, "algorithm", ALGORITHMS)
    if algorithm == "kmeans":
        options = dict(params)
        rows = options.pop("init_rows", None)
        if rows is None:
            return KMeans(init="random", n_init=1, max_iter=200, **options)
        return KMeans(
            init=_initial_centres(X, rows, options.get("n_clusters")), n_init=1, max_iter=200, **options
        )
    if algorithm == "dbscan":
        return GridDBSCAN(**params)
    return SingleLinkage(**params)


def _initial_centres(
    X: NDArray[np.float64] | None, rows: list[int], n_clusters: object
) -> NDArray[np.float64]:
    """Rows ``rows`` of ``X``, checked to be ``n_clusters`` valid row indices."""
    if X is None:
        raise InvalidParameterError("init_rows needs the points X")
    index = np.asarray(rows)
    if (
        index.shape != (n_clusters,)
        or index.dtype.kind not in "iu"
        or not ((index >= 0) & (index < len(X))).all()
    ):
        raise InvalidParameterError(
            f"init_rows must be {n_clusters} row indices in 0..{len(X) - 1}, got {rows!r}"
        )
    return X[index]


def fit_labels(algorithm: str, X: NDArray[np.float64], params: dict[str, Any]) -> NDArray[np.int32]:
    """Labels ``0..k-1`` of one base clustering; DBSCAN noise becomes cluster ``k``.

    Parameters
    ----------
    algorithm : {"kmeans", "dbscan", "hclust"}
    X : ndarray of shape (n_samples, n_features)
    params : dict
        This algorithm's entry of :func:`draw_parameters` (or of
        :func:`clustagg.reference.reference_parameters`).

    Returns
    -------
    labels : ndarray of shape (n_samples,), dtype int32
        May hold fewer clusters than asked for when ``X`` has fewer distinct points: k-means
        then logs one line (logger ``clustagg.clusterers``) instead of scikit-learn's
        ``ConvergenceWarning``.

    Examples
    --------
    The isolated point is DBSCAN noise, numbered as a cluster of its own:

    >>> X = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 0.0], [5.0, 5.0]])
    >>> fit_labels("dbscan", X, {"eps": 1.0, "min_samples": 3}).tolist()
    [0, 0, 0, 1]

    Three distinct points make three clusters, not four (k-means logs one line saying so):

    >>> twice = np.repeat(X[:3], 2, axis=0)
    >>> sorted(set(fit_labels("kmeans", twice, {"n_clusters": 4, "random_state": 0}).tolist()))
    [0, 1, 2]
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        labels = make_clusterer(algorithm, params, X).fit(X).labels_
    for warning in caught:
        if issubclass(warning.category, ConvergenceWarning):
            logger.warning("%s: %s", algorithm, " ".join(str(warning.message).split()))
        else:  # not ours to judge: passed on as it came
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    noise = labels < 0
    labels = np.where(noise, labels.max(initial=-1) + 1, labels)
    return labels.astype(np.int32)
