"""TabuCol: tabu search for a proper k-colouring, a fast upper bound on the chromatic number.

TabuCol (Hertz and de Werra, "Using tabu search techniques for graph coloring",
Computing 39, 1987) minimises the number of conflicting edges (both ends of one colour)
over complete k-colourings. A move recolours one conflicting vertex; the best move that
is not tabu is taken each iteration, ties broken at random, and the old colour of the
moved vertex is tabu for that vertex for ``L + lambda * F`` iterations, where ``F`` is
the number of conflicting vertices, ``L`` is drawn from ``0..9`` and ``lambda = 0.6``
(the dynamic tenure of Galinier and Hao, "Hybrid evolutionary algorithms for graph
coloring", J. Comb. Optim. 3, 1999). A tabu move is still allowed when it gives fewer
conflicts than the best seen so far (aspiration).

The ``n x k`` table ``gamma[v][c]`` (neighbours of ``v`` coloured ``c``) is updated in
``O(degree)`` per move, so an iteration costs ``O(conflicting vertices * k + degree)``.
The search runs in plain Python on lists (tens of thousands of iterations per second;
numpy calls on such small slices cost more than they save).

:func:`tabucol` looks for one k-colouring; :func:`improve_coloring` starts from a proper
colouring and removes one colour at a time while TabuCol succeeds, restarting TabuCol
with a doubling iteration budget (Luby, Sinclair and Zuckerman, Inf. Process. Lett. 47,
1993) because its run time has a heavy tail: an unlucky start at k colours can stall for
millions of iterations where another needs a few thousand. On ``le450_5a`` it goes from
DSATUR's 10 colours to the chromatic number 5 in 0.3 to 9 s (median 1.4 s over seeds
0-9, on two shared cores; ``benchmarks/tabucol.py``).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import SeedLike, check_nonnegative_int, check_positive_int, check_random_state

__all__ = ["Descent", "descend", "improve_coloring", "tabucol"]

#: Tenure ``randrange(TENURE_RANDOM) + int(TENURE_FACTOR * conflicting vertices)``
#: (Galinier and Hao 1999: L in 0..9, lambda = 0.6).
TENURE_RANDOM = 10
TENURE_FACTOR = 0.6

#: Work between two looks at the clock, in units of about k inner-loop steps (each
#: ~0.1 us), and never more than 256 iterations: the deadline holds to a few milliseconds.
_CLOCK_WORK = 20_000

#: Iterations of the first TabuCol run per colour count in ``improve_coloring`` (at least
#: ``n * k``); each restart doubles it.
RESTART_ITERATIONS = 20_000

#: ``improve_coloring``'s iteration budget per colour count when there is no deadline.
DEFAULT_ITERATIONS_PER_K = 1_000_000


@dataclass(frozen=True)
class _Graph:
    """An adjacency prepared for the search: CSR arrays and Python neighbour lists."""

    indptr: np.ndarray
    indices: np.ndarray
    neighbours: list[list[int]]

    @property
    def n(self) -> int:
        return len(self.neighbours)

    @property
    def has_edges(self) -> bool:
        return len(self.indices) > 0

    def is_proper(self, colors: np.ndarray) -> bool:
        """Whether no edge has both ends of one colour."""
        rows = np.repeat(np.arange(self.n), np.diff(self.indptr))
        return not bool(np.any(colors[rows] == colors[self.indices]))

    def gamma(self, colors: np.ndarray, k: int) -> np.ndarray:
        """Table of shape (n, k): neighbours of each vertex per colour (colours < 0 not counted)."""
        rows = np.repeat(np.arange(self.n), np.diff(self.indptr))
        neighbour_colors = colors[self.indices]
        keep = neighbour_colors >= 0
        flat = rows[keep] * k + neighbour_colors[keep]
        return np.bincount(flat, minlength=self.n * k).reshape(self.n, k)


@dataclass
class Descent:
    """What :func:`descend` did: the best colouring and, per colour count tried, the work.

    Attributes
    ----------
    colors : ndarray of shape (n,), dtype int64
        The best proper colouring found, colours ``0..k-1``.
    iterations : int
        TabuCol iterations over all searches.
    levels : list of (int, bool, int, float)
        One entry per TabuCol search, in order: the colour count it tried, whether it
        found a proper colouring, its iterations and its seconds.

    Examples
    --------
    >>> import numpy as np
    >>> trace = Descent(np.array([0, 1, 0]), iterations=12, levels=[(2, True, 12, 0.001)])
    >>> int(trace.colors.max()) + 1, trace.levels[0][:3]
    (2, (2, True, 12))
    """

    colors: np.ndarray
    iterations: int = 0
    levels: list[tuple[int, bool, int, float]] = field(default_factory=list)


def _prepare(adjacency: Any) -> _Graph:
    """Check ``adjacency`` (square, symmetric, no self-loop) and build the neighbour lists."""
    if sp.issparse(adjacency):
        try:
            matrix = sp.csr_array(adjacency, copy=True)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"adjacency must be a 2-D sparse matrix: {exc}") from exc
    else:
        try:
            dense = np.asarray(adjacency)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(
                f"adjacency must be a scipy sparse matrix or an (n, n) array, got {type(adjacency).__name__}"
            ) from exc
        if dense.ndim != 2 or dense.dtype == object:
            raise InvalidParameterError(
                f"adjacency must be a scipy sparse matrix or an (n, n) array, got shape {dense.shape}"
            )
        matrix = sp.csr_array(dense != 0) if dense.size else sp.csr_array(dense.shape, dtype=bool)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise InvalidParameterError(f"adjacency must be square, got shape {matrix.shape}")
    matrix.data = matrix.data != 0
    matrix.eliminate_zeros()
    matrix.sort_indices()
    if (diagonal := np.flatnonzero(matrix.diagonal())).size:
        raise InvalidParameterError(
            f"adjacency has a self-loop at vertex {int(diagonal[0])}: it has no proper colouring"
        )
    if (matrix != matrix.T).nnz:
        raise InvalidParameterError("adjacency must be symmetric (an undirected graph)")
    indptr = matrix.indptr.astype(np.int64)
    indices = matrix.indices.astype(np.int64)
    flat = indices.tolist()
    bounds = indptr.tolist()
    neighbours = [flat[bounds[v] : bounds[v + 1]] for v in range(len(bounds) - 1)]
    return _Graph(indptr, indices, neighbours)


def _check_deadline(deadline: object) -> float | None:
    if deadline is None:
        return None
    if isinstance(deadline, bool) or not isinstance(deadline, Real) or not math.isfinite(deadline):
        raise InvalidParameterError(
            f"deadline must be None or a time.perf_counter() value (a finite number), got {deadline!r}"
        )
    return float(deadline)


def _check_colors(colors: object, n: int, name: str) -> np.ndarray:
    array = np.asarray(colors)
    if array.shape != (n,) or not (np.issubdtype(array.dtype, np.integer) or n == 0):
        raise InvalidParameterError(
            f"{name} must be an integer array of shape ({n},), "
            f"got dtype {array.dtype} and shape {array.shape}"
        )
    return array.astype(np.int64)


def _search(
    graph: _Graph,
    k: int,
    initial: np.ndarray,
    max_iterations: int | None,
    deadline: float | None,
    rnd: random.Random,
) -> tuple[np.ndarray | None, int]:
    """TabuCol from ``initial`` (entries outside ``0..k-1`` are placed greedily first).

    Returns the proper colouring or None, and the number of iterations done.
    """
    n = graph.n
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    if k == 1 and graph.has_edges:
        return None, 0
    neighbours = graph.neighbours
    colors = np.where((initial >= 0) & (initial < k), initial, -1)
    gamma = graph.gamma(colors, k).tolist()
    col: list[int] = colors.tolist()
    _place(graph, k, colors, gamma, col, rnd)
    conflicting, position, f = _conflicts(gamma, col)
    best_f = f
    tabu = [[0] * k for _ in range(n)]  # move (v, c) is tabu while the iteration is below tabu[v][c]
    colour_range = range(k)
    uniform = rnd.random
    randrange = rnd.randrange
    limit = -1 if max_iterations is None else max_iterations
    check_every = max(1, _CLOCK_WORK // k)
    step = max(8, check_every // 256)  # so at most 256 iterations between looks
    work = 0
    it = 0
    if deadline is not None and f and time.perf_counter() >= deadline:
        return None, 0
    while f:
        if it == limit:
            return None, it
        if deadline is not None and work >= check_every:
            work = 0
            if time.perf_counter() >= deadline:
                return None, it
        it += 1
        aspiration = best_f - f  # a tabu move with a smaller delta beats the best seen
        best, v, new = _best_move(conflicting, gamma, col, tabu, colour_range, it, aspiration, n, uniform)
        nconf = len(conflicting)
        work += nconf + step
        if v < 0:  # every move is tabu: wait for one to expire
            continue
        old = col[v]
        f += best
        tabu[v][old] = it + randrange(TENURE_RANDOM) + int(TENURE_FACTOR * nconf)
        work += _move(v, new, neighbours, gamma, col, conflicting, position)
        if f < best_f:
            best_f = f
    result = np.asarray(col, dtype=np.int64)
    if not graph.is_proper(result):  # pragma: no cover - would be a bug in the bookkeeping
        raise RuntimeError("tabucol produced an improper colouring")
    return result, it


def _place(
    graph: _Graph, k: int, colors: np.ndarray, gamma: list[list[int]], col: list[int], rnd: random.Random
) -> None:
    """Give the vertices without a valid colour, largest degree first, their least conflicting colour."""
    neighbours = graph.neighbours
    unplaced = np.flatnonzero(colors < 0)
    degrees = np.diff(graph.indptr)
    for v in unplaced[np.argsort(-degrees[unplaced], kind="stable")].tolist():
        gv = gamma[v]
        low = min(gv)
        choices = [c for c in range(k) if gv[c] == low]
        c = choices[rnd.randrange(len(choices))] if len(choices) > 1 else choices[0]
        col[v] = c
        for u in neighbours[v]:
            gamma[u][c] += 1


def _conflicts(gamma: list[list[int]], col: list[int]) -> tuple[list[int], list[int], int]:
    """The vertices with a neighbour of their colour, their places in that list (else -1), the conflicts."""
    conflicting: list[int] = []
    position = [-1] * len(col)
    f = 0
    for v in range(len(col)):
        if gamma[v][col[v]]:
            position[v] = len(conflicting)
            conflicting.append(v)
            f += gamma[v][col[v]]
    return conflicting, position, f // 2


def _best_move(
    conflicting: list[int],
    gamma: list[list[int]],
    col: list[int],
    tabu: list[list[int]],
    colour_range: range,
    it: int,
    aspiration: int,
    n: int,
    uniform: Any,
) -> tuple[int, int, int]:
    """The best non-tabu move (or tabu one that beats ``aspiration``), ties broken at random.

    Returns its change of conflicting edges, its vertex and its new colour; the vertex is -1
    when every move is tabu.
    """
    best = n  # any real delta is below the maximum degree
    ties = 0
    move_v = move_c = -1
    for v in conflicting:
        gv = gamma[v]
        cv = col[v]
        own = gv[cv]
        if min(gv) - own > best:
            continue
        tv = tabu[v]
        for c in colour_range:
            delta = gv[c] - own
            if delta > best or c == cv or (tv[c] > it and delta >= aspiration):
                continue
            if delta < best:
                best = delta
                ties = 1
                move_v = v
                move_c = c
            else:
                ties += 1
                if uniform() * ties < 1.0:
                    move_v = v
                    move_c = c
    return best, move_v, move_c


def _move(
    v: int,
    new: int,
    neighbours: list[list[int]],
    gamma: list[list[int]],
    col: list[int],
    conflicting: list[int],
    position: list[int],
) -> int:
    """Recolour ``v`` with ``new``, updating the conflict counts and the conflicting list; the work done."""
    old = col[v]
    col[v] = new
    nv = neighbours[v]
    for u in nv:
        gu = gamma[u]
        gu[old] -= 1
        gu[new] += 1
        cu = col[u]
        if cu == old:
            if not gu[old]:  # u leaves the conflicting list
                _drop(conflicting, position, u)
        elif cu == new and gu[new] == 1:  # u joins it
            position[u] = len(conflicting)
            conflicting.append(u)
    if gamma[v][new]:
        if position[v] < 0:
            position[v] = len(conflicting)
            conflicting.append(v)
    elif position[v] >= 0:
        _drop(conflicting, position, v)
    return len(nv) >> 2


def _drop(conflicting: list[int], position: list[int], u: int) -> None:
    """Remove ``u`` from the conflicting list in O(1): the last entry takes its place."""
    p = position[u]
    last = conflicting.pop()
    if last != u:
        conflicting[p] = last
        position[last] = p
    position[u] = -1


def tabucol(
    adjacency: Any,
    k: int,
    *,
    initial: Any = None,
    max_iterations: int | None = None,
    deadline: float | None = None,
    seed: SeedLike = None,
) -> np.ndarray | None:
    """Search for a proper k-colouring by tabu search (TabuCol).

    Parameters
    ----------
    adjacency : scipy.sparse matrix or array, or ndarray of shape (n, n)
        Symmetric adjacency with an empty diagonal; a nonzero entry is an edge. CSR is
        used as is, other sparse formats and dense arrays (any dtype) are converted.
    k : int
        Number of colours, >= 1.
    initial : array_like of int, shape (n,), optional
        Starting colouring. Entries outside ``0..k-1`` (e.g. -1, or a colour class that
        was removed) are first given, largest degree first, the colour with the fewest
        neighbours already coloured with it. ``None`` (default): every vertex is placed
        that way.
    max_iterations : int, optional
        Give up after this many moves (>= 0). ``None``: no limit.
    deadline : float, optional
        Absolute time in seconds on the :func:`time.perf_counter` clock after which the
        search gives up; the clock is read every few milliseconds of work. ``None``: no
        limit. With neither limit and no k-colouring, the search never ends.
    seed : None, int or numpy.random.Generator, optional
        Randomness for tie-breaking and tenures; a fixed seed makes the run repeatable.

    Returns
    -------
    colors : ndarray of shape (n,), dtype int64, or None
        A proper colouring with colours ``0..k-1`` (some may be unused), or None if none
        was found within the limits (always None for ``k = 1`` on a graph with an edge).
        A proper ``initial`` is returned at once, whatever the limits.

    Raises
    ------
    InvalidParameterError
        If ``adjacency`` is not square and symmetric or has a self-loop, or if a parameter
        is out of range; the message names it.

    Examples
    --------
    >>> import networkx as nx
    >>> adjacency = nx.to_scipy_sparse_array(nx.petersen_graph(), format="csr")
    >>> colors = tabucol(adjacency, 3, seed=0)
    >>> sorted(set(colors.tolist()))
    [0, 1, 2]
    >>> all(colors[u] != colors[v] for u, v in nx.petersen_graph().edges)
    True
    >>> print(tabucol(adjacency, 2, max_iterations=1000, seed=0))
    None
    """
    graph = _prepare(adjacency)
    k = check_positive_int(k, "k")
    limit = None if max_iterations is None else check_nonnegative_int(max_iterations, "max_iterations")
    deadline = _check_deadline(deadline)
    start = (
        np.full(graph.n, -1, dtype=np.int64)
        if initial is None
        else _check_colors(initial, graph.n, "initial")
    )
    rnd = random.Random(int(check_random_state(seed).integers(2**63)))
    # More colours than vertices are never needed (and would only enlarge the tables).
    return _search(graph, min(k, max(graph.n, 1)), start, limit, deadline, rnd)[0]


def _improve(
    graph: _Graph,
    colors: np.ndarray,
    deadline: float | None,
    rng: np.random.Generator,
    max_iterations_per_k: int | None,
    lower_bound: int,
) -> Descent:
    """Drop one colour at a time from the proper ``colors`` while TabuCol succeeds."""
    if deadline is None and max_iterations_per_k is None:
        max_iterations_per_k = DEFAULT_ITERATIONS_PER_K
    rnd = random.Random(int(rng.integers(2**63)))
    best = np.unique(colors, return_inverse=True)[1].astype(np.int64).reshape(-1)
    descent = Descent(best)
    k = int(best.max()) + 1 if best.size else 0
    floor = max(lower_bound, 2 if graph.has_edges else 1)
    while k - 1 >= floor:
        found = None
        spent = 0
        budget = max(RESTART_ITERATIONS, graph.n * k)
        # Restarts with a doubling budget cut TabuCol's heavy-tailed run times; each one
        # removes the next smallest colour class (the highest-numbered among equals) and
        # merges its vertices greedily into the others before the search starts.
        order = k - 1 - np.argsort(np.bincount(best, minlength=k)[::-1], kind="stable")
        for attempt in itertools.count():
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if max_iterations_per_k is not None:
                budget = min(budget, max_iterations_per_k - spent)
                if budget <= 0:
                    break
            drop = int(order[attempt % k])
            start = np.where(best > drop, best - 1, best)
            start[best == drop] = -1
            began = time.perf_counter()
            found, iterations = _search(graph, k - 1, start, budget, deadline, rnd)
            spent += iterations
            descent.levels.append((k - 1, found is not None, iterations, time.perf_counter() - began))
            if found is not None:
                break
            budget *= 2
        descent.iterations += spent
        if found is None or not graph.is_proper(found):
            break
        best = np.unique(found, return_inverse=True)[1].astype(np.int64).reshape(-1)
        k = int(best.max()) + 1
    descent.colors = best
    return descent


def improve_coloring(
    adjacency: Any,
    colors: Any,
    *,
    deadline: float | None = None,
    seed: SeedLike = None,
    max_iterations_per_k: int | None = None,
    lower_bound: int = 1,
) -> np.ndarray:
    """Reduce the number of colours of a proper colouring with TabuCol, one colour at a time.

    From a proper colouring with k colours, the smallest colour class is removed, its
    vertices are merged greedily into the other classes, and :func:`tabucol` searches
    for a proper (k-1)-colouring from there; this repeats until TabuCol fails, the
    deadline passes or ``lower_bound`` colours are reached. A search that fails within
    its budget (``max(RESTART_ITERATIONS, n * k)`` iterations at first) is restarted with
    twice the budget, each time removing the next colour class in order of size.

    Parameters
    ----------
    adjacency : scipy.sparse matrix or array, or ndarray of shape (n, n)
        Symmetric adjacency with an empty diagonal, as for :func:`tabucol`.
    colors : array_like of int, shape (n,)
        A proper colouring; any non-negative labels (they are renumbered ``0..k-1``).
    deadline : float, optional
        Absolute :func:`time.perf_counter` time in seconds after which the best colouring
        so far is returned. With a deadline and no ``max_iterations_per_k``, each colour
        count is searched until the deadline, so the call lasts until then unless
        ``lower_bound`` is reached.
    seed : None, int or numpy.random.Generator, optional
        Randomness of the searches; a fixed seed makes the run repeatable (when it ends
        on an iteration limit rather than a deadline).
    max_iterations_per_k : int, optional
        Iterations allowed per colour count, shared by its restarts (>= 1). ``None``: no
        limit when a deadline is given, else ``DEFAULT_ITERATIONS_PER_K`` (1,000,000).
    lower_bound : int, default 1
        A known lower bound on the chromatic number (e.g. a clique size): the descent
        stops when the colouring has that many colours.

    Returns
    -------
    colors : ndarray of shape (n,), dtype int64
        A proper colouring with colours ``0..k'-1`` and ``k' <= k``: the input renumbered
        if nothing better was found.

    Raises
    ------
    InvalidParameterError
        If ``adjacency`` is invalid (see :func:`tabucol`), if ``colors`` has the wrong
        shape, a negative entry or two adjacent vertices of one colour, or if another
        parameter is out of range.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> adjacency = nx.to_numpy_array(nx.petersen_graph(), dtype=bool)
    >>> better = improve_coloring(adjacency, np.arange(10), max_iterations_per_k=10_000, seed=0)
    >>> int(better.max()) + 1
    3
    """
    return descend(
        adjacency,
        colors,
        deadline=deadline,
        seed=seed,
        max_iterations_per_k=max_iterations_per_k,
        lower_bound=lower_bound,
    ).colors


def descend(
    adjacency: Any,
    colors: Any,
    *,
    deadline: float | None = None,
    seed: SeedLike = None,
    max_iterations_per_k: int | None = None,
    lower_bound: int = 1,
) -> Descent:
    """:func:`improve_coloring`, returning the work of every TabuCol search beside the colouring.

    Same parameters and checks as :func:`improve_coloring`; for benchmarks and studies of
    the descent (iterations per colour count, time to the best colouring).

    Returns
    -------
    Descent

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> adjacency = nx.to_numpy_array(nx.petersen_graph(), dtype=bool)
    >>> descent = descend(adjacency, np.arange(10), max_iterations_per_k=10_000, seed=0)
    >>> int(descent.colors.max()) + 1, descent.levels[-1][:2]  # 2 colours: not found
    (3, (2, False))
    >>> descent.iterations == sum(iterations for _, _, iterations, _ in descent.levels)
    True
    """
    graph = _prepare(adjacency)
    array = _check_colors(colors, graph.n, "colors")
    if array.size and array.min() < 0:
        raise InvalidParameterError(f"colors must be non-negative, got {int(array.min())}")
    if not graph.is_proper(array):
        rows = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
        clash = int(np.flatnonzero(array[rows] == array[graph.indices])[0])
        u, v = int(rows[clash]), int(graph.indices[clash])
        raise InvalidParameterError(
            f"colors must be a proper colouring: adjacent vertices {u} and {v} share colour {int(array[u])}"
        )
    deadline = _check_deadline(deadline)
    limit = (
        None
        if max_iterations_per_k is None
        else check_positive_int(max_iterations_per_k, "max_iterations_per_k")
    )
    lower_bound = check_positive_int(lower_bound, "lower_bound")
    return _improve(graph, array, deadline, check_random_state(seed), limit, lower_bound)
