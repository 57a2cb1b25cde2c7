"""Atomic, checked JSON checkpoints of a search, so that a killed run resumes where it was.

A checkpoint holds the components already coloured and the tree of the component being
searched. It records the graph's fingerprint and every setting that changes what a result
means (method, heuristic or exact, sampler, strategy, seed), and a SHA-256 checksum of its
content: a resumed run refuses a checkpoint of another graph, of other settings, or one
that was truncated or edited, so that it can never claim more than the runs proved.
Files are written to a temporary name, flushed to disk and renamed over the old one.

The checksum catches accidents, not an edit whose author recomputed it; so the content is
checked as well, and everything a resumed run relies on must hold: every colouring
(finished components, the tree's incumbent, each open node's classes) is proper and
covers its vertices exactly once, vertex ids are in range, each lower bound lies between
what it has proven and the colours it would need, the open list matches the tree's summary
(its length and lowest bound) and its statistics, and the incumbent matches its history;
a branch-and-price tree (``--method price``) must hold the open nodes of a depth-first
search whose paths of Zykov steps replay on the component's core.
A file that fails any check is refused with one line naming it and the reason
(:class:`~bbqmis.coloring.errors.SearchError`). What no check can catch is a consistent
forgery of a proof (a plausible lower bound raised by hand, a node dropped together with
its summary): a checkpoint is as trustworthy as the place it is kept.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeGuard

import networkx as nx

from backends.utils.files import atomic_write_text

from ..solver import add_stats
from .branch_price import PriceTree, check_tree
from .errors import SearchError
from .reduce import components
from .result import SUMMED_STATS
from .tree import STRATEGIES, Node, SearchState

__all__ = [
    "CHECKPOINT_VERSION",
    "Checkpoint",
    "dump_price",
    "dump_search",
    "fingerprint",
    "restore_price",
    "restore_search",
]

#: Version 3 added the tree's ``summary`` (open nodes, their lowest bound, seen residuals).
CHECKPOINT_VERSION = 3

#: Ways a finished component was settled whose lower bound is below its colours.
_BELOW_COLOURS = ("dominated",)
#: ``how`` of a component whose colouring is proven optimal (besides ``easy:<class>``).
_PROVEN = ("bounds", "exact", "sat", "lp", "price", "search:bounds_met", "search:exhausted")


class _Corrupt(ValueError):
    """A check of the content failed (turned into a :class:`SearchError` naming the file)."""


def fingerprint(graph: nx.Graph) -> str:
    """SHA-256 of a graph's vertex count and edges (vertices by their position in ``list(graph)``).

    Examples
    --------
    >>> relabelled = nx.relabel_nodes(nx.path_graph(3), {0: "a", 1: "b", 2: "c"})
    >>> fingerprint(nx.path_graph(3)) == fingerprint(relabelled)
    True
    >>> fingerprint(nx.path_graph(3)) == fingerprint(nx.complete_graph(3))
    False
    """
    index = {v: i for i, v in enumerate(graph)}
    edges = sorted(tuple(sorted((index[u], index[v]))) for u, v in graph.edges)
    return hashlib.sha256(json.dumps([len(index), edges]).encode()).hexdigest()


def _checksum(document: Mapping[str, Any]) -> str:
    body = {key: value for key, value in document.items() if key != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


class Checkpoint:
    """The checkpoint file of one run.

    Parameters
    ----------
    path : path-like
        The JSON file.
    graph : networkx.Graph
        The graph of the run.
    settings : dict
        The settings that change the meaning of a result; a checkpoint written with other
        settings is refused.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> checkpoint = Checkpoint(Path(folder.name) / "run.json", nx.cycle_graph(5), {"sampler": "exact"})
    >>> checkpoint.save({"elapsed": 1.5})
    >>> checkpoint.load()["elapsed"]
    1.5
    >>> Checkpoint(checkpoint.path, nx.cycle_graph(6), {"sampler": "exact"}).load()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bbqmis.coloring.errors.SearchError: ...run.json: checkpoint belongs to another graph; ...
    >>> folder.cleanup()
    """

    def __init__(self, path: str | os.PathLike[str], graph: nx.Graph, settings: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.graph = fingerprint(graph)
        self.settings = dict(settings)
        self._nx_graph = graph

    def exists(self) -> bool:
        """Whether the file exists.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> checkpoint = Checkpoint(Path(folder.name) / "run.json", nx.path_graph(2), {})
        >>> checkpoint.exists()
        False
        >>> checkpoint.save({})
        >>> checkpoint.exists()
        True
        >>> folder.cleanup()
        """
        return self.path.exists()

    def save(self, state: Mapping[str, Any]) -> None:
        """Write ``state`` (JSON-ready) with the version, graph, settings and checksum, atomically.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> checkpoint = Checkpoint(Path(folder.name) / "run.json", nx.path_graph(2), {"seed": 1})
        >>> checkpoint.save({"elapsed": 3.0})
        >>> sorted(json.loads(checkpoint.path.read_text()))
        ['checksum', 'elapsed', 'graph', 'settings', 'version']
        >>> sorted(path.name for path in Path(folder.name).iterdir())
        ['run.json']
        >>> folder.cleanup()
        """
        document = {"version": CHECKPOINT_VERSION, "graph": self.graph, "settings": self.settings, **state}
        document["checksum"] = _checksum(document)
        atomic_write_text(self.path, lambda file: json.dump(document, file))

    def load(self) -> dict[str, Any]:
        """Read and check the file; return the state given to :meth:`save`, with ``settings``.

        Of the state, ``elapsed`` (seconds), ``done`` (finished components, as written by
        :meth:`~bbqmis.coloring.component.ComponentOutcome.to_json`) and ``search`` (the
        component in progress and its tree, see :func:`dump_search`) are checked against
        the graph when present; the tree's colourings are checked against the component's
        core by :func:`restore_search`.

        Raises
        ------
        SearchError
            If the file cannot be read, is not a checkpoint of this version, fails its
            checksum, belongs to another graph or other settings, or its content is
            inconsistent; the message is one line naming the file.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> checkpoint = Checkpoint(Path(folder.name) / "run.json", nx.path_graph(2), {"seed": 1})
        >>> checkpoint.save({"elapsed": 3.0})
        >>> checkpoint.load()
        {'settings': {'seed': 1}, 'elapsed': 3.0}
        >>> _ = checkpoint.path.write_text(checkpoint.path.read_text().replace("3.0", "4.0"))
        >>> checkpoint.load()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        bbqmis.coloring.errors.SearchError: ...run.json: checkpoint fails its checksum ...
        >>> folder.cleanup()
        """
        try:
            if not self.path.is_file():  # a FIFO would block, /dev/zero would fill the memory
                raise ValueError("not a regular file")
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise SearchError(f"{self.path}: cannot read checkpoint: {_one_line(exc)}") from exc
        if not isinstance(document, dict) or document.get("version") != CHECKPOINT_VERSION:
            raise SearchError(f"{self.path}: not a version-{CHECKPOINT_VERSION} checkpoint; remove it")
        if document.get("checksum") != _checksum(document):
            raise SearchError(f"{self.path}: checkpoint fails its checksum (truncated or edited); remove it")
        if document.get("graph") != self.graph:
            raise SearchError(f"{self.path}: checkpoint belongs to another graph; remove it or drop --resume")
        saved = document.get("settings")
        if saved != self.settings:
            raise SearchError(
                f"{self.path}: checkpoint was written with {_settings_diff(saved, self.settings)}; "
                "resume with the same settings or remove it"
            )
        try:
            exhaustive = bool(self.settings.get("exhaustive", True))
            _check_state(document, self._nx_graph, exhaustive, self.settings.get("method", "bbq"))
        except (_Corrupt, KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError) as exc:
            raise SearchError(f"{self.path}: checkpoint is corrupt: {_one_line(exc)}; remove it") from exc
        return {key: value for key, value in document.items() if key not in ("version", "graph", "checksum")}


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return f"missing field {exc.args[0]!r}"
    return " ".join(str(exc).split()) or type(exc).__name__


def _settings_diff(saved: object, wanted: Mapping[str, Any]) -> str:
    """``"exhaustive=False, this run has exhaustive=True"``: the settings that differ, both ways."""
    if not isinstance(saved, dict):
        return f"settings {saved!r}, this run has {dict(wanted)}"
    keys = [key for key in {**saved, **wanted} if saved.get(key, "-") != wanted.get(key, "-")]
    before = ", ".join(f"{key}={saved[key]!r}" if key in saved else f"no {key}" for key in keys)
    after = ", ".join(f"{key}={wanted[key]!r}" if key in wanted else f"no {key}" for key in keys)
    return f"{before}, this run has {after}"


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


def _check_state(state: Mapping[str, Any], graph: nx.Graph, exhaustive: bool, method: str = "bbq") -> None:
    """Check ``elapsed``, ``done`` and ``search`` of a run's state against ``graph``.

    The tree in progress is a BBQ-MIS tree, or a branch-and-price one when ``method`` is ``"price"``.
    """
    if "elapsed" in state:
        elapsed = state["elapsed"]
        _require(_is_number(elapsed) and elapsed >= 0, f"elapsed must be a number >= 0, found {elapsed!r}")
    if "done" not in state and "search" not in state:
        return
    index = {v: i for i, v in enumerate(graph)}
    parts = [sorted(index[v] for v in part) for part in components(graph)]
    done = state.get("done", {})
    _require(isinstance(done, dict), "done must be an object")
    coloured: dict[int, int] = {}
    for key, outcome in done.items():
        _require(
            isinstance(key, str) and key.isdigit() and str(int(key)) == key and int(key) < len(parts),
            f"done names component {key!r}; the graph has {len(parts)}",
        )
        coloured.update(_check_outcome(outcome, parts[int(key)], graph, exhaustive, f"component {key}"))
    position = {v: i for i, v in enumerate(graph)}
    for u, v in graph.edges:
        i, j = position[u], position[v]
        if i in coloured and j in coloured:
            _require(coloured[i] != coloured[j], f"adjacent vertices {i} and {j} share a colour")
    search = state.get("search")
    if search is None:
        return
    _require(isinstance(search, dict), "search must be an object or null")
    component = _int_in(search.get("component"), 0, len(parts) - 1, "search.component")
    _require(str(component) not in done, f"component {component} is both finished and in progress")
    tree = search.get("tree")
    if tree is not None:
        (_read_price_tree if method == "price" else _read_tree)(tree, len(parts[component]))


def _check_outcome(
    outcome: object, part: list[int], graph: nx.Graph, exhaustive: bool, what: str
) -> dict[int, int]:
    """A finished component: a colouring of exactly its vertices, and a bound it can have.

    Returns the colouring (vertex position -> colour), for the caller to check it is proper.
    """
    _require(isinstance(outcome, dict), f"{what} must be an object")
    assert isinstance(outcome, dict)
    pairs = outcome["coloring"]
    _require(isinstance(pairs, list), f"{what}: coloring must be a list")
    n = graph.number_of_nodes()
    coloring: dict[int, int] = {}
    for pair in pairs:
        _require(
            isinstance(pair, list) and len(pair) == 2, f"{what}: coloring entries must be [vertex, colour]"
        )
        vertex = _int_in(pair[0], 0, n - 1, f"{what}: vertex")
        _require(vertex not in coloring, f"{what}: vertex {vertex} is coloured twice")
        coloring[vertex] = _int_in(pair[1], 0, n - 1, f"{what}: colour")
    _require(
        sorted(coloring) == part, f"{what}: the colouring does not cover exactly the component's vertices"
    )
    colours = len(set(coloring.values()))
    lower = _int_in(outcome["lower_bound"], 1, colours, f"{what}: lower_bound")
    how = outcome["how"]
    _require(isinstance(how, str), f"{what}: how must be a string")
    below = how in _BELOW_COLOURS or (how == "search:exhausted" and not exhaustive)
    if below:
        _require(lower < colours, f"{what}: settled by {how!r} but its bound meets its colours")
    elif how in _PROVEN or how.startswith("easy:"):
        _require(
            lower == colours, f"{what}: settled by {how!r} with bound {lower} below its {colours} colours"
        )
    _require(outcome["stopped"] is None, f"{what}: a finished component cannot have stopped")
    stats = outcome["stats"]
    _require(isinstance(stats, dict), f"{what}: stats must be an object")
    if not stats:
        return coloring
    for key in SUMMED_STATS:
        if key in stats:
            _int_in(stats[key], 0, 2**62, f"{what}: stats.{key}")
    bounds = stats["root_bounds"]
    _require(
        isinstance(bounds, dict)
        and bool(bounds)
        and all(_is_int(b) and 0 <= b <= n for b in bounds.values()),
        f"{what}: stats.root_bounds must map names to bounds",
    )
    if "initial_colors" in stats:
        _int_in(stats["initial_colors"], 0, n, f"{what}: stats.initial_colors")
    if "exhaustive" in stats:
        _require(isinstance(stats["exhaustive"], bool), f"{what}: stats.exhaustive must be true or false")
    _check_counters(stats.get("sampler", {}), f"{what}: stats.sampler")
    _check_history(stats.get("incumbents", []), f"{what}: stats.incumbents")
    for phase in ("lp", "node_lp", "price"):  # the LP phases' counters, summed over components
        counters = stats.get(phase, {})
        _require(isinstance(counters, dict), f"{what}: stats.{phase} must be an object")
        _check_counters(counters.get("improving_columns", {}), f"{what}: stats.{phase}.improving_columns")
        _check_counters(counters.get("device", {}), f"{what}: stats.{phase}.device")
    node_lp = stats.get("node_lp", {})
    plain = {k: v for k, v in node_lp.items() if k not in ("improving_columns", "device")}
    _check_counters(plain, f"{what}: stats.node_lp")
    return coloring


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
    >>> from bbqmis.coloring.tree import Node, SearchState, to_bits
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
    >>> from bbqmis.coloring.tree import Node, SearchState, to_bits
    >>> def new_search():
    ...     return SearchState(
    ...         nx.cycle_graph(5), ExactSampler(), strategy="best-first", exhaustive=True, seed=0,
    ...         clock=Clock(Limits()),
    ...     )
    >>> search = new_search()
    >>> search.offer((to_bits([0, 2]), to_bits([1, 3]), to_bits([4])), "dsatur")
    >>> search.push(Node((to_bits([0, 2]),), to_bits([1, 3, 4]), bound=3))
    >>> search.stats["nodes_explored"] += 1  # the root was expanded
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
        The state (:attr:`~bbqmis.coloring.branch_price.PriceOutcome.tree`).
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
    >>> from bbqmis.coloring.branch_price import branch_and_price
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
        :func:`~bbqmis.coloring.branch_price.check_tree` (a proper ``best``, the open
        nodes of a depth-first search whose paths replay on ``core``).

    Raises
    ------
    SearchError
        If the data do not describe a branch-and-price search on ``core``; the message
        names ``source``.

    Examples
    --------
    >>> from bbqmis.coloring.branch_price import branch_and_price
    >>> core = nx.mycielski_graph(4)
    >>> tree = branch_and_price(core, nx.greedy_color(core), node_limit=1, seed=0).tree
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
