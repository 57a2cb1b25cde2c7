"""The branch-and-bound loop over one graph: submit nodes to workers, absorb their children, obey limits.

:func:`run_tree` drives a :class:`~bbqmis.coloring.tree.tree.SearchState` until the incumbent
meets the lower bound, the tree is exhausted, or a limit is reached. Each pass submits
open nodes while the executor has room, waits at most half a second for one to finish,
and then looks at the limits:

- time: workers get the run's deadline and stop expanding by themselves; the loop stops
  when it passes and does not wait for work still in flight;
- memory: at 60 % of the limit the queue switches to depth-first order and the table of
  seen residuals (an optimisation only) is dropped; at 90 % the search stops;
- nodes: no node is submitted past the node limit.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field
from typing import Any

from ..limits import STOP_MEMORY_SHARE, Every, Limits
from .executors import executor_workers
from .expand import expand
from .tree import Node, SearchState, progress_snapshot

__all__ = ["TreeOutcome", "run_tree"]

#: Longest wait for a worker between two looks at the limits, in seconds.
_POLL_SECONDS = 0.5
#: Fraction of the memory limit at which the search turns frugal (it stops at
#: :data:`~bbqmis.coloring.limits.STOP_MEMORY_SHARE`).
_FRUGAL_MEMORY = 0.6


@dataclass
class TreeOutcome:
    """How a tree search ended.

    Attributes
    ----------
    stop_reason : str
        ``"bounds_met"``, ``"exhausted"``, ``"time_limit"``, ``"node_limit"`` or
        ``"memory_limit"``.
    lower_bound : int
        The proven lower bound (the given one, raised by an exhausted exact search).
    running : list of Node
        Nodes that were in flight when the search stopped.
    events : list of str
        What the search did to stay within its limits (``"depth-first"``, ``"dropped-seen"``).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
    >>> from bbqmis.coloring.limits import Clock
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> from bbqmis.coloring.tree.tree import to_bits
    >>> limits = Limits(time_limit=60)
    >>> search = SearchState(
    ...     nx.cycle_graph(7), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...     clock=Clock(limits),
    ... )
    >>> search.offer(tuple(1 << v for v in range(7)), "one colour per vertex")
    >>> search.push(Node((), to_bits(range(7)), bound=3))
    >>> outcome = run_tree(search, SerialExecutor(), limits, lower=3)
    >>> outcome.stop_reason, outcome.lower_bound, search.best
    ('bounds_met', 3, 3)
    """

    stop_reason: str
    lower_bound: int
    running: list[Node] = field(default_factory=list)
    events: list[str] = field(default_factory=list)


def run_tree(
    search: SearchState,
    executor: Executor,
    limits: Limits,
    lower: int,
    *,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    on_checkpoint: Callable[[list[Node]], None] | None = None,
    checkpoint_every: Every | None = None,
) -> TreeOutcome:
    """Search until the incumbent meets ``lower``, the tree is exhausted, or a limit is hit.

    Parameters
    ----------
    search : SearchState
        Its queue holds the nodes to start from.
    executor : concurrent.futures.Executor
        Where node expansions run.
    limits : Limits
    lower : int
        A proven lower bound on the colours of the graph.
    on_progress : callable, optional
        Called about twice a second with :func:`~bbqmis.coloring.tree.tree.progress_snapshot`.
    on_checkpoint : callable, optional
        Called with the running nodes whenever ``checkpoint_every`` is due.
    checkpoint_every : Every, optional

    Returns
    -------
    TreeOutcome

    Examples
    --------
    The 7-cycle needs 3 colours; the search stops when its incumbent meets that bound:

    >>> import networkx as nx
    >>> from bbqmis.coloring.tree.executors import SerialExecutor
    >>> from bbqmis.coloring.limits import Clock
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> from bbqmis.coloring.tree.tree import to_bits
    >>> limits = Limits(time_limit=60)
    >>> search = SearchState(
    ...     nx.cycle_graph(7), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...     clock=Clock(limits),
    ... )
    >>> search.offer(tuple(1 << v for v in range(7)), "one colour per vertex")
    >>> search.push(Node((), to_bits(range(7)), bound=3))
    >>> snapshots = []
    >>> outcome = run_tree(search, SerialExecutor(), limits, lower=3, on_progress=snapshots.append)
    >>> outcome.stop_reason, search.best, int(search.stats["nodes_explored"]) >= 1
    ('bounds_met', 3, True)

    Without the bound, an exact search runs until its tree is exhausted, which proves it:

    >>> search.push(Node((), to_bits(range(7)), bound=2))
    >>> run_tree(search, SerialExecutor(), limits, lower=2).stop_reason
    'exhausted'
    """
    running: dict[Future, Node] = {}
    outcome = TreeOutcome("exhausted", lower)
    progress_every = Every(_POLL_SECONDS)
    while True:
        reason = _limit_reached(search, limits, lower, running, outcome.events)
        if reason is None:
            _submit(search, executor, running, limits)
            if not running:
                reason = "node_limit" if search.heap else "exhausted"
        if reason is not None:
            outcome.stop_reason = reason
            break
        timeout = min(_POLL_SECONDS, search.clock.time_left())
        done, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            search.absorb(running.pop(future), future.result())
        if on_progress is not None and progress_every.due():
            on_progress(progress_snapshot(search, running.values()))
        if on_checkpoint is not None and checkpoint_every is not None and checkpoint_every.due():
            on_checkpoint(list(running.values()))
    for future in running:
        future.cancel()
    outcome.running = list(running.values())
    if outcome.stop_reason == "exhausted" and search.best <= lower:
        outcome.stop_reason = "bounds_met"
    if search.exhaustive:
        frontier = (
            search.best if outcome.stop_reason == "exhausted" else search.frontier_bound(outcome.running)
        )
        outcome.lower_bound = max(lower, frontier)
    return outcome


def _limit_reached(
    search: SearchState, limits: Limits, lower: int, running: dict[Future, Node], events: list[str]
) -> str | None:
    """Why the search must stop now, if it must; turns frugal when memory runs short."""
    if search.best <= lower:
        return "bounds_met"
    if limits.interrupted:
        return "interrupted"
    if search.clock.expired():
        return "time_limit"
    used = limits.memory_used()
    if used >= _FRUGAL_MEMORY and "depth-first" not in events:
        events.append("depth-first")
        search.go_depth_first()
        if search.seen:
            events.append("dropped-seen")
            search.seen.clear()
        used = limits.memory_used()
    if used >= STOP_MEMORY_SHARE:
        return "memory_limit"
    return None


def _submit(search: SearchState, executor: Executor, running: dict[Future, Node], limits: Limits) -> None:
    """Send open nodes to the executor until it is busy, the queue is empty or the node limit is hit."""
    capacity = max(1, executor_workers(executor))
    started = int(search.stats["nodes_explored"]) + len(running)
    deadline = search.clock.wall_deadline()
    while search.heap and len(running) < capacity and not limits.nodes_reached(started):
        node = search.pop()
        if node.bound < search.best and search.node_lp is not None:
            _lp_bound(search, node)
        if node.bound >= search.best:
            search.stats["nodes_pruned"] += 1
            continue
        running[executor.submit(expand, search.task(node, deadline))] = node
        started += 1


def _lp_bound(search: SearchState, node: Node) -> None:
    """Raise ``node.bound`` to its LP bound over the shared column pool, if that can run now."""
    assert search.node_lp is not None
    bound = search.node_lp.bound(
        node.residual,
        node.depth,
        node.bound,
        search.best,
        elapsed=search.clock.run_elapsed(),
        deadline=search.clock.deadline(),
    )
    if bound is not None and bound > node.bound:
        node.bound = bound
        search.stats["lp_pruned"] += bound >= search.best
