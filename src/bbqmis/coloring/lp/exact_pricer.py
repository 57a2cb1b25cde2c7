"""The exact pricer: maximum-weight independent set by HiGHS MILP, which certifies the LP value.

Clique constraints from a greedy edge clique cover (:func:`edge_clique_cover`) make the
MILP tighter than one row per edge. When even the exact optimum has ``y(S) <= 1``, no
column is missing; its dual bound also gives Farley's bound before that.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from backends.utils.validation import SeedLike, check_interval, check_positive_int, check_probability

from .master import GraphLike, IndexedGraph, bit_indices
from .pricing import PricingResult, _check_duals, _result, _support

__all__ = [
    "ExactPricer",
    "edge_clique_cover",
]


def edge_clique_cover(
    graph: IndexedGraph, vertices: Sequence[int] | np.ndarray | None = None
) -> list[list[int]]:
    """Greedy cliques covering every edge of the subgraph induced by ``vertices``.

    Each clique grows from an uncovered edge, adding the common neighbour that covers
    the most uncovered edges (ties: the most candidates kept). ``sum_{v in K} x_v <= 1``
    over these cliques is a tighter MWIS formulation than one row per edge.

    Parameters
    ----------
    graph : IndexedGraph
    vertices : sequence of int, optional
        Default all.

    Returns
    -------
    list of list of int
        Cliques of at least two vertices; every edge lies in one of them.

    Examples
    --------
    >>> import networkx as nx
    >>> edge_clique_cover(IndexedGraph.from_graph(nx.complete_graph(4)))
    [[0, 1, 2, 3]]
    """
    chosen = list(range(graph.n)) if vertices is None else [int(v) for v in vertices]
    inside = sum(1 << v for v in chosen)
    uncovered = {v: graph.neighbors[v] & inside for v in chosen}
    cliques = []
    for v in sorted(chosen, key=lambda v: (-graph.degree[v], v)):
        while uncovered[v]:
            u = (uncovered[v] & -uncovered[v]).bit_length() - 1
            clique, members = [v, u], (1 << v) | (1 << u)
            candidates = graph.neighbors[v] & graph.neighbors[u] & inside
            while candidates:
                w = max(
                    bit_indices(candidates),
                    key=lambda w: (
                        (uncovered[w] & members).bit_count(),
                        (candidates & graph.neighbors[w]).bit_count(),
                        -w,
                    ),
                )
                clique.append(w)
                members |= 1 << w
                candidates &= graph.neighbors[w]
            for a in clique:
                uncovered[a] &= ~members
            cliques.append(sorted(clique))
    return cliques


class ExactPricer:
    """Exact maximum-weight independent set by HiGHS MILP: the certifying pricer.

    Binary ``x_v`` for the positive-dual vertices, ``sum_{v in K} x_v <= 1`` for the
    cliques of a greedy edge clique cover (:func:`edge_clique_cover`). ``upper`` in the
    result is the MILP's dual bound (plus the duals dropped as zero), so it stays a proven
    upper bound on ``w*`` even when the time limit stops the search. ``optimal`` and
    ``upper`` rely on HiGHS's tolerances (``mip_rel_gap``, feasibility 1e-6), which
    :func:`~bbqmis.coloring.lp.master.safe_ceil` absorbs.

    Parameters
    ----------
    max_columns : int, default=1
        Only the optimum is returned (HiGHS gives one solution).
    mip_rel_gap : float, default=1e-9
        Relative gap at which HiGHS stops.

    Examples
    --------
    >>> import networkx as nx
    >>> result = ExactPricer().price(nx.path_graph(3), [1.0, 1.5, 1.0])
    >>> result.masks, result.best, result.optimal
    ([5], 2.0, True)
    """

    name = "exact"
    certifies = True

    def __init__(self, max_columns: int = 1, mip_rel_gap: float = 1e-9) -> None:
        self.max_columns = check_positive_int(max_columns, "max_columns")
        self.mip_rel_gap = check_probability(mip_rel_gap, "mip_rel_gap")

    def __repr__(self) -> str:
        return f"ExactPricer(mip_rel_gap={self.mip_rel_gap:g})"

    def price(
        self,
        graph: GraphLike,
        duals: npt.ArrayLike,
        seed: SeedLike = None,
        *,
        time_limit: float | None = None,
        target: float | None = None,
    ) -> PricingResult:
        """Maximum-weight independent set under the vertex weights ``duals``.

        Parameters
        ----------
        graph : networkx.Graph, ndarray of shape (n, n) or IndexedGraph
        duals : array-like of shape (n,)
            Vertex weights ``>= 0`` in index order.
        seed : None, int or numpy.random.Generator
            Unused (HiGHS is deterministic).
        time_limit : float, optional
            Seconds for HiGHS; a stopped search is not ``optimal`` but keeps its ``upper``.
        target : float, optional
            Quick mode: look only for a set of weight ``>= target`` and stop at the first
            one HiGHS finds (far faster than proving optimality while improving columns
            exist). The result is then never ``optimal`` and its ``upper`` is ``inf``;
            HiGHS's feasibility tolerance (1e-6) may let a slightly lighter set through.

        Returns
        -------
        PricingResult
            ``masks[0]`` the best set found (extended to a maximal one; none when HiGHS
            found none), ``upper`` a proven bound on the maximum weight (the MILP's dual
            bound, also after a time limit), ``optimal`` whether HiGHS proved optimality.

        Raises
        ------
        InvalidParameterError
            If ``duals`` has the wrong shape or a negative value, or ``time_limit`` or
            ``target`` is not positive.

        Examples
        --------
        >>> import networkx as nx
        >>> result = ExactPricer().price(nx.cycle_graph(5), [0.5] * 5)
        >>> result.best, result.optimal, bin(result.masks[0]).count("1")
        (1.0, True, 2)
        """
        start = time.perf_counter()
        g = IndexedGraph.coerce(graph)
        y = _check_duals(g, duals)
        options: dict[str, Any] = {"mip_rel_gap": self.mip_rel_gap}
        if time_limit is not None:
            options["time_limit"] = check_interval(time_limit, "time_limit", 0.0, math.inf)
        if target is not None:
            target = check_interval(target, "target", 0.0, math.inf)
            options["mip_max_improving_sols"] = 1  # HiGHS stops at its first solution
        from scipy.optimize import Bounds, LinearConstraint, milp  # HiGHS: not at start-up

        support = _support(y)
        dropped = float(y.sum() - y[support].sum())
        if not len(support):
            return _result(g, [0], y, self.max_columns, start, upper=dropped, optimal=target is None)
        cliques = edge_clique_cover(g, support)
        position = {int(v): i for i, v in enumerate(support)}
        constraints = []
        if cliques:
            rows = np.repeat(np.arange(len(cliques)), [len(k) for k in cliques])
            cols = np.array([position[v] for k in cliques for v in k])
            a = sp.csr_array((np.ones(len(cols)), (rows, cols)), shape=(len(cliques), len(support)))
            constraints.append(LinearConstraint(a, -np.inf, 1.0))
        if target is not None:
            constraints.append(LinearConstraint(y[support][None, :], target, np.inf))
        with warnings.catch_warnings():
            # scipy passes options it does not know (mip_max_improving_sols) to HiGHS verbatim.
            warnings.filterwarnings("ignore", "Unrecognized options", RuntimeWarning)
            res = milp(
                -y[support],
                integrality=np.ones(len(support)),
                bounds=Bounds(0.0, 1.0),
                constraints=constraints,
                options=options,
            )
        masks = []
        if res.x is not None:
            masks.append(sum(1 << int(v) for v in support[np.asarray(res.x) > 0.5]))
        optimal = target is None and res.status == 0
        upper = math.inf
        dual_bound = getattr(res, "mip_dual_bound", None)
        if target is None and dual_bound is not None and np.isfinite(dual_bound):
            upper = -float(dual_bound) + dropped
        result = _result(g, masks, y, self.max_columns, start, optimal=optimal)
        result.upper = max(upper, result.best)  # never below a set it found
        return result
