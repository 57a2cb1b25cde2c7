"""(K, d)-clustered graphs: a chain of small clusters joined by small vertex separators."""

from __future__ import annotations

import networkx as nx
import numpy as np
from numpy.typing import NDArray

from backends.utils.validation import (
    SeedLike,
    check_nonnegative_int,
    check_positive_int,
    check_probability,
    check_random_state,
)

__all__ = ["kd_clustered_graph"]


def kd_clustered_graph(
    num_clusters: int,
    cluster_size: int,
    separator_size: int,
    p_intra: float,
    p_inter: float,
    seed: SeedLike = None,
) -> nx.Graph:
    """Random chain of connected clusters joined by separator vertices.

    Clusters ``0 .. num_clusters - 1`` of ``K = cluster_size`` vertices each form a chain;
    between clusters ``j`` and ``j + 1`` sit ``d = separator_size`` separator vertices.
    Removing the ``d (num_clusters - 1)`` separator vertices leaves the clusters as the
    connected components, each of at most ``K`` vertices: the graph is (K, d)-clustered.

    Each cluster is a uniformly random recursive tree (so it is connected) plus every other
    pair with probability ``p_intra``. Each separator vertex between clusters ``j`` and
    ``j + 1`` is joined to every vertex of both clusters with probability ``p_inter``, and
    to at least one vertex of each (drawn uniformly when the coin flips gave none).

    Parameters
    ----------
    num_clusters : int
        Number of clusters, at least 1.
    cluster_size : int
        ``K``, vertices per cluster, at least 1.
    separator_size : int
        ``d``, separator vertices between consecutive clusters, at least 0.
    p_intra, p_inter : float
        Edge probabilities inside a cluster and between a separator vertex and a cluster vertex.
    seed : None, int or numpy.random.Generator
        The graph is a function of the seed.

    Returns
    -------
    networkx.Graph
        Nodes ``0 .. n - 1`` in chain order, ``n = num_clusters K + (num_clusters - 1) d``.
        Node attributes: ``role`` (``"cluster"`` or ``"separator"``) and ``block``
        (the cluster index, or for a separator vertex the index ``j`` of the cluster on its left).

    Raises
    ------
    InvalidParameterError
        If a size is out of range or a probability is outside ``[0, 1]``.

    References
    ----------
    Lowe, Medvidović, Hayes, O'Riordan, Bromley, Arrazola, Killoran, "Fast quantum circuit
    cutting with randomized measurements", arXiv:2207.14734 (their ``clustered_chain_graph``).

    Examples
    --------
    >>> g = kd_clustered_graph(2, 4, 1, 0.7, 0.5, seed=1)
    >>> g.number_of_nodes(), [v for v, role in g.nodes(data="role") if role == "separator"]
    (9, [4])
    """
    num_clusters = check_positive_int(num_clusters, "num_clusters")
    cluster_size = check_positive_int(cluster_size, "cluster_size")
    separator_size = check_nonnegative_int(separator_size, "separator_size")
    p_intra, p_inter = check_probability(p_intra, "p_intra"), check_probability(p_inter, "p_inter")
    rng = check_random_state(seed)

    graph = nx.Graph()
    previous = _add_cluster(graph, 0, cluster_size, p_intra, rng)
    for j in range(1, num_clusters):
        start = graph.number_of_nodes()
        separator = range(start, start + separator_size)
        graph.add_nodes_from(separator, role="separator", block=j - 1)
        members = _add_cluster(graph, j, cluster_size, p_intra, rng)
        _join_separator(graph, separator, (previous, members), p_inter, rng)
        previous = members
    return graph


def _add_cluster(
    graph: nx.Graph, block: int, size: int, p_intra: float, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Append a connected cluster: a random recursive tree plus every other pair with probability ``p_intra``.

    Returns the new nodes, ``graph.number_of_nodes() .. + size - 1`` before the call.
    """
    start = graph.number_of_nodes()
    members = np.arange(start, start + size, dtype=np.int64)
    graph.add_nodes_from(members.tolist(), role="cluster", block=block)
    order = rng.permutation(members)
    graph.add_edges_from((int(order[i]), int(order[rng.integers(i)])) for i in range(1, size))
    upper = np.triu(rng.random((size, size)) < p_intra, k=1)
    graph.add_edges_from((int(members[a]), int(members[b])) for a, b in zip(*np.nonzero(upper), strict=True))
    return members


def _join_separator(
    graph: nx.Graph,
    separator: range,
    sides: tuple[NDArray[np.int64], NDArray[np.int64]],
    p_inter: float,
    rng: np.random.Generator,
) -> None:
    """Join each separator vertex to every vertex of both sides with probability ``p_inter``.

    A side that no coin flip joined gets one uniformly drawn vertex.
    """
    for s in separator:
        for side in sides:
            chosen = side[rng.random(side.size) < p_inter]
            if not chosen.size:
                chosen = side[[rng.integers(side.size)]]
            graph.add_edges_from((s, int(v)) for v in chosen)
