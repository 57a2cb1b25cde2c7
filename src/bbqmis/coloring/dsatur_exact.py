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
from backends.utils.validation import check_nonnegative_int, check_positive_int

__all__ = ["ExactColoring", "exact_coloring"]

#: Nodes between two looks at the clock (a node takes 10 us to a few ms).
_CLOCK_EVERY = 16


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


class _Search:
    """DSATUR branch-and-bound for colourings with at most ``k`` colours, ``k`` shrinking as they are found.

    A node's state is the bitset of uncoloured vertices, the colour-class
    neighbourhoods ``neigh[c]`` (vertices adjacent to colour ``c``), the saturation
    levels ``levels[s]`` (uncoloured vertices that see exactly ``s`` colours) and the
    number of colours used. Vertices that see ``k - 1`` colours are coloured at once
    (unit propagation), a colour class at a time. Every coloured vertex has a stamp
    (the order of colouring) and is either a decision (``depth >= 0``) or implied; the
    reason of an implied vertex, a bitset of decision depths, is derived on demand.
    """

    def __init__(self, adj: list[int], k: int) -> None:
        n = len(adj)
        self.adj = adj
        self.k = k
        self.col = [-1] * n
        self.depth = [-1] * n
        self.stamp = [0] * n
        self.reason = [0] * n
        self.reason_at = [-1] * n
        self.clock = 0

    def antecedents(self, u: int, classes: list[int], limit: int) -> list[int]:
        """For each colour next to ``u``, its neighbour of that colour coloured first (stamp < ``limit``)."""
        stamp = self.stamp
        around = self.adj[u]
        first = []
        for members in classes:
            x = around & members
            if not x:
                continue
            low = x & -x
            w = low.bit_length() - 1
            x ^= low
            best = stamp[w]
            while x:
                low = x & -x
                z = low.bit_length() - 1
                x ^= low
                if stamp[z] < best:
                    w, best = z, stamp[z]
            if best < limit:
                first.append(w)
        return first

    def explain(self, u: int, classes: list[int]) -> int:
        """Decisions (a bitset of depths) that make the uncoloured vertex ``u`` see its colours."""
        depth = self.depth
        conflict = 0
        for w in self.antecedents(u, classes, self.clock + 1):
            d = depth[w]
            conflict |= 1 << d if d >= 0 else self.implied_reason(w, classes)
        return conflict

    def implied_reason(self, w0: int, classes: list[int]) -> int:
        """Decisions (a bitset of depths) that forced the colour of the implied vertex ``w0``."""
        depth, stamp, reason, reason_at = self.depth, self.stamp, self.reason, self.reason_at
        todo = [w0]
        while todo:
            w = todo[-1]
            if reason_at[w] == stamp[w]:
                todo.pop()
                continue
            ants = self.antecedents(w, classes, stamp[w])
            missing = [a for a in ants if depth[a] < 0 and reason_at[a] != stamp[a]]
            if missing:
                todo.extend(missing)
                continue
            r = 0
            for a in ants:
                r |= 1 << depth[a] if depth[a] >= 0 else reason[a]
            reason[w] = r
            reason_at[w] = stamp[w]
            todo.pop()
        return reason[w0]

    def propagate(
        self, uncoloured: int, neigh: list[int], classes: list[int], levels: list[int], used: int
    ) -> tuple[int, int, int]:
        """Colour every vertex left with one colour; ``neigh``, ``classes`` and ``levels`` change in place.

        Returns the uncoloured bitset, the colours used and a conflict (a bitset of
        decision depths), or -1 if there is none.
        """
        adj, col, depth, stamp, k = self.adj, self.col, self.depth, self.stamp, self.k
        while True:
            if levels[k]:
                wiped = levels[k]
                return uncoloured, used, self.explain((wiped & -wiped).bit_length() - 1, classes)
            forced = levels[k - 1]
            if not forced:
                return uncoloured, used, -1
            if used < k:
                c = used  # they see every colour used: the new one is theirs
            else:
                c = 0
                while not forced & ~neigh[c]:
                    c += 1
                forced &= ~neigh[c]
            around = 0
            x = forced
            clock = self.clock
            while x:
                low = x & -x
                u = low.bit_length() - 1
                x ^= low
                clash = adj[u] & forced
                if clash:
                    w = (clash & -clash).bit_length() - 1
                    return uncoloured, used, self.explain(u, classes) | self.explain(w, classes)
                around |= adj[u]
                col[u] = c
                depth[u] = -1
                clock += 1
                stamp[u] = clock
            self.clock = clock
            uncoloured ^= forced
            levels[k - 1] ^= forced
            if c == used:
                neigh.append(around)
                classes.append(forced)
                newly = around & uncoloured
                used += 1
            else:
                newly = around & uncoloured & ~neigh[c]
                neigh[c] |= around
                classes[c] |= forced
            s = k - 1
            while newly:
                moved = levels[s] & newly
                if moved:
                    levels[s] ^= moved
                    levels[s + 1] |= moved
                    newly ^= moved
                s -= 1


