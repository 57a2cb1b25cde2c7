"""Classical maximum (weight) independent set references for tests and comparisons."""

from __future__ import annotations

import networkx as nx
import numpy as np

from .problem import MISProblem

__all__ = ["maximum_independent_set", "greedy_independent_set"]


def maximum_independent_set(graph: nx.Graph, weights=None) -> frozenset:
    """Exact maximum (weight) independent set, as a maximum-weight clique of the complement.

    Exponential time: meant for graphs of up to a few dozen vertices.

    Parameters
    ----------
    graph : networkx.Graph
    weights : see :class:`MISProblem`
        Non-integer weights are scaled by 10**6 and rounded, as networkx's clique
        search needs integers.

    Returns
    -------
    frozenset of nodes

    Examples
    --------
    >>> sorted(maximum_independent_set(nx.path_graph(4)))
    [0, 2]
    """
    w = MISProblem(graph, weights, penalty=np.inf).weights
    scale = 1 if np.allclose(w, np.round(w)) else 10**6
    complement = nx.complement(graph)
    integer_weights = np.round(w * scale).astype(int).tolist()
    nx.set_node_attributes(complement, dict(zip(graph.nodes, integer_weights, strict=True)), "w")
    clique, _ = nx.max_weight_clique(complement, weight="w")
    return frozenset(clique)


def greedy_independent_set(graph: nx.Graph, weights=None, seed=0) -> frozenset:
    """Greedy maximal independent set: the largest ``w / (degree + 1)`` first (GWMIN).

    With unit weights this is the classical minimum-degree greedy. It is
    :meth:`MISProblem.repair` of the empty selection.

    Parameters
    ----------
    graph : networkx.Graph
    weights : see :class:`MISProblem`
    seed : None, int or numpy.random.Generator, default=0
        Breaks ties between equally good vertices.

    Returns
    -------
    frozenset of nodes
    """
    problem = MISProblem(graph, weights, penalty=np.inf)
    return problem.to_nodes(problem.repair(np.zeros(problem.num_nodes), seed=seed))
