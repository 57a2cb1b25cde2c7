"""The JSON form of a search tree and of a branch-and-price tree, checked when read back.

:func:`dump_search` and :func:`dump_price` write a tree as JSON-ready data;
:func:`restore_search` and :func:`restore_price` read it back, and refuse with one line
(:class:`~bbqmis.coloring.errors.SearchError`) any content that a resumed run could not
rely on: an improper or incomplete colouring, a vertex out of range, a bound outside what
it proves and what it needs, an open list that disagrees with its summary, or Zykov paths
that do not replay. The file around it is :mod:`~bbqmis.coloring.tree.checkpoint`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

import networkx as nx

from ...samples import add_stats
from ..errors import SearchError
from ..lp.branch_price import PriceTree, check_tree
from .tree import STRATEGIES, Node, SearchState

__all__ = ["check_snapshot", "dump_price", "dump_search", "restore_price", "restore_search"]


class _Corrupt(ValueError):
    """A check of the content failed (turned into a :class:`SearchError` naming the file)."""


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return f"missing field {exc.args[0]!r}"
    return " ".join(str(exc).split()) or type(exc).__name__


# -- checks of the content -------------------------------------------------------------------
def _require(condition: bool, message: str) -> None:
    if not condition:
        raise _Corrupt(message)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _int_in(value: object, low: int, high: int, what: str) -> int:
    _require(
        _is_int(value) and low <= value <= high,
        f"{what} must be an integer in [{low}, {high}], found {value!r}",
    )
    assert isinstance(value, int)
    return value


def _check_counters(counters: object, what: str) -> None:
    """Statistics: a dict of finite numbers >= 0."""
    _require(isinstance(counters, dict), f"{what} must be an object, found {counters!r}")
    assert isinstance(counters, dict)
    for key, value in counters.items():
        _require(_is_number(value) and value >= 0, f"{what}[{key!r}] must be a number >= 0, found {value!r}")


def _check_history(history: object, what: str) -> list[int]:
    """Incumbent history ``[[seconds, colours, source], ...]`` with falling colours; returns the colours."""
    _require(isinstance(history, list), f"{what} must be a list")
    assert isinstance(history, list)
    colours = []
    for entry in history:
        _require(
            isinstance(entry, list)
            and len(entry) == 3
            and _is_number(entry[0])
            and entry[0] >= 0
            and _is_int(entry[1])
            and entry[1] >= 1
            and isinstance(entry[2], str),
            f"{what} entries must be [seconds, colours, source], found {entry!r}",
        )
        colours.append(entry[1])
    _require(all(a > b for a, b in zip(colours, colours[1:], strict=False)), f"{what}: colours do not fall")
    return colours


# -- the search tree ---------------------------------------------------------------------------
def _hex(bits: int) -> str:
    return format(bits, "x")


def _bits(text: object, n: int, what: str) -> int:
    """A non-empty vertex set of ``0..n-1`` written in hexadecimal."""
    _require(
        isinstance(text, str) and 0 < len(text) <= n // 4 + 1 and all(c in "0123456789abcdef" for c in text),
        f"{what} must be a hexadecimal vertex set, found {text!r}",
    )
    bits = int(str(text), 16)
    _require(bits > 0 and bits.bit_length() <= n, f"{what} {text!r} is empty or names a vertex >= {n}")
    return bits


def dump_search(search: SearchState, running: Iterable[Node]) -> dict[str, Any]:
    """The tree of ``search`` as JSON-ready data, running nodes included as open ones.

    ``summary`` repeats the number of open nodes, their lowest bound and the number of
    seen residuals, so that a checkpoint whose open list lost nodes is refused.

    Examples
    --------
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> from bbqmis.coloring.tree.tree import Node, SearchState, to_bits
    >>> def new_search():
    ...     return SearchState(
    ...         nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...         clock=Clock(Limits()),
    ...     )
    >>> search = new_search()
    >>> search.offer((to_bits([0, 2]), to_bits([1, 3]), to_bits([4])), "dsatur")
    >>> search.push(Node((to_bits([0, 2]),), to_bits([1, 3, 4]), bound=3))
    >>> data = dump_search(search, running=[])
    >>> data["incumbent"], [node["residual"] for node in data["open"]]
    (['5', 'a', '10'], ['1a'])
    """
    nodes = search.open_nodes() + list(running)
    return {
        "strategy": search.strategy,
        "incumbent": [_hex(c) for c in search.incumbent],
        "incumbents": search.incumbents,
        "open": [
            {
                "classes": [_hex(c) for c in node.classes],
                "residual": _hex(node.residual),
                "bound": node.bound,
                "complete": node.complete,
                "skip": [_hex(c) for c in sorted(node.skip)],
                "offset": node.offset,
            }
            for node in nodes
        ],
        "seen": [[_hex(residual), depth] for residual, depth in search.seen.items()],
        "stats": dict(search.stats),
        "sampler": dict(search.sampler_stats),
        "summary": {
            "open": len(nodes),
            "bound": min((node.bound for node in nodes), default=None),
            "seen": len(search.seen),
        },
    }


class _Tree:
    """A tree read from a checkpoint, checked in itself (:func:`_read_tree`)."""

    def __init__(self) -> None:
        self.strategy = "best-first"
        self.incumbent: tuple[int, ...] = ()
        self.incumbents: list = []
        self.open: list[Node] = []
        self.seen: dict[int, int] = {}
        self.stats: dict[str, float] = {}
        self.sampler: dict[str, float] = {}


def _read_tree(data: object, n: int) -> _Tree:
    """Parse and check a tree over at most ``n`` vertices, as far as it can be without the graph."""
    _require(isinstance(data, dict), "the tree must be an object")
    assert isinstance(data, dict)
    tree = _Tree()
    _require(data["strategy"] in STRATEGIES, f"unknown strategy {data['strategy']!r}")
    tree.strategy = data["strategy"]
    _require(
        isinstance(data["incumbent"], list) and bool(data["incumbent"]),
        "the incumbent must be a non-empty list",
    )
    tree.incumbent = tuple(_bits(c, n, "an incumbent class") for c in data["incumbent"])
    history = _check_history(data["incumbents"], "incumbents")
    _require(
        bool(history) and history[-1] == len(tree.incumbent),
        f"the incumbent has {len(tree.incumbent)} colours, its history ends at "
        f"{history[-1] if history else None}",
    )
    tree.incumbents = data["incumbents"]
    _check_counters(data["stats"], "stats")
    _check_counters(data["sampler"], "sampler")
    tree.stats, tree.sampler = data["stats"], data["sampler"]
    _require(isinstance(data["open"], list), "open must be a list")
    for item in data["open"]:
        tree.open.append(_read_node(item, n))
    _require(isinstance(data["seen"], list), "seen must be a list")
    for entry in data["seen"]:
        _require(
            isinstance(entry, list) and len(entry) == 2,
            f"seen entries must be [residual, depth], found {entry!r}",
        )
        residual = _bits(entry[0], n, "a seen residual")
        depth = _int_in(entry[1], 0, n, "a seen depth")
        _require(residual not in tree.seen, f"residual {entry[0]} is seen twice")
        tree.seen[residual] = depth
    summary = data["summary"]
    _require(isinstance(summary, dict), "summary must be an object")
    lowest = min((node.bound for node in tree.open), default=None)
    _require(
        summary.get("open") == len(tree.open) and summary.get("bound") == lowest,
        f"the open list ({len(tree.open)} nodes, lowest bound {lowest}) does not match its summary "
        f"({summary.get('open')!r} nodes, lowest bound {summary.get('bound')!r})",
    )
    _require(
        summary.get("seen") == len(tree.seen),
        f"{len(tree.seen)} seen residuals, the summary says {summary.get('seen')!r}",
    )
    if not tree.stats.get("nodes_explored", 0):
        _require(
            all(not node.classes and not node.complete for node in tree.open),
            "the tree has nodes below the root but no expansion in its statistics",
        )
    return tree


def _read_node(item: object, n: int) -> Node:
    """An open node: classes, residual, bound, completion state."""
    _require(isinstance(item, dict), "open nodes must be objects")
    assert isinstance(item, dict)
    _require(isinstance(item["classes"], list), "a node's classes must be a list")
    classes = tuple(_bits(c, n, "a node's class") for c in item["classes"])
    residual = _bits(item["residual"], n, "a node's residual")
    depth = len(classes)
    size = residual.bit_count()
    bound = _int_in(
        item["bound"],
        depth + 1,
        depth + size,
        f"the bound of a node of depth {depth} and {size} vertices left",
    )
    complete = item["complete"]
    _require(isinstance(complete, bool), f"a node's complete must be true or false, found {complete!r}")
    _require(isinstance(item["skip"], list), "a node's skip must be a list")
    skip = frozenset(_bits(c, n, "a skipped class") for c in item["skip"])
    _require(all(c & ~residual == 0 for c in skip), "a skipped class lies outside the node's residual")
    # Moon and Moser: a graph of s vertices has at most 3^(s/3) maximal independent sets.
    offset = _int_in(item["offset"], 0, 3 ** -(-size // 3), "a node's offset")
    _require(complete or (not skip and offset == 0), "a node that is not a completion node skips classes")
    return Node(classes, residual, bound, complete, skip, offset)


def restore_search(search: SearchState, data: Mapping[str, Any], source: str) -> None:
    """Load a tree written by :func:`dump_search` into a fresh ``search``.

    Beyond the checks of :func:`_read_tree`, the incumbent and every open node's classes
    must be independent sets of ``search.graph`` that, with the node's residual, cover
    every vertex exactly once; seen residuals must leave at least their depth of vertices
    coloured.

    Raises
    ------
    SearchError
        If the data do not describe a tree of this graph; the message names ``source``.

    Examples
    --------
    >>> from bbqmis.coloring.limits import Clock, Limits
    >>> from bbqmis.coloring.samplers import ExactSampler
    >>> from bbqmis.coloring.tree.tree import Node, SearchState, to_bits
    >>> def new_search():
    ...     return SearchState(
    ...         nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...         clock=Clock(Limits()),
    ...     )
    >>> search = new_search()
    >>> search.offer((to_bits([0, 2]), to_bits([1, 3]), to_bits([4])), "dsatur")
    >>> search.push(Node((to_bits([0, 2]),), to_bits([1, 3, 4]), bound=3))
    >>> search.stats["nodes_explored"] += 1  # the root was expanded
    >>> import json
    >>> data = json.loads(json.dumps(dump_search(search, running=[])))
    >>> fresh = new_search()
    >>> restore_search(fresh, data, source="run.json")
    >>> fresh.best, [node.residual for node in fresh.open_nodes()] == [to_bits([1, 3, 4])]
    (3, True)
    >>> data["incumbent"] = ["3", "c", "10"]
    >>> restore_search(new_search(), data, source="run.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bbqmis.coloring.errors.SearchError: run.json: checkpoint is corrupt: the incumbent is not a proper ...
    """
    graph = search.graph
    n = graph.number_of_nodes()
    everything = (1 << n) - 1
    try:
        tree = _read_tree(data, n)
        neighbours = [sum(1 << u for u in graph[v]) for v in range(n)]
        _require(
            _partitions(tree.incumbent, everything), "the incumbent does not colour every vertex exactly once"
        )
        _require(
            all(_independent(c, neighbours) for c in tree.incumbent),
            "the incumbent is not a proper colouring",
        )
        for node in tree.open:
            _require(
                _partitions((*node.classes, node.residual), everything),
                "an open node's classes and residual do not partition the graph",
            )
            _require(
                all(_independent(c, neighbours) for c in node.classes),
                "an open node's class is not independent",
            )
        for residual, depth in tree.seen.items():
            _require(
                (everything & ~residual).bit_count() >= depth and (depth == 0) == (residual == everything),
                f"seen residual {_hex(residual)} cannot be reached at depth {depth}",
            )
    except (_Corrupt, KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        raise SearchError(f"{source}: checkpoint is corrupt: {_one_line(exc)}; remove it") from exc
    search.incumbent, search.incumbents = tree.incumbent, list(tree.incumbents)
    for node in tree.open:
        search.push(node)
    search.seen = dict(tree.seen)
    add_stats(search.stats, tree.stats)
    add_stats(search.sampler_stats, tree.sampler)
    if tree.strategy == "depth-first":
        search.go_depth_first()


def dump_price(tree: PriceTree, core: nx.Graph) -> dict[str, Any]:
    """A branch-and-price state as JSON-ready data, vertices by their position in ``list(core)``.

    Parameters
    ----------
    tree : PriceTree
        The state (:attr:`~bbqmis.coloring.lp.branch_price.PriceOutcome.tree`).
    core : networkx.Graph
        The graph the search runs on.

    Returns
    -------
    dict
        ``best`` (a colour per vertex), ``root_bound``, ``nodes``, ``improving_columns``,
        ``device``, ``open`` (each open node as a list of ``[kind, u, v]`` steps) and a
        ``summary`` repeating the number of open nodes.

    Examples
    --------
    >>> from bbqmis.coloring.lp.branch_price import branch_and_price
    >>> core = nx.mycielski_graph(4)
    >>> tree = branch_and_price(core, nx.greedy_color(core), node_limit=1, seed=0).tree
    >>> data = dump_price(tree, core)
    >>> data["nodes"], data["open"]  # the root's two children: uv added, or v merged into u
    (1, [[['differ', 10, 0]], [['merge', 10, 0]]])
    """
    index = {v: i for i, v in enumerate(core)}
    return {
        "best": [tree.best[v] for v in core],
        "root_bound": tree.root_bound,
        "nodes": tree.nodes,
        "improving_columns": dict(tree.improving_columns),
        "device": dict(tree.device),
        "open": [[[kind, index[u], index[v]] for kind, u, v in path] for path in tree.open],
        "summary": {"open": len(tree.open)},
    }


def _read_price_tree(data: object, n: int) -> None:
    """Check a branch-and-price state over at most ``n`` vertices, as far as it can be without the graph."""
    _require(isinstance(data, dict), "the tree must be an object")
    assert isinstance(data, dict)
    best = data["best"]
    _require(isinstance(best, list) and 0 < len(best) <= n, f"best must be a list of 1 to {n} colours")
    for color in best:
        _int_in(color, 0, n - 1, "a colour of best")
    _int_in(data["root_bound"], 0, len(set(best)), "root_bound")
    _int_in(data["nodes"], 0, 2**63 - 1, "nodes")
    _require(isinstance(data["improving_columns"], dict), "improving_columns must be an object")
    for name, count in data["improving_columns"].items():
        _int_in(count, 0, 2**63 - 1, f"improving_columns[{name!r}]")
    _check_counters(data["device"], "device")
    _require(isinstance(data["open"], list), "open must be a list")
    for path in data["open"]:
        _require(isinstance(path, list), f"an open node must be a list of steps, found {path!r}")
        for step in path:
            _require(
                isinstance(step, list) and len(step) == 3 and step[0] in ("merge", "differ"),
                f"a step must be ['merge' or 'differ', u, v], found {step!r}",
            )
            _int_in(step[1], 0, len(best) - 1, "a step's vertex")
            _int_in(step[2], 0, len(best) - 1, "a step's vertex")
    summary = data["summary"]
    _require(
        isinstance(summary, dict) and summary.get("open") == len(data["open"]),
        f"the open list has {len(data['open'])} nodes, its summary says "
        f"{summary.get('open') if isinstance(summary, dict) else summary!r}",
    )


def restore_price(data: Mapping[str, Any], core: nx.Graph, source: str) -> PriceTree:
    """Read a state written by :func:`dump_price` for ``core``, checked against it.

    Parameters
    ----------
    data : mapping
        The state, as :func:`dump_price` wrote it.
    core : networkx.Graph
        The graph the search runs on.
    source : str
        The checkpoint's name, for the error message.

    Returns
    -------
    PriceTree
        The state, vertices as ``core``'s; it passes
        :func:`~bbqmis.coloring.lp.branch_price.check_tree` (a proper ``best``, the open
        nodes of a depth-first search whose paths replay on ``core``).

    Raises
    ------
    SearchError
        If the data do not describe a branch-and-price search on ``core``; the message
        names ``source``.

    Examples
    --------
    >>> from bbqmis.coloring.lp.branch_price import branch_and_price
    >>> core = nx.mycielski_graph(4)
    >>> tree = branch_and_price(core, nx.greedy_color(core), node_limit=1, seed=0).tree
    >>> import json
    >>> data = json.loads(json.dumps(dump_price(tree, core)))
    >>> restored = restore_price(data, core, source="run.json")
    >>> restored.open == tree.open and restored.best == tree.best and restored.nodes == tree.nodes
    True
    >>> data["open"][0] = [["merge", 0, 1]]  # 0 and 1 are adjacent
    >>> restore_price(data, core, source="run.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bbqmis.coloring.errors.SearchError: run.json: checkpoint is corrupt: step 1 ... adjacent vertices; ...
    """
    nodes = list(core)
    try:
        _read_price_tree(data, len(nodes))
        colored = len(data["best"])
        _require(colored == len(nodes), f"best colours {colored} vertices, the core has {len(nodes)}")
        tree = PriceTree(
            dict(zip(nodes, data["best"], strict=True)),
            data["root_bound"],
            data["nodes"],
            dict(data["improving_columns"]),
            dict(data["device"]),
            [tuple((kind, nodes[u], nodes[v]) for kind, u, v in path) for path in data["open"]],
        )
        check_tree(core, tree)
    except (_Corrupt, KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError) as exc:
        raise SearchError(f"{source}: checkpoint is corrupt: {_one_line(exc)}; remove it") from exc
    return tree


def _independent(bits: int, neighbours: list[int]) -> bool:
    """Whether no two vertices of the bitset ``bits`` are adjacent."""
    rest = bits
    while rest:
        low = rest & -rest
        if neighbours[low.bit_length() - 1] & bits:
            return False
        rest ^= low
    return True


def _partitions(sets: Iterable[int], everything: int) -> bool:
    """Whether the bitsets are disjoint and their union is ``everything``."""
    union, count = 0, 0
    for bits in sets:
        union |= bits
        count += bits.bit_count()
    return union == everything and count == everything.bit_count()


def check_snapshot(data: object, n: int, method: str = "bbq") -> None:
    """Check a saved tree of a core of ``n`` vertices without restoring it.

    Parameters
    ----------
    data : object
        What :func:`dump_search` (``method="bbq"``) or :func:`dump_price` (``"price"``) wrote.
    n : int
        Vertices of the core.
    method : {"bbq", "price"}, default="bbq"

    Raises
    ------
    ValueError, KeyError or TypeError
        Naming the first check that fails (a missing field as a KeyError).

    Examples
    --------
    >>> check_snapshot({"strategy": "sideways"}, 3)
    Traceback (most recent call last):
    ...
    bbqmis.coloring.tree.snapshot._Corrupt: unknown strategy 'sideways'
    """
    (_read_price_tree if method == "price" else _read_tree)(data, n)
