"""Classical maximum (weight) independent set references for tests and comparisons."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx
import numpy as np

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_positive_int, check_random_state

from .problem import MISProblem, WeightsLike

__all__ = ["check_beta_range", "greedy_independent_set", "maximum_independent_set", "simulated_annealing"]


def maximum_independent_set(graph: nx.Graph, weights: WeightsLike = None) -> frozenset:
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

    Raises
    ------
    InvalidParameterError
        If ``graph`` is not an undirected simple graph without self-loops, or
        ``weights`` is invalid (as for :class:`MISProblem`).

    Examples
    --------
    >>> sorted(maximum_independent_set(nx.path_graph(4)))
    [0, 2]
    """
    w = MISProblem._unpenalized(graph, weights).weights
    scale = 1 if np.allclose(w, np.round(w)) else 10**6
    complement = nx.complement(graph)
    integer_weights = [round(float(x) * scale) for x in w]  # Python ints: no int64 overflow
    nx.set_node_attributes(complement, dict(zip(graph.nodes, integer_weights, strict=True)), "w")
    clique, _ = nx.max_weight_clique(complement, weight="w")
    return frozenset(clique)


def greedy_independent_set(graph: nx.Graph, weights: WeightsLike = None, seed: SeedLike = 0) -> frozenset:
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

    Raises
    ------
    InvalidParameterError
        If ``graph`` is not an undirected simple graph without self-loops, or
        ``weights`` is invalid (as for :class:`MISProblem`).

    Examples
    --------
    >>> sorted(greedy_independent_set(nx.star_graph(4)))
    [1, 2, 3, 4]
    >>> sorted(greedy_independent_set(nx.star_graph(4), weights=[10, 1, 1, 1, 1]))
    [0]
    """
    problem = MISProblem._unpenalized(graph, weights)
    return problem.to_nodes(problem.repair(np.zeros(problem.num_nodes), seed=seed))


def check_beta_range(beta_range: Sequence[float]) -> tuple[float, float]:
    """Return an annealing schedule's inverse temperatures ``(low, high)`` as floats.

    Raises
    ------
    InvalidParameterError
        If ``beta_range`` is not a pair with ``0 < low < high``.

    Examples
    --------
    >>> check_beta_range([1, 50])
    (1.0, 50.0)
    >>> check_beta_range((5.0, 1.0))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: beta_range must be (low, high) with 0 < low < high, \
got (5.0, 1.0)
    """
    try:
        low, high = (float(beta) for beta in beta_range)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"beta_range must be a pair (low, high), got {beta_range!r}") from exc
    if not 0 < low < high < float("inf"):
        raise InvalidParameterError(f"beta_range must be (low, high) with 0 < low < high, got {beta_range!r}")
    return low, high


def simulated_annealing(
    problem: MISProblem,
    *,
    num_reads: int = 64,
    num_sweeps: int = 1000,
    beta_range: Sequence[float] = (0.1, 100.0),
    seed: SeedLike = None,
) -> np.ndarray:
    """Simulated annealing of the QUBO with dwave-samplers, one sample per read.

    Parameters
    ----------
    problem : MISProblem
    num_reads : int, default=64
    num_sweeps : int, default=1000
    beta_range : (float, float), default=(0.1, 100.0)
        Inverse temperatures from hot to cold. The sampler's default range reaches the
        optimum far less often when the penalty is large (e.g. the clustering QUBO's
        ``lambda = n``); this one does in nearly every read.
    seed : None, int or numpy.random.Generator

    Returns
    -------
    bits : ndarray of shape (num_reads, n), dtype uint8
        ``bits[r, i]`` is qubit ``i`` of read ``r`` (not repaired).

    Examples
    --------
    >>> problem = MISProblem(nx.path_graph(3))
    >>> bits = simulated_annealing(problem, num_reads=8, num_sweeps=100, seed=1)
    >>> bits.shape
    (8, 3)
    >>> all(problem.is_independent(row) for row in bits)
    True
    """
    from dwave.samplers import SimulatedAnnealingSampler

    num_reads = check_positive_int(num_reads, "num_reads")
    num_sweeps = check_positive_int(num_sweeps, "num_sweeps")
    beta_range = check_beta_range(beta_range)
    q = problem.qubo()
    rows, cols = np.nonzero(q)
    samples = SimulatedAnnealingSampler().sample_qubo(
        {(int(i), int(j)): float(q[i, j]) for i, j in zip(rows, cols, strict=True)},
        num_reads=num_reads,
        num_sweeps=num_sweeps,
        beta_range=beta_range,
        seed=int(check_random_state(seed).integers(2**31 - 1)),
    )
    bits = np.zeros((num_reads, problem.num_nodes), dtype=np.uint8)
    bits[:, list(samples.variables)] = samples.record.sample
    return bits
