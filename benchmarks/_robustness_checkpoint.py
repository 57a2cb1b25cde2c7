"""Part 3 of ``robustness.py``, target ``python -m bbqmis --resume``: damaged checkpoints.

A search on ``data/graphs/myciel4.col`` (chi = 5) stopped after 3 nodes leaves a
checkpoint; damaged copies are resumed: truncated, flipped, swapped for a directory or a
FIFO, or with fields edited and the checksum recomputed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from _robustness_cli import check_coloring, judge_run, known_options, shown_command
from _robustness_harness import CLI_TIMEOUT, TIME_LIMIT, Outcome, pooled, run_command
from _robustness_inputs import ROOT, Case, Truth, materialize
from _robustness_reference import reference_dimacs

CHECKPOINT_GRAPH = ROOT / "data" / "graphs" / "myciel4.col"

CHECKPOINT_CHI = 5


def checksum(document: dict) -> str:
    """The checkpoint checksum: SHA-256 of the JSON without ``checksum``, keys sorted."""
    body = {key: value for key, value in document.items() if key != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def resealed(document: dict) -> bytes:
    return json.dumps({**document, "checksum": checksum(document)}).encode()


def _paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every path into a JSON value (keys and indices), the value's own path first."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _edit(document: dict, path: tuple, action: str, value: Any = None) -> dict:
    """A deep copy of ``document`` with the item at ``path`` set, deleted or duplicated."""
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if action == "set":
        parent[last] = value
    elif action == "delete":
        del parent[last]
    elif action == "duplicate" and isinstance(parent, list):
        parent.insert(last, parent[last])
    return copy


JUNK = [0, -1, 1, 2, 3, 4, 5, 6, 22, 23, 2**63, 10**30, 0.5, -0.0, float("nan"), float("inf")]
JUNK += ["", "0", "1", "zz", "FF", "7fffff", "f" * 40, None, True, False, [], {}, [0], {"a": 1}, ["1"]]


def checkpoint_variants(base: bytes, rng: random.Random) -> Iterator[tuple[str, bytes | None, str | None]]:
    """(name, bytes, special) of damaged checkpoints: a fixed list first, then random field edits."""
    document = json.loads(base)
    incumbent = _open_tree(document).get("incumbent") or ["1", "2"]
    yield "unchanged", base, None
    for cut in (0, 1, len(base) // 2, len(base) - 1):
        yield f"truncated-to-{cut}", base[:cut], None
    yield "not-json", b"checkpoint", None
    yield "json-list", b"[]", None
    yield "deep-nesting", b"[" * 100_000 + b"]" * 100_000, None
    yield "utf-16", base.decode().encode("utf-16"), None
    yield "huge-int", re.sub(rb'"version": \d+', b'"version": 1' + b"0" * 5000, base, count=1), None
    yield "bad-checksum", base.replace(document["checksum"].encode(), b"0" * 64), None
    flipped = bytearray(base)
    flipped[len(base) // 3] ^= 0x01
    yield "bit-flip", bytes(flipped), None
    edits: list[tuple[str, tuple, str, Any]] = [
        ("version-2", ("version",), "set", 2),
        ("other-graph", ("graph",), "set", "0" * 64),
        ("other-sampler", ("settings", "sampler"), "set", "GreedySampler"),
        ("negative-elapsed", ("elapsed",), "set", -1.0),
        ("nan-elapsed", ("elapsed",), "set", float("nan")),
        ("component-5", ("search", "component"), "set", 5),
        ("component-string", ("search", "component"), "set", "0"),
        ("no-search", ("search",), "delete", None),
        ("null-search", ("search",), "set", None),
        ("null-tree", ("search", "tree"), "set", None),
        ("done-component-0", ("done",), "set", {"0": {"coloring": [], "lower_bound": 1, "how": "exact"}}),
        ("empty-incumbent", ("search", "tree", "incumbent"), "set", []),
        ("incumbent-beyond-n", ("search", "tree", "incumbent", 0), "set", "f" * 7),
        (
            "incumbent-upper-case",
            ("search", "tree", "incumbent", 0),
            "set",
            incumbent[0].upper() + "A",
        ),
        (
            "improper-incumbent",
            ("search", "tree", "incumbent"),
            "set",
            [_merge(incumbent), *incumbent[2:]],
        ),
        ("history-rising", ("search", "tree", "incumbents"), "set", [[0.0, 4, "x"], [0.1, 5, "y"]]),
        ("node-bound-0", ("search", "tree", "open", 0, "bound"), "set", 0),
        ("node-bound-99", ("search", "tree", "open", 0, "bound"), "set", 99),
        ("node-bound-string", ("search", "tree", "open", 0, "bound"), "set", "4"),
        ("node-bound-true", ("search", "tree", "open", 0, "bound"), "set", True),
        ("node-offset-huge", ("search", "tree", "open", 0, "offset"), "set", 10**30),
        ("node-complete-string", ("search", "tree", "open", 0, "complete"), "set", "yes"),
        ("node-improper-class", ("search", "tree", "open", 0, "classes"), "set", ["7fffff"]),
        ("node-list", ("search", "tree", "open", 0), "set", [1, 2, 3]),
        ("open-dict", ("search", "tree", "open"), "set", {}),
        ("open-dropped", ("search", "tree", "open", 0), "delete", None),
        ("open-duplicated", ("search", "tree", "open", 0), "duplicate", None),
        ("summary-missing", ("search", "tree", "summary"), "delete", None),
        ("stats-negative", ("search", "tree", "stats", "nodes_explored"), "set", -5),
        ("stats-zero", ("search", "tree", "stats", "nodes_explored"), "set", 0),
        ("seen-malformed", ("search", "tree", "seen"), "set", [["zz", 1]]),
        ("tree-list", ("search", "tree"), "set", []),
        ("strategy-unknown", ("search", "tree", "strategy"), "set", "sideways"),
        ("strategy-list", ("search", "tree", "strategy"), "set", []),
    ]
    for name, path, action, value in edits:
        with contextlib.suppress(KeyError, IndexError, TypeError):
            yield f"resealed:{name}", resealed(_edit(document, path, action, value)), None
    for special in ("directory", "fifo", "device"):  # last: a hang costs 30 s
        yield special, None, special
    paths = [p for p in _paths(document) if p and p[0] != "checksum"]
    while True:  # random edits, resealed with a fresh checksum, so the content checks are what is tested
        path = rng.choice(paths)
        action = rng.choice(["set", "set", "set", "delete", "duplicate"])
        value = rng.choice(JUNK)
        name = f"random:{action}:{'.'.join(map(str, path))}" + (f"={value!r}"[:40] if action == "set" else "")
        with contextlib.suppress(KeyError, IndexError, TypeError):
            yield name, resealed(_edit(document, path, action, value)), None


def _open_tree(document: Any) -> dict:
    """The search tree a checkpoint holds, or ``{}``."""
    search = document.get("search") if isinstance(document, dict) else None
    tree = search.get("tree") if isinstance(search, dict) else None
    return tree if isinstance(tree, dict) else {}


def _merge(classes: list[str]) -> str:
    """The union of the first two hexadecimal colour classes: an improper class."""
    return format(int(classes[0], 16) | int(classes[1], 16), "x")


def checkpoint_part(
    rng: random.Random, budget: float, limit: int, folder: Path, jobs: int, progress: Callable[[str], None]
) -> list[Outcome]:
    """Stop a myciel4 search after 3 nodes, then resume it from damaged checkpoints."""
    graph = CHECKPOINT_GRAPH
    read = reference_dimacs(graph.read_bytes())
    assert read is not None
    truth = Truth(tuple(read[0]), frozenset(read[1]), CHECKPOINT_CHI)
    settings = [
        str(graph),
        "--sampler",
        "exact",
        "--exact-share",
        "0",
        "--no-mycielski",
        "--checkpoint-interval",
        "0",
    ]
    base_path = folder / "base.ckpt"
    argv = [sys.executable, "-m", "bbqmis", *settings, "--checkpoint", str(base_path), "--node-limit", "3"]
    first = run_command([*argv, "--quiet"], CLI_TIMEOUT, folder)
    if first.returncode != 0 or not base_path.is_file():
        raise RuntimeError(f"the checkpoint run failed (exit {first.returncode}): {first.stderr[-500:]}")
    base = base_path.read_bytes()
    if not _open_tree(json.loads(base)).get("open"):
        raise RuntimeError("the checkpoint run left no open node; the resumed runs would test nothing")
    options = known_options()

    def run(variant: tuple[str, bytes | None, str | None], index: int) -> Outcome:
        name, data, special = variant
        case = Case("myciel4", name, ".ckpt", data or b"", special=special, truth=truth)
        path = materialize(case, folder, 90_000 + index)
        out = folder / f"{90_000 + index:05d}.result.json"
        argv = [sys.executable, "-m", "bbqmis", *settings, "--checkpoint", str(path), "--resume"]
        argv += ["--time-limit", f"{TIME_LIMIT:g}", "--json", str(out), "--quiet"]
        done = run_command(argv, CLI_TIMEOUT, folder)
        # a damaged checkpoint may be refused (exit 2, one line); what is accepted must be right
        judged = case if name == "unchanged" else replace(case, truth=None)
        verdict, detail, notes = judge_run(judged, graph, done, out, options)
        if verdict == "ok":
            problem = check_coloring(json.loads(out.read_text()), truth)
            verdict, detail = ("wrong", problem) if problem else (verdict, detail)
        out.unlink(missing_ok=True)
        outcome = Outcome.of("checkpoint", case, verdict, detail, peak_kb=done.peak_kb, seconds=done.seconds)
        outcome.path, outcome.command, outcome.notes = str(path), shown_command(argv, out), notes
        return outcome

    variants = checkpoint_variants(base, rng)
    return pooled(variants, run, budget=budget, limit=limit, jobs=jobs, folder=folder, progress=progress)
