"""Exact graph colouring: DSATUR branch-and-bound with propagation and backjumping.

The search of Brélaz (1979), made exact by Sewell (1996) and San Segundo (2012):

* Branch on the uncoloured vertex of maximum *saturation* (distinct colours among its
  neighbours). Ties go to Sewell's rule, which San Segundo's PASS also refines: the
  vertex whose available colours (among those in use) are most often available to its
  uncoloured neighbours, then the largest degree in the uncoloured subgraph, then the
  lowest index.
* Try its feasible colours among those already used, plus *one* new colour: unused
  colours are interchangeable, so a single one stands for them all.
* Once a colouring with ``q`` colours is known, only ``k = q - 1`` colours are
  allowed and a vertex that sees all ``k`` (a *wipe-out*) ends the branch.

Three additions make graphs with weak clique and LP bounds, such as Mycielski graphs
(clique number 2), tractable:

* Unit propagation: a vertex that sees ``k - 1`` colours is coloured at once, a whole
  colour class of such vertices at a time; this is not counted as a search node.
* A colour-class lower bound at every node, in the spirit of Furini, Gabrel and Ternier
  (2017), who merge each colour class into one vertex and bound the clique number of
  that reduced graph: two adjacent vertices left with the same single colour form,
  with the ``k - 1`` classes both see, a clique of ``k + 1`` vertices, so the node fails.
* Conflict-directed backjumping (Prosser 1993): a failure returns the decisions that
  explain it (for each colour a wiped-out vertex sees, its first neighbour of that
  colour, with forced colourings replaced by their own explanations), and a decision
  outside the explanation of its subtree's failure is abandoned with its remaining
  colours. Decisions in unrelated parts of the graph are thereby not re-enumerated.

On myciel5 (47 vertices, chromatic number 6) optimality is proven with 35,000 branching
decisions, 137,000 colour assignments in all, where plain DSATUR makes 378,000 and
DSATUR with Sewell's rule 205,000. Neighbourhoods, colour classes and the
vertices of each saturation level are Python ``int`` bitsets. The search is iterative:
an explicit stack of at most ``n`` frames of ``O(k)`` bitsets each, so memory stays
bounded; the clock is read every few nodes.

References
----------
D. Brélaz, "New methods to color the vertices of a graph", Commun. ACM 22 (1979).
E. C. Sewell, "An improved algorithm for exact graph coloring", DIMACS Series in
Discrete Mathematics and Theoretical Computer Science 26 (1996).
P. San Segundo, "A new DSATUR-based algorithm for exact vertex coloring", Computers &
Operations Research 39 (2012).
F. Furini, V. Gabrel and I.-C. Ternier, "An improved DSATUR-based branch-and-bound
algorithm for the vertex coloring problem", Networks 69 (2017).
P. Prosser, "Hybrid algorithms for the constraint satisfaction problem", Computational
Intelligence 9 (1993).

Examples
--------
>>> import networkx as nx
>>> result = exact_coloring(nx.to_numpy_array(nx.mycielski_graph(5), dtype=bool))
>>> result.num_colors, result.lower_bound, result.optimal, result.stopped
(5, 5, True, None)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_nonnegative_int, check_positive_int, check_probability

from .dsatur_search import MYCIELSKI_SHARE, dsatur_search
from .mycielski import extend_clique

__all__ = ["ExactColoring", "exact_coloring"]


@dataclass(frozen=True)
class ExactColoring:
    """Outcome of :func:`exact_coloring`.

    Attributes
    ----------
    colors : ndarray of shape (n,), dtype int64
        A proper colouring with colours ``0..num_colors-1``.
    num_colors : int
        Colours used by ``colors``.
    lower_bound : int
        A proven lower bound on the chromatic number.
    optimal : bool
        True exactly when ``num_colors == lower_bound``.
    nodes : int
        Search nodes: colours chosen by branching (colourings forced by propagation
        are not counted).
    stopped : str or None
        None if the search ended by itself, else ``"time_limit"`` or ``"node_limit"``.

    Examples
    --------
    >>> import networkx as nx
    >>> result = exact_coloring(nx.to_numpy_array(nx.mycielski_graph(4), dtype=bool, weight=None))
    >>> result.num_colors, result.lower_bound, result.optimal, result.stopped
    (4, 4, True, None)
    >>> result.colors.shape
    (11,)
    """

    colors: np.ndarray
    num_colors: int
    lower_bound: int
    optimal: bool
    nodes: int
    stopped: str | None


def _bitsets(adjacency: Any) -> list[int]:
    """Neighbourhood bitsets of a validated adjacency matrix: bit ``u`` of ``v``'s is set iff ``u ~ v``."""
    if sp.issparse(adjacency):
        matrix = sp.csr_matrix(adjacency)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise InvalidParameterError(f"adjacency must be a square matrix, got shape {matrix.shape}")
        matrix.eliminate_zeros()
        if (matrix != matrix.T).nnz:
            raise InvalidParameterError("adjacency must be symmetric")
        indptr, indices = matrix.indptr, matrix.indices
        rows = [indices[indptr[i] : indptr[i + 1]] for i in range(matrix.shape[0])]
    else:
        dense = np.asarray(adjacency)
        if dense.ndim != 2 or dense.shape[0] != dense.shape[1]:
            raise InvalidParameterError(f"adjacency must be a square matrix, got shape {dense.shape}")
        if not (dense.dtype == bool or np.issubdtype(dense.dtype, np.number)):
            raise InvalidParameterError(f"adjacency must be boolean or numeric, got dtype {dense.dtype}")
        dense = dense != 0
        if not np.array_equal(dense, dense.T):
            raise InvalidParameterError("adjacency must be symmetric")
        loops = np.flatnonzero(np.diagonal(dense))
        if loops.size:
            raise InvalidParameterError(
                f"adjacency has a self-loop at vertex {loops[0]}: no colouring exists"
            )
        packed = np.packbits(dense, axis=1, bitorder="little")
        return [int.from_bytes(row.tobytes(), "little") for row in packed]
    bits = []
    for v, row in enumerate(rows):
        if np.any(row == v):
            raise InvalidParameterError(f"adjacency has a self-loop at vertex {v}: no colouring exists")
        bits.append(sum(1 << int(u) for u in row))
    return bits


