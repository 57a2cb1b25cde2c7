"""The DSATUR branch-and-bound tree of :mod:`~bbqmis.coloring.classical.dsatur_exact`.

:func:`dsatur_search` runs the iterative search over neighbourhood bitsets: the branching
rule, unit propagation, the colour-class bound and conflict-directed backjumping that the
module docstring of :mod:`~bbqmis.coloring.classical.dsatur_exact` describes, with an
explicit stack of at most ``n`` frames.
"""

from __future__ import annotations

import time
from typing import Any

from .mycielski import extend_clique, quotient_adjacency

__all__ = ["MYCIELSKI_SHARE", "dsatur_search"]

#: Nodes between two looks at the clock (a node takes 10 us to a few ms).
_CLOCK_EVERY = 16
#: Most of the search's time that the Mycielskian bound of the nodes' quotient graphs may take.
MYCIELSKI_SHARE = 0.25


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
            _saturate(levels, newly, k - 1)

    def frame(
        self, uncoloured: int, neigh: list[int], classes: list[int], levels: list[int], used: int
    ) -> list[Any]:
        """A new decision at this node: its branching vertex and the colours to try.

        The vertex has maximum saturation, then the best score of Sewell's rule, then the
        largest degree among the uncoloured vertices. The frame holds the vertex, the node's
        state without it (uncoloured bitset, colour-class neighbourhoods, saturation levels,
        colours used), the colours still to try (a bitmask), the explanation gathered from
        its failed children and the colour classes.
        """
        adj = self.adj
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
        if used < self.k:
            options |= 1 << used
        return [v, uncoloured ^ vbit, neigh, levels, used, options, 0, classes]

    def child(
        self, frame: list[Any], c: int, d: int
    ) -> tuple[int, list[int], list[int], list[int], int, int]:
        """Colour the vertex of ``frame`` (decision ``d``) with ``c`` and propagate.

        Returns the child's uncoloured bitset, colour-class neighbourhoods, colour classes,
        saturation levels, colours used and conflict (-1 if none).
        """
        adj = self.adj
        v = frame[0]
        self.col[v] = c
        self.depth[v] = d
        self.clock += 1
        self.stamp[v] = self.clock
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
        _saturate(levels, newly, used - 1)
        uncoloured, used, conflict = self.propagate(uncoloured, neigh, classes, levels, used)
        return uncoloured, neigh, classes, levels, used, conflict


class _QuotientBound:
    """The Mycielskian bound of a node's quotient graph, within a share of the search's time.

    A node's colour classes, merged into one vertex each, form a clique of the quotient
    graph (:func:`~bbqmis.coloring.classical.mycielski.quotient_adjacency`), grown greedily
    by uncoloured vertices and then extended by Mycielskian levels; if the bound exceeds
    ``k``, no colouring with ``k`` colours extends the node. Its explanation is, for every
    edge of the structure between a class and an uncoloured vertex, the decisions that put
    the class's first member next to that vertex there.
    """

    def __init__(self, share: float) -> None:
        self.share = share
        self.start = time.perf_counter()
        self.spent = 0.0
        self.calls = 0
        self.prunes = 0

    def conflict(self, search: _Search, uncoloured: int, classes: list[int]) -> int:
        """A conflict (bitset of decision depths) if the bound exceeds ``search.k``, else -1."""
        now = time.perf_counter()
        if self.spent > self.share * (now - self.start):
            return -1
        self.calls += 1
        try:
            return self._conflict(search, uncoloured, classes)
        finally:
            self.spent += time.perf_counter() - now

    def _conflict(self, search: _Search, uncoloured: int, classes: list[int]) -> int:
        n, k = len(search.adj), search.k
        quotient = quotient_adjacency(search.adj, classes, uncoloured)
        clique = [n + c for c in range(len(classes))]
        candidates = uncoloured
        for v in clique:
            candidates &= quotient[v]
        while candidates:  # the uncoloured vertex with most candidate neighbours joins
            pick, most = -1, -1
            x = candidates
            while x:
                low = x & -x
                u = low.bit_length() - 1
                x ^= low
                inside = (quotient[u] & candidates).bit_count()
                if inside > most:
                    pick, most = u, inside
            clique.append(pick)
            candidates &= quotient[pick]
        witness = extend_clique(quotient, clique, target=k + 1)
        if witness.bound <= k:
            first = uncoloured & -uncoloured  # the structure from one vertex, as at the root
            witness = extend_clique(quotient, [first.bit_length() - 1], target=k + 1)
            if witness.bound <= k:
                return -1
            clique = list(witness.clique)
        self.prunes += 1
        edges = {(a, b) for a in clique for b in clique if a >= n > b}
        for level in witness.levels:
            edges.update((max(a, b), min(a, b)) for a, b in level.edges if max(a, b) >= n > min(a, b))
        conflict = 0
        depth = search.depth
        for c, u in edges:
            (w,) = search.antecedents(u, [classes[c - n]], search.clock + 1)
            conflict |= 1 << depth[w] if depth[w] >= 0 else search.implied_reason(w, classes)
        return conflict


