"""(K, d)-clustered graphs: a chain of small clusters joined by small vertex separators."""

from __future__ import annotations

import networkx as nx
import numpy as np

from backends.validation import (
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
    seed=None,
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
    clusters = []
    for j in range(num_clusters):
        if j:
            start = graph.number_of_nodes()
            seps = range(start, start + separator_size)
            graph.add_nodes_from(seps, role="separator", block=j - 1)
        start = graph.number_of_nodes()
        members = np.arange(start, start + cluster_size)
        graph.add_nodes_from(members.tolist(), role="cluster", block=j)
        order = rng.permutation(members)
        graph.add_edges_from((int(order[i]), int(order[rng.integers(i)])) for i in range(1, cluster_size))
        upper = np.triu(rng.random((cluster_size, cluster_size)) < p_intra, k=1)
        graph.add_edges_from(
            (int(members[a]), int(members[b])) for a, b in zip(*np.nonzero(upper), strict=True)
        )
        if j:
            for s in seps:
                for side in (clusters[-1], members):
                    chosen = side[rng.random(side.size) < p_inter]
                    if not chosen.size:
                        chosen = side[[rng.integers(side.size)]]
                    graph.add_edges_from((s, int(v)) for v in chosen)
        clusters.append(members)
    return graph