def _check_colors(colors: Any, adj: list[int]) -> list[int]:
    """A validated ``initial`` colouring, relabelled to ``0..k-1`` in order of first use."""
    n = len(adj)
    array = np.asarray(colors)
    if array.shape != (n,) or not (np.issubdtype(array.dtype, np.integer) or array.size == 0):
        raise InvalidParameterError(
            f"initial must be an integer array of shape ({n},), got shape {array.shape}, dtype {array.dtype}"
        )
    if n and array.min() < 0:
        raise InvalidParameterError(f"initial must hold colours >= 0, got {int(array.min())}")
    relabel: dict[int, int] = {}
    result = [relabel.setdefault(int(c), len(relabel)) for c in array]
    for v in range(n):
        x = adj[v] >> (v + 1)
        u = v + 1
        while x:
            low = x & -x
            w = u + low.bit_length() - 1
            if result[w] == result[v]:
                raise InvalidParameterError(
                    f"initial is not a proper colouring: adjacent vertices {v} and {w} share a colour"
                )
            x ^= low
    return result


def _greedy_clique(adj: list[int], deadline: float | None) -> int:
    """Size of a clique grown greedily from each vertex (until ``deadline``): a lower bound on chi."""
    best = min(len(adj), 1)
    for start_adj in adj:
        if start_adj.bit_count() < best:
            continue
        if deadline is not None and time.perf_counter() >= deadline:
            break
        candidates, size = start_adj, 1
        while candidates:
            pick, most = -1, -1
            x = candidates
            while x:
                low = x & -x
                v = low.bit_length() - 1
                inside = (adj[v] & candidates).bit_count()
                if inside > most:
                    pick, most = v, inside
                x ^= low
            candidates &= adj[pick]
            size += 1
            if size + candidates.bit_count() <= best:
                break
        best = max(best, size)
    return best


def _greedy_dsatur(adj: list[int]) -> list[int]:
    """Brélaz's DSATUR colouring: maximum saturation, then maximum uncoloured degree, then lowest index."""
    n = len(adj)
    colors = [-1] * n
    degree = [a.bit_count() for a in adj]
    seen = [0] * n  # bitmask of the colours next to each vertex
    levels = [(1 << n) - 1]  # levels[s]: uncoloured vertices that see s colours
    for _ in range(n):
        top = len(levels) - 1
        while not levels[top]:
            top -= 1
        pick, most = -1, -1
        x = levels[top]
        while x:
            low = x & -x
            v = low.bit_length() - 1
            if degree[v] > most:
                pick, most = v, degree[v]
            x ^= low
        free = ~seen[pick]
        color = (free & -free).bit_length() - 1
        colors[pick] = color
        levels[top] ^= 1 << pick
        x = adj[pick]
        while x:
            low = x & -x
            u = low.bit_length() - 1
            x ^= low
            if colors[u] < 0:
                degree[u] -= 1
                if not (seen[u] >> color) & 1:
                    s = seen[u].bit_count()
                    seen[u] |= 1 << color
                    if s + 1 == len(levels):
                        levels.append(0)
                    levels[s] ^= low
                    levels[s + 1] |= low
    return colors