def _saturate(levels: list[int], newly: int, s: int) -> None:
    """Move the vertices of ``newly`` one saturation level up, from level ``s`` down (in place)."""
    while newly:
        moved = levels[s] & newly
        if moved:
            levels[s] ^= moved
            levels[s + 1] |= moved
            newly ^= moved
        s -= 1


def dsatur_search(
    adj: list[int],
    best_count: int,
    lower: int,
    deadline: float | None,
    node_limit: int | None,
    mycielski_share: float = 0.0,
) -> tuple[list[int] | None, int, bool, int, str | None]:
    """DSATUR branch-and-bound for colourings with fewer than ``best_count`` colours.

    Parameters
    ----------
    adj : list of int
        Neighbourhood bitsets, one per vertex.
    best_count : int
        Colours of the best colouring known.
    lower : int
        A proven lower bound: the search stops when a colouring meets it.
    deadline : float or None
        :func:`time.perf_counter` time at which to stop.
    node_limit : int or None
        Most decisions.
    mycielski_share : float, default 0.0
        Most of the search's time spent on the Mycielskian bound of the nodes' quotient
        graphs (0: none), which prunes a node whose bound exceeds the colours allowed.

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

    Examples
    --------
    >>> adj = [0b110, 0b101, 0b011]  # a triangle
    >>> dsatur_search(adj, best_count=4, lower=0, deadline=None, node_limit=None)
    ([0, 1, 2], 3, True, 3, None)
    """
    n = len(adj)
    search = _Search(adj, best_count - 1)
    best: list[int] | None = None
    while True:  # the root, again under each bound that propagation alone meets
        neigh: list[int] = []
        classes: list[int] = []
        levels = [0] * (search.k + 2)
        levels[0] = (1 << n) - 1
        uncoloured, used, conflict = search.propagate((1 << n) - 1, neigh, classes, levels, 0)
        if conflict >= 0:
            return best, best_count, True, 0, None
        if uncoloured:
            break
        best, best_count = search.col.copy(), used
        if used <= lower:
            return best, best_count, True, 0, None
        search.k = used - 1
    stack = [search.frame(uncoloured, neigh, classes, levels, used)]  # frame d: the d-th decision
    nodes = 0
    bound = _QuotientBound(mycielski_share) if mycielski_share > 0 else None
    while True:
        d = len(stack) - 1
        frame = stack[d]
        options = frame[5]
        if not options or (options & -options).bit_length() - 1 >= search.k:
            # Exhausted: the failed children's explanations and the neighbours' colours.
            conflict = (frame[6] | search.explain(frame[0], frame[7])) & ~(1 << d)
            stack.pop()
        else:
            low = options & -options
            frame[5] = options ^ low
            if node_limit is not None and nodes >= node_limit:
                return best, best_count, False, nodes, "node_limit"
            if deadline is not None and nodes % _CLOCK_EVERY == 0 and time.perf_counter() >= deadline:
                return best, best_count, False, nodes, "time_limit"
            nodes += 1
            uncoloured, neigh, classes, levels, used, conflict = search.child(frame, low.bit_length() - 1, d)
            if conflict < 0 and uncoloured and bound is not None:
                conflict = bound.conflict(search, uncoloured, classes)
            if conflict < 0 and uncoloured:
                stack.append(search.frame(uncoloured, neigh, classes, levels, used))
                continue
            if conflict < 0:  # a colouring with `used` colours
                best, best_count = search.col.copy(), used
                if used <= lower or not _retreat(stack, search, used - 1):
                    return best, best_count, True, nodes, None
                continue
            if (conflict >> d) & 1:
                frame[6] |= conflict ^ (1 << d)
                continue
        if not _backjump(stack, conflict):
            return best, best_count, True, nodes, None


def _retreat(stack: list[list[Any]], search: _Search, k: int) -> bool:
    """Allow ``k`` colours from now on: back to the deepest decision whose node uses at most ``k``.

    Its current colour is tried again under the new bound. False when no decision is left.
    """
    search.k = k
    while stack and stack[-1][4] > k:
        stack.pop()
    if not stack:
        return False
    frame = stack[-1]
    c = search.col[frame[0]]
    if c < k:
        frame[5] |= 1 << c
    return True


def _backjump(stack: list[list[Any]], conflict: int) -> bool:
    """Pop to the deepest decision in ``conflict`` and give it the explanation; False if there is none."""
    while stack:
        d = len(stack) - 1
        if (conflict >> d) & 1:
            stack[d][6] |= conflict ^ (1 << d)
            return True
        stack.pop()
    return False