def _search(
    adj: list[int],
    best_count: int,
    lower: int,
    deadline: float | None,
    node_limit: int | None,
) -> tuple[list[int] | None, int, bool, int, str | None]:
    """DSATUR branch-and-bound for colourings with fewer than ``best_count`` colours.

    Returns
    -------
    colors : list of int or None
        The best colouring found, None if none beat ``best_count``.
    count : int
        Its colours, else ``best_count``.
    proven : bool
        Whether ``count`` is proven optimal (the tree was exhausted or ``lower`` met).
    nodes : int
        Decisions made.
    stopped : str or None
        Why the search stopped early, if it did.
    """
    n = len(adj)
    k = best_count - 1  # colours allowed
    search = _Search(adj, k)
    col, depth, stamp = search.col, search.depth, search.stamp
    propagate, explain = search.propagate, search.explain
    best: list[int] | None = None
    nodes = 0
    # Frame d (the d-th decision): its vertex, the node's state without that vertex
    # (uncoloured bitset, colour-class neighbourhoods, saturation levels, colours used),
    # the colours still to try (bitmask), the explanation gathered from its failed children
    # and the colour classes.
    stack: list[list[Any]] = []

    # The root.
    while True:
        neigh: list[int] = []
        classes: list[int] = []
        levels = [0] * (k + 2)
        levels[0] = (1 << n) - 1
        uncoloured, used, conflict = propagate((1 << n) - 1, neigh, classes, levels, 0)
        if conflict >= 0:
            return best, best_count, True, nodes, None
        if uncoloured:
            break
        best, best_count = col.copy(), used
        if used <= lower:
            return best, best_count, True, nodes, None
        k = search.k = used - 1

    expand = True  # expand the node above; else advance the top frame
    while True:
        if expand:
            expand = False
            # Select the branching vertex: maximum saturation, then Sewell's rule.
            top = used
            while not levels[top]:
                top -= 1
            candidates = levels[top]
            if candidates & (candidates - 1) == 0:
                v = candidates.bit_length() - 1
            else:
                v, key = -1, (-1, -1)
                x = candidates
                while x:
                    low = x & -x
                    u = low.bit_length() - 1
                    around = adj[u] & uncoloured
                    degree = around.bit_count()
                    score = 0
                    for c in range(used):
                        nc = neigh[c]
                        if not (nc >> u) & 1:
                            score += (around & ~nc).bit_count()
                    if score > key[0] or (score == key[0] and degree > key[1]):
                        v, key = u, (score, degree)
                    x ^= low
            vbit = 1 << v
            levels = levels.copy()
            levels[top] ^= vbit
            options = 0
            for c in range(used):
                if not (neigh[c] >> v) & 1:
                    options |= 1 << c
            if used < k:
                options |= 1 << used
            stack.append([v, uncoloured ^ vbit, neigh, levels, used, options, 0, classes])

        # Advance the top frame: its next colour, or backtrack with its explanation.
        d = len(stack) - 1
        frame = stack[d]
        options = frame[5]
        v = frame[0]
        if not options or (options & -options).bit_length() - 1 >= k:
            # Exhausted: the failed children's explanations and the neighbours' colours.
            conflict = (frame[6] | explain(v, frame[7])) & ~(1 << d)
            stack.pop()
        else:
            low = options & -options
            frame[5] = options ^ low
            c = low.bit_length() - 1
            if node_limit is not None and nodes >= node_limit:
                return best, best_count, False, nodes, "node_limit"
            if deadline is not None and nodes % _CLOCK_EVERY == 0 and time.perf_counter() >= deadline:
                return best, best_count, False, nodes, "time_limit"
            nodes += 1

            # The child's state.
            col[v] = c
            depth[v] = d
            search.clock += 1
            stamp[v] = search.clock
            uncoloured = frame[1]
            used = frame[4]
            if c == used:
                newly = adj[v] & uncoloured
                neigh = frame[2] + [adj[v]]
                classes = frame[7] + [1 << v]
                used += 1
            else:
                neigh = frame[2].copy()
                newly = adj[v] & uncoloured & ~neigh[c]
                neigh[c] |= adj[v]
                classes = frame[7].copy()
                classes[c] |= 1 << v
            levels = frame[3].copy()
            s = used - 1
            while newly:
                moved = levels[s] & newly
                if moved:
                    levels[s] ^= moved
                    levels[s + 1] |= moved
                    newly ^= moved
                s -= 1
            uncoloured, used, conflict = propagate(uncoloured, neigh, classes, levels, used)
            if conflict < 0:
                if uncoloured:
                    expand = True
                    continue
                # A colouring with `used` colours.
                best, best_count = col.copy(), used
                if used <= lower:
                    return best, best_count, True, nodes, None
                k = search.k = used - 1
                # Back to the deepest decision whose node uses at most k colours; its
                # current colour is tried again under the new bound.
                while stack and stack[-1][4] > k:
                    stack.pop()
                if not stack:
                    return best, best_count, True, nodes, None
                frame = stack[-1]
                c = col[frame[0]]
                if c < k:
                    frame[5] |= 1 << c
                continue
            if (conflict >> d) & 1:
                frame[6] |= conflict ^ (1 << d)
                continue
        # Backjump to the deepest decision in the explanation.
        while stack:
            d = len(stack) - 1
            if (conflict >> d) & 1:
                stack[d][6] |= conflict ^ (1 << d)
                break
            stack.pop()
        else:
            return best, best_count, True, nodes, None


def exact_coloring(
    adjacency: Any,
    *,
    lower: int = 0,
    upper: int | None = None,
    initial: Any = None,
    deadline: float | None = None,
    node_limit: int | None = None,
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
        if bound > floor:
            found, found_count, proven, nodes, stopped = _search(adj, bound, floor, deadline, node_limit)
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