def exact_coloring(
    adjacency: Any,
    *,
    lower: int = 0,
    upper: int | None = None,
    initial: Any = None,
    deadline: float | None = None,
    node_limit: int | None = None,
    mycielski_share: float = MYCIELSKI_SHARE,
) -> ExactColoring:
    """Minimum colouring by DSATUR branch-and-bound (see the module docstring).

    Parameters
    ----------
    adjacency : ndarray of shape (n, n) or scipy.sparse matrix of shape (n, n)
        Symmetric adjacency matrix (bool or numeric, nonzero = edge), zero diagonal.
    lower : int, default 0
        A lower bound on the chromatic number proven by the caller: the search stops
        as soon as its colouring meets it.
    upper : int, optional
        Colours of a colouring the caller holds: only colourings with fewer colours
        are searched for. If there is none, ``lower_bound`` becomes ``upper`` and the
        colouring returned is ``initial``, else the greedy DSATUR one (which may use
        more than ``upper`` colours).
    initial : array_like of shape (n,), optional
        A proper colouring (integers >= 0) to beat; it is returned if nothing better
        is found. Without it, the search starts from a greedy DSATUR colouring.
    deadline : float, optional
        Absolute :func:`time.perf_counter` value at which to stop.
    node_limit : int, optional
        Maximum number of search nodes.
    mycielski_share : float, default :data:`~bbqmis.coloring.classical.dsatur_search.MYCIELSKI_SHARE`
        Most of the search's time spent on Mycielskian bounds
        (:mod:`~bbqmis.coloring.classical.mycielski`): at the root, from the first vertex,
        and at every node on the quotient graph of its partial colouring; 0 turns them off.

    Returns
    -------
    ExactColoring
        ``stopped`` is None when the search finished (then ``optimal`` is True unless
        ``upper`` was below every colouring found), else ``"time_limit"`` or
        ``"node_limit"``, with the best colouring so far and a proven ``lower_bound``
        (the caller's ``lower`` or the size of a clique, whichever is larger).

    Raises
    ------
    InvalidParameterError
        If ``adjacency`` is not a symmetric square matrix without self-loops, if
        ``initial`` is not a proper colouring of shape (n,), if ``lower`` exceeds
        ``upper`` or the colours of ``initial``, or if a limit is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> five_cycle = np.roll(np.eye(5, dtype=bool), 1, axis=1) | np.roll(np.eye(5, dtype=bool), -1, axis=1)
    >>> exact_coloring(five_cycle).num_colors
    3
    >>> exact_coloring(five_cycle, initial=[0, 1, 0, 1, 2], lower=3).nodes
    0
    """
    lower = check_nonnegative_int(lower, "lower")
    mycielski_share = check_probability(mycielski_share, "mycielski_share")
    if upper is not None:
        upper = check_nonnegative_int(upper, "upper")
    if node_limit is not None:
        node_limit = check_positive_int(node_limit, "node_limit")
    if deadline is not None:
        if isinstance(deadline, bool) or not isinstance(deadline, Real) or math.isnan(deadline):
            raise InvalidParameterError(f"deadline must be a time.perf_counter() value, got {deadline!r}")
        deadline = float(deadline)
    adj = _bitsets(adjacency)
    n = len(adj)
    colors = _check_colors(initial, adj) if initial is not None else _greedy_dsatur(adj)
    count = max(colors, default=-1) + 1
    if upper is not None and n and upper < 1:
        raise InvalidParameterError(f"upper must be >= 1 for a graph with {n} vertices, got {upper}")
    if lower > count and initial is not None:
        raise InvalidParameterError(f"lower ({lower}) exceeds the {count} colours of initial")
    if upper is not None and lower > upper:
        raise InvalidParameterError(f"lower ({lower}) exceeds upper ({upper})")
    bound = count if upper is None else min(count, upper)
    if lower > bound:
        raise InvalidParameterError(f"lower ({lower}) exceeds the {bound} colours of a greedy colouring")

    nodes, stopped = 0, None
    floor = lower
    if bound > lower:
        floor = max(lower, _greedy_clique(adj, deadline))
        if mycielski_share > 0 and n:
            floor = max(floor, extend_clique(adj, [0], target=bound, deadline=deadline).bound)
        if bound > floor:
            found, found_count, proven, nodes, stopped = dsatur_search(
                adj, bound, floor, deadline, node_limit, mycielski_share
            )
            if found is not None:
                colors, count = found, found_count
            if proven:
                floor = found_count
    else:
        floor = bound
    result = np.asarray(colors, dtype=np.int64)
    return ExactColoring(
        colors=result,
        num_colors=count,
        lower_bound=floor,
        optimal=count == floor,
        nodes=nodes,
        stopped=stopped,
    )
