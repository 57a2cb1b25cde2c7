"""Atomic, checked JSON checkpoints of a search, so that a killed run resumes where it was.

A checkpoint holds the components already coloured and the tree of the component being
searched. It records the graph's fingerprint and every setting that changes what a result
means (method, heuristic or exact, sampler, strategy, seed), and a SHA-256 checksum of its
content: a resumed run refuses a checkpoint of another graph, of other settings, or one
that was truncated or edited, so that it can never claim more than the runs proved.
Files are written to a temporary name, flushed to disk and renamed over the old one. The
tree inside is written and read back by :mod:`~bbqmis.coloring.tree.snapshot`.

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
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import networkx as nx

from backends.utils.files import atomic_write_text

from ..classical.reduce import components
from ..errors import SearchError
from ..result import SUMMED_STATS
from .snapshot import (
    _check_counters,
    _check_history,
    _Corrupt,
    _int_in,
    _is_int,
    _is_number,
    _one_line,
    _require,
    check_snapshot,
)

__all__ = [
    "CHECKPOINT_VERSION",
    "Checkpoint",
    "fingerprint",
]

#: Version 3 added the tree's ``summary`` (open nodes, their lowest bound, seen residuals).
CHECKPOINT_VERSION = 3

#: Ways a finished component was settled whose lower bound is below its colours.
_BELOW_COLOURS = ("dominated",)
#: ``how`` of a component whose colouring is proven optimal (besides ``easy:<class>``).
_PROVEN = ("bounds", "exact", "sat", "lp", "price", "search:bounds_met", "search:exhausted")


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


def _settings_diff(saved: object, wanted: Mapping[str, Any]) -> str:
    """``"exhaustive=False, this run has exhaustive=True"``: the settings that differ, both ways."""
    if not isinstance(saved, dict):
        return f"settings {saved!r}, this run has {dict(wanted)}"
    keys = [key for key in {**saved, **wanted} if saved.get(key, "-") != wanted.get(key, "-")]
    before = ", ".join(f"{key}={saved[key]!r}" if key in saved else f"no {key}" for key in keys)
    after = ", ".join(f"{key}={wanted[key]!r}" if key in wanted else f"no {key}" for key in keys)
    return f"{before}, this run has {after}"


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
        check_snapshot(tree, len(parts[component]), method)


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
