"""Robustness: fuzz the entry points for a fixed budget and report what breaks.

Four parts, each a group of rows in the table:

1. ``parser``: graph files in every format ``read_graph`` reads (DIMACS, edge list,
   GraphML, node-link JSON). Valid files have a planted chromatic number, so the graph
   and chi are known. Hostile files carry huge declared counts, deep nesting, NUL bytes,
   entity expansion, directories, FIFOs and the like. Random mutations truncate, flip
   bytes, swap separators and change extensions. Each file is read by ``read_graph`` in
   a forked child with an address-space cap and a timeout. This part covers most inputs.
2. ``cli``: the hostile files, bad options and a random sample of the others, each run
   through ``python -m bbqmis FILE --time-limit 5 --json OUT`` in a subprocess with
   varying samplers. The colouring written to ``OUT`` is checked against the known graph.
3. ``checkpoint``: a search on ``data/graphs/myciel4.col`` (chi = 5) stopped after 3
   nodes leaves a checkpoint. Damaged copies are resumed: truncated, flipped, swapped
   for a directory or a FIFO, or with fields edited and the checksum recomputed.
4. ``soak``: C vQPU client processes submit B batches in total, each with its own
   idempotency key and seed. Meanwhile the server is killed with SIGKILL and restarted
   K times on the same database. Every acknowledged batch must be delivered exactly once.

Verdicts:

- clear error: exit 2 with exactly one stderr line, or a one-line ``GraphFormatError``
  that names the file in-process;
- traceback: ``Traceback`` on stderr, an exit status other than 0 and 2, a crash, or an
  error that is not one clear line (the table counts these as tracebacks);
- hang: no exit within 30 s (CLI) or 20 s (in-process read);
- wrong answer: an improper or incomplete colouring; a lower bound above the known chi;
  ``optimal`` claimed with more colours than chi; a graph read differently from the file;
  a file its format forbids, accepted; a valid file refused.

Peak memory is each child's ``ru_maxrss`` (``os.wait4``; for a CLI run, measured by a small
wrapper process). Every input stays under 1 MB, so the done-when target is a peak under 1 GB
for each of them.

Examples
--------
    python benchmarks/robustness.py            # about 8 minutes on 2 cores
    python benchmarks/robustness.py --quick    # about a minute
    python benchmarks/robustness.py --budget 120 --max-inputs 12 --soak-clients 2 --soak-batches 20 \
        --soak-kills 1                          # the smoke test: the same sample on any machine

Prints the table and the findings with their reproducers, then one JSON line:
``{"inputs", "clear_errors", "tracebacks", "hangs", "wrong_answers", "peak_gb", "soak"}``.
The exit status is 0 whatever was found. Progress goes to stderr. Inputs that failed are
kept in ``--out``/findings.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import random
import re
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from bbqmis.mis.graphio import ISOLATED_FACTOR, ISOLATED_FLOOR  # noqa: E402  (light: no circuits)

#: A CLI run is a hang when it has not exited this long after its start (its --time-limit is 5 s).
CLI_TIMEOUT = 30.0
#: An in-process read of a file under 1 MB is a hang after this long.
PARSE_TIMEOUT = 20.0
TIME_LIMIT = 5.0
#: Generated inputs stay below this size, so every one of them falls under the 1 MB target.
MAX_INPUT_BYTES = 1_000_000
#: The done-when target: peak resident memory under 1 GB for any input under 1 MB.
MEMORY_TARGET_KB = 2**20
#: Address-space caps: a safety net against a run eating the machine, well above the target.
PARSE_CAP_BYTES = 3 * 2**30
CLI_CAP_BYTES = 4 * 2**30
#: Shares of ``--budget`` for the parser, CLI and checkpoint parts (the soak comes on top).
SHARES = {"parser": 0.25, "cli": 0.55, "checkpoint": 0.20}
CHECKPOINT_GRAPH = ROOT / "data" / "graphs" / "myciel4.col"
CHECKPOINT_CHI = 5
SOAK_SHOTS = 16
VERDICTS = ("clear", "ok", "traceback", "hang", "wrong")
SUFFIXES = {"dimacs": ".col", "edgelist": ".txt", "graphml": ".graphml", "json": ".json"}

#: ``python -c MEASURE CAP REPORT ARGV...`` runs ARGV under an address-space cap of CAP bytes and
#: writes its exit code and peak RSS to REPORT. Being small, it keeps the benchmark's own memory
#: out of the child's ``ru_maxrss`` (an exec'd child inherits its parent's high-water mark).
_MEASURE = """
import json, resource, subprocess, sys
cap, report, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
code = subprocess.call(argv)
with open(report, "w") as file:
    json.dump({"code": code, "peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}, file)
sys.exit(code if code >= 0 else 128 - code)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Truth:
    """The graph a generated file describes: vertex labels as ``read_graph`` returns them, edges, chi."""

    labels: tuple
    edges: frozenset
    chi: int | None = None


@dataclass(frozen=True)
class Case:
    """One input: a file's bytes (or a special file) and what is known about it."""

    kind: str  # dimacs, edgelist, graphml, json, file, options
    name: str
    suffix: str
    data: bytes = b""
    special: str | None = None  # directory, fifo, missing, device, symlink-loop
    truth: Truth | None = None
    expect_error: bool = False  # the documented format forbids it
    reference: str | None = None  # dimacs or edgelist: check an accepted graph against the oracle
    options: tuple[str, ...] = ()


def truth_of(labels: list, edges: list[tuple[int, int]], chi: int | None) -> Truth:
    return Truth(tuple(labels), frozenset(frozenset((labels[u], labels[v])) for u, v in edges), chi)


def planted_graph(rng: random.Random, n: int, k: int, density: float) -> list[tuple[int, int]]:
    """Edges on ``0..n-1`` (``n >= k``) whose chromatic number is exactly ``k``.

    The vertices fall into ``k`` colour classes, one vertex of each class forms a
    ``k``-clique, and the other edges join different classes only.
    """
    colour = [i % k for i in range(n)]
    rng.shuffle(colour)
    first: dict[int, int] = {}
    for v, c in enumerate(colour):
        first.setdefault(c, v)
    edges = {frozenset((first[a], first[b])) for a in range(k) for b in range(a + 1, k)}
    for u in range(n):
        for v in range(u + 1, n):
            if colour[u] != colour[v] and rng.random() < density:
                edges.add(frozenset((u, v)))
    return sorted(tuple(sorted(e)) for e in edges)


def random_graph(rng: random.Random, max_n: int) -> tuple[int, list[tuple[int, int]], int]:
    k = rng.choice([1, 2, 2, 3, 3, 4, 5, 6])
    n = rng.randint(k, max(k, max_n))
    return n, planted_graph(rng, n, k, rng.choice([0.05, 0.2, 0.5, 0.8])), k


def dimacs_text(rng: random.Random, n: int, edges: list[tuple[int, int]]) -> bytes:
    pairs = [(u + 1, v + 1) for u, v in edges]
    if rng.random() < 0.3:  # several benchmark files list every edge in both directions
        pairs += [(v, u) for u, v in pairs]
    rng.shuffle(pairs)
    m = len(pairs) if rng.random() < 0.8 else rng.randint(0, len(pairs))  # M is a lower bound
    sep = rng.choice([" ", " ", "\t", "  "])
    lines = ["c generated by benchmarks/robustness.py"] if rng.random() < 0.5 else []
    lines.append(sep.join(["p", rng.choice(["edge", "edge", "col"]), str(n), str(m)]))
    for u, v in pairs:
        lines.append(sep.join(["e", str(u), str(v)]) + rng.choice(["", "", "", " "]))
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "c a comment", "   "]))
    eol = rng.choice(["\n", "\n", "\r\n"])
    text = eol.join(lines) + (eol if rng.random() < 0.8 else "")
    return text.encode("utf-8-sig" if rng.random() < 0.1 else "utf-8")


def dimacs_case(rng: random.Random, n: int, edges: list[tuple[int, int]], chi: int) -> Case:
    truth = truth_of(list(range(1, n + 1)), edges, chi)
    return Case("dimacs", "valid", ".col", dimacs_text(rng, n, edges), truth=truth, reference="dimacs")


def _spell_int(rng: random.Random, value: int) -> str:
    """An integer as an edge list may spell it: ``7``, ``+7``, ``07``, ``-07``."""
    digits = str(abs(value))
    sign = "-" if value < 0 else rng.choice(["", "", "", "+"])
    return sign + ("0" if rng.random() < 0.15 else "") + digits


def edgelist_case(rng: random.Random, n: int, edges: list[tuple[int, int]], chi: int) -> Case:
    scheme = rng.choice(["int", "int", "str", "mixed"])
    ints = rng.sample(range(-50, 10 * n + 50), n)
    prefixes = ["v", "node_", "x.", "A+", "é", "b-"]
    names = [f"{rng.choice(prefixes)}{i}" for i in range(n)]
    labels: list = [
        ints[i] if scheme == "int" or (scheme == "mixed" and rng.random() < 0.5) else names[i]
        for i in range(n)
    ]

    def spell(v: int) -> str:
        label = labels[v]
        return _spell_int(rng, label) if isinstance(label, int) else label

    touched = {v for e in edges for v in e}
    lines = ["# generated by benchmarks/robustness.py"] if rng.random() < 0.5 else []
    sep = rng.choice([" ", "\t", ",", ", ", " , ", "  "])
    items = [(u, v) if rng.random() < 0.5 else (v, u) for u, v in edges]
    items += [(v,) for v in range(n) if v not in touched or rng.random() < 0.1]
    rng.shuffle(items)
    for item in items:
        tokens = [spell(v) for v in item]
        if len(item) == 2 and rng.random() < 0.2:
            tokens.append(rng.choice(["1", "2.5", "-3", "1e-3", "0", "inf", "nan"]))
        line = sep.join(tokens)
        if rng.random() < 0.05:
            line += rng.choice(["  # trailing comment", "\t#"])
        lines.append(line)
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "% a comment", "   # a comment"]))
    text = rng.choice(["\n", "\r\n"]).join(lines) + "\n"
    return Case(
        "edgelist", "valid", ".txt", text.encode(), truth=truth_of(labels, edges, chi), reference="edgelist"
    )


def graphml_case(rng: random.Random, n: int, edges: list[tuple[int, int]], chi: int) -> Case:
    import networkx as nx

    ints = rng.random() < 0.5
    ids = [str(v) for v in rng.sample(range(10 * n + 10), n)] if ints else [f"n{i}" for i in range(n)]
    directed, multi = rng.random() < 0.3, rng.random() < 0.2
    kinds = {(False, False): nx.Graph, (True, False): nx.DiGraph}
    kinds.update({(False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph})
    graph = kinds[directed, multi]()
    graph.add_nodes_from(ids)
    for u, v in edges:
        a, b = (ids[u], ids[v]) if rng.random() < 0.5 else (ids[v], ids[u])
        graph.add_edge(a, b, **({"weight": rng.choice([1.0, 2.5])} if rng.random() < 0.3 else {}))
        if multi and rng.random() < 0.3:
            graph.add_edge(b, a)
    text = "\n".join(nx.generate_graphml(graph))
    labels = [int(x) for x in ids] if ints else ids
    return Case("graphml", "valid", ".graphml", text.encode(), truth=truth_of(labels, edges, chi))


def json_case(rng: random.Random, n: int, edges: list[tuple[int, int]], chi: int) -> Case:
    scheme = rng.choice(["int", "str", "list"])
    ids: list = {
        "int": lambda: rng.sample(range(-5, 10 * n + 10), n),
        "str": lambda: [f"v{i}" for i in range(n)],
        "list": lambda: [[i, "x"] for i in range(n)],
    }[scheme]()
    key = rng.choice(["links", "edges"])
    links = []
    for u, v in edges:
        a, b = (u, v) if rng.random() < 0.5 else (v, u)
        link: dict[str, Any] = {"source": ids[a], "target": ids[b]}
        if rng.random() < 0.3:
            link["weight"] = rng.choice([1, 2.5, -1])
        links.append(link)
    document = {"directed": rng.random() < 0.3, "multigraph": False, "graph": {}}
    document |= {"nodes": [{"id": i} for i in ids], key: links}
    text = json.dumps(document, indent=rng.choice([None, 1]))
    labels = [tuple(i) if isinstance(i, list) else i for i in ids]
    return Case("json", "valid", ".json", text.encode(), truth=truth_of(labels, edges, chi))


WRITERS: dict[str, Callable[[random.Random, int, list[tuple[int, int]], int], Case]] = {
    "dimacs": dimacs_case,
    "edgelist": edgelist_case,
    "graphml": graphml_case,
    "json": json_case,
}


def valid_case(rng: random.Random, max_n: int = 40) -> Case:
    n, edges, chi = random_graph(rng, max_n)
    return WRITERS[rng.choice(list(WRITERS))](rng, n, edges, chi)


# -- mutations
NASTY = [
    b"\x00",
    b"\xff",
    b"\xef\xbb\xbf",
    b"p edge 3 2",
    b"e 1 1",
    b"-1",
    b"99999999999999999999",
    b"1" * 70,
    b"1e309",
    b"NaN",
    b"<!DOCTYPE x>",
    b"[[[[",
    b"{",
    b'"',
    b",",
    b"\t",
    b"\r",
    "\u2028".encode(),
    "é".encode(),
    b"#",
    b"%",
    b"c",
    b"<node id='z'/>",
    b'{"id": null}',
]
NUMBER = re.compile(rb"-?\d+")


def _lines(data: bytearray) -> list[bytes]:
    return bytes(data).split(b"\n")


def _mutate_once(rng: random.Random, data: bytearray, op: str) -> bytearray:
    if not data and op not in ("insert-junk", "repeat"):
        op = "insert-junk"
    if op == "truncate":
        return data[: rng.randrange(len(data))]
    if op == "flip-bytes":
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return data
    if op == "flip-bits":
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return data
    if op == "insert-junk":
        at = rng.randint(0, len(data))
        return data[:at] + rng.choice(NASTY) + data[at:]
    if op in ("delete-line", "duplicate-line", "swap-lines"):
        lines = _lines(data)
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        if op == "delete-line":
            del lines[i]
        elif op == "duplicate-line":
            lines.insert(i, lines[j])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return bytearray(b"\n".join(lines))
    if op == "replace-number":
        spots = list(NUMBER.finditer(data))
        if spots:
            spot = rng.choice(spots)
            new = rng.choice([b"0", b"-1", b"1000000000", b"10000001", b"1" * 70, b"1.5", b"0x10", b"2"])
            return data[: spot.start()] + new + data[spot.end() :]
        return data
    if op == "separators":
        old, new = rng.choice([(b" ", b"\t"), (b" ", b","), (b"\n", b"\r"), (b" ", b"  "), (b"\n", b"\n\n")])
        return bytearray(bytes(data).replace(old, new))
    if op == "repeat":
        copies = max(1, min(64, MAX_INPUT_BYTES // max(1, len(data))))
        return data * rng.randint(2, max(2, copies))
    raise ValueError(f"unknown mutation {op!r}")


MUTATIONS = (
    "truncate",
    "flip-bytes",
    "flip-bits",
    "insert-junk",
    "delete-line",
    "duplicate-line",
    "swap-lines",
    "replace-number",
    "separators",
    "repeat",
    "extension",
)


def mutated_case(rng: random.Random) -> Case:
    base = valid_case(rng)
    data, suffix = bytearray(base.data), base.suffix
    ops = rng.sample(MUTATIONS, rng.choice([1, 1, 2, 3]))
    for op in ops:
        if op == "extension":
            suffix = rng.choice([s for s in (*SUFFIXES.values(), ".edges", ".dimacs", ".xml") if s != suffix])
        else:
            data = _mutate_once(rng, data, op)
    same_format = suffix == base.suffix
    return Case(
        base.kind,
        "mutated:" + "+".join(ops),
        suffix,
        bytes(data[:MAX_INPUT_BYTES]),
        reference=base.reference if same_format else None,
    )


# -- hostile inputs, the same for every seed
GRAPHML_NS = b'<graphml xmlns="http://graphml.graphdrawing.org/xmlns">'


def _graphml(body: bytes, head: bytes = GRAPHML_NS) -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8"?>' + head + body + b"</graphml>"


def _max_isolated_dimacs() -> bytes:
    """Under 1 MB: a perfect matching and as many isolated vertices as the reader accepts."""
    lines, size = [], 0
    while True:
        line = f"e {2 * len(lines) + 1} {2 * len(lines) + 2}\n"
        if size + len(line) > MAX_INPUT_BYTES - 40:
            break
        lines.append(line)
        size += len(line)
    touched = 2 * len(lines)
    isolated = max(ISOLATED_FLOOR, ISOLATED_FACTOR * touched)
    return f"p edge {touched + isolated} {len(lines)}\n".encode() + "".join(lines).encode()


def _laughs() -> str:
    """GraphML whose entities expand ten levels deep (the "billion laughs")."""
    entities = "".join(
        f'<!ENTITY {x} "{("&" + p + ";") * 10}">' for p, x in zip("abcdefgh", "bcdefghi", strict=True)
    )
    return (
        f'<?xml version="1.0"?><!DOCTYPE graphml [<!ENTITY a "aaaaaaaaaa">{entities}]>'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" for="node" attr.name="x" '
        'attr.type="string"/><graph edgedefault="undirected"><node id="n0"><data key="d0">&i;</data></node>'
        "</graph></graphml>"
    )


def _quadratic() -> str:
    """GraphML that references one 40,000-character entity 20,000 times."""
    return (
        '<?xml version="1.0"?><!DOCTYPE graphml [<!ENTITY a "' + "a" * 40_000 + '">]>'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" for="node" attr.name="x" '
        'attr.type="string"/><graph edgedefault="undirected"><node id="n0"><data key="d0">'
        + "&a;" * 20_000
        + "</data></node></graph></graphml>"
    )


UNDIRECTED = b'<graph edgedefault="undirected">'
NESTED8 = b"[" * 8 + b"1" + b"]" * 8


def _nodelink(nodes: bytes, links: bytes = b"", key: bytes = b"links") -> bytes:
    return b'{"nodes": [' + nodes + b'], "' + key + b'": [' + links + b"]}"


#: Inputs the documented formats forbid: each must be a clear error.
FORBIDDEN: dict[str, dict[str, bytes]] = {
    "dimacs": {
        "huge-header": b"p edge 1000000000 1\ne 1 2\n",
        "max-vertices+1": b"p edge 10000001 1\ne 1 2\n",
        "isolated-header": b"p edge 10000000 1\ne 1 2\n",
        "negative-count": b"p edge -5 1\ne 1 2\n",
        "70-digit-count": b"p edge 1" + b"0" * 70 + b" 1\ne 1 2\n",
        "huge-edge-count": b"p edge 3 1000000000000\ne 1 2\n",
        "no-header": b"e 1 2\n",
        "two-headers": b"p edge 2 1\np edge 2 1\ne 1 2\n",
        "self-loop": b"p edge 2 1\ne 1 1\n",
        "vertex-out-of-range": b"p edge 2 1\ne 1 3\n",
        "vertex-zero": b"p edge 2 1\ne 0 1\n",
        "float-vertex": b"p edge 2 1\ne 1.0 2\n",
        "short-edge": b"p edge 2 1\ne 1\n",
        "unknown-line": b"p edge 2 1\nx 1 2\n",
        "problem-type": b"p graph 2 1\ne 1 2\n",
        "empty-graph": b"p edge 0 0\n",
        "empty-file": b"",
        "only-comments": b"c nothing here\n",
        "nul": b"p edge 2 1\ne 1\x00 2\n",
        "latin-1": b"p edge 2 1\nc caf\xe9\ne 1 2\n",
        "utf-16": "p edge 2 1\ne 1 2\n".encode("utf-16"),
        "900k-digit-vertex": b"p edge 2 1\ne 1 " + b"2" * 900_000 + b"\n",
    },
    "edgelist": {
        "four-tokens": b"1 2 3 4\n",
        "semicolon": b"1;2\n",
        "arrow": b"a->b\n",
        "dash-edge": b"1-2\n",
        "empty-field": b"1,,2\n",
        "trailing-comma": b"1,2,\n",
        "self-loop": b"a b\nb b\n",
        "leading-zero-self-loop": b"01 1\n",
        "bad-weight": b"1 2 abc\n",
        "empty-file": b"",
        "only-comments": b"# x\n% y\n",
        "65-digit-label": b"1" * 65 + b" 2\n",
        "nul": b"1 2\x00\n",
        "latin-1": b"caf\xe9 2\n",
    },
    "graphml": {
        "not-xml": b"hello",
        "truncated": _graphml(UNDIRECTED + b'<node id="a"/><node id="b"/></graph>')[:-20],
        "billion-laughs": _laughs().encode(),
        "billion-laughs-utf16": _laughs().encode("utf-16"),
        "self-loop": _graphml(UNDIRECTED + b'<node id="a"/><edge source="a" target="a"/></graph>'),
        "no-graph": _graphml(b""),
        "empty-graph": _graphml(UNDIRECTED + b"</graph>"),
        "bad-key-type": _graphml(
            b'<key id="d0" for="node" attr.name="x" attr.type="int"/>'
            + UNDIRECTED
            + b'<node id="a"><data key="d0">abc</data></node></graph>'
        ),
    },
    "json": {
        "not-json": b"{",
        "top-level-list": b"[]",
        "deep-list": b"[" * 100_000 + b"]" * 100_000,
        "deep-object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        "deep-nodes": b'{"links": [], "nodes": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
        "id-depth-9": _nodelink(b'{"id": [' + NESTED8 + b"]}"),
        "5000-digit-id": _nodelink(b'{"id": 1' + b"0" * 5000 + b"}"),
        "nan-id": _nodelink(b'{"id": NaN}'),
        "null-id": _nodelink(b'{"id": null}'),
        "bool-id": _nodelink(b'{"id": true}'),
        "object-id": _nodelink(b'{"id": {}}'),
        "missing-links": b'{"nodes": [{"id": 1}]}',
        "nodes-not-list": b'{"nodes": 5, "links": []}',
        "unknown-endpoint": _nodelink(b'{"id": 1}', b'{"source": 1, "target": 2}'),
        "self-loop": _nodelink(b'{"id": 1}', b'{"source": 1, "target": 1}'),
        "string-weight": _nodelink(b'{"id": 1}, {"id": 2}', b'{"source": 1, "target": 2, "weight": "x"}'),
        "empty-nodes": _nodelink(b""),
        "utf-16": _nodelink(b'{"id": 1}').decode().encode("utf-16"),
    },
}

#: Odd inputs the documentation does not settle: a clear error or a right answer.
ODD: dict[str, dict[str, bytes]] = {
    "dimacs": {"unicode-digits": "p edge 2 1\ne \u0661 \u0662\n".encode()},
    "edgelist": {"cr-line-ends": b"1 2\r3 4\r", "em-space": "1\u20032\n".encode()},
    "graphml": {
        "quadratic-blowup-utf16": _quadratic().encode("utf-16")[:MAX_INPUT_BYTES],
        "nested-graphs": _graphml(
            UNDIRECTED
            + b"".join(b'<node id="n%d"><graph edgedefault="undirected">' % i for i in range(5_000))
            + b"</graph></node>" * 5_000
            + b"</graph>"
        ),
        "deep-elements": _graphml(UNDIRECTED + b"<x>" * 100_000 + b"</x>" * 100_000 + b"</graph>"),
        "hyperedge": _graphml(
            UNDIRECTED + b'<node id="a"/><node id="b"/><hyperedge><endpoint node="a"/></hyperedge></graph>'
        ),
    },
    "json": {"id-depth-8": _nodelink(b'{"id": ' + NESTED8 + b"}")},
}


def _valid_hostile() -> list[tuple[str, str, bytes, Truth]]:
    """(format, name, bytes, graph) of valid inputs at the edges of the formats."""
    k2 = truth_of([1, 2], [(0, 1)], 2)
    ab = truth_of(["a", "b"], [(0, 1)], 2)
    edge_ab = b'<node id="a"/><node id="b"/><edge source="a" target="b"/></graph>'
    isolated = [
        (n, Truth(tuple(range(start, start + n)), frozenset(), 1)) for n, start in ((1000, 1), (150_000, 0))
    ]
    nodes_60k = b", ".join(b'{"id": %d}' % i for i in range(60_000))
    return [
        ("dimacs", "1000-isolated", b"p edge 1000 0\n", isolated[0][1]),
        ("dimacs", "crlf-bom", "\ufeffp edge 2 1\r\ne 1 2\r\n".encode(), k2),
        ("dimacs", "160k-duplicate-edges", b"p edge 2 1\n" + b"e 1 2\ne 2 1\n" * 80_000, k2),
        ("edgelist", "nan-inf-weights", b"1 2 nan\n3 2 inf\n", truth_of([1, 2, 3], [(0, 1), (2, 1)], 2)),
        (
            "edgelist",
            "tabs-commas",
            b"1\t2\n3 , 4\n2,3\n",
            truth_of([1, 2, 3, 4], [(0, 1), (2, 3), (1, 2)], 2),
        ),
        ("edgelist", "900k-label", b"a" * 900_000 + b" b\n", truth_of(["a" * 900_000, "b"], [(0, 1)], 2)),
        ("edgelist", "150k-vertices", "\n".join(map(str, range(150_000))).encode(), isolated[1][1]),
        (
            "graphml",
            "undeclared-endpoint",
            _graphml(UNDIRECTED + b'<node id="a"/><edge source="a" target="b"/></graph>'),
            ab,
        ),
        ("graphml", "no-namespace", _graphml(UNDIRECTED + edge_ab, b"<graphml>"), ab),
        (
            "graphml",
            "60k-nodes",
            _graphml(UNDIRECTED + b"".join(b'<node id="%d"/>' % i for i in range(60_000)) + b"</graph>"),
            Truth(tuple(range(60_000)), frozenset(), 1),
        ),
        (
            "json",
            "int-and-string-ids",
            _nodelink(
                b'{"id": 1}, {"id": "1"}, {"id": 2}',
                b'{"source": 1, "target": "1"}, {"source": "1", "target": 2}, {"source": 1, "target": 2}',
            ),
            truth_of([1, "1", 2], [(0, 1), (1, 2), (0, 2)], 3),
        ),
        (
            "json",
            "list-and-string-ids",
            _nodelink(
                b'{"id": [1, 2]}, {"id": "(1, 2)"}, {"id": 3}',
                b'{"source": [1, 2], "target": "(1, 2)"}',
                b"edges",
            ),
            truth_of([(1, 2), "(1, 2)", 3], [(0, 1)], 2),
        ),
        (
            "json",
            "duplicate-keys",
            b'{"nodes": [{"id": 1}], "nodes": [{"id": 2}, {"id": 3}], "links": [{"source": 2, "target": 3}]}',
            truth_of([2, 3], [(0, 1)], 2),
        ),
        ("json", "60k-nodes", _nodelink(nodes_60k), Truth(tuple(range(60_000)), frozenset(), 1)),
        ("file", "upper-case-extension", b"p edge 2 1\ne 1 2\n", k2),
    ]


#: Files that are no graph file at all: (name, suffix, bytes, special).
NOT_GRAPH_FILES = [
    ("unknown-extension", ".xyz", b"p edge 2 1\ne 1 2\n", None),
    ("no-extension", "", b"p edge 2 1\ne 1 2\n", None),
    ("dimacs-as-json", ".json", b"p edge 2 1\ne 1 2\n", None),
    ("json-as-graphml", ".graphml", b'{"nodes": [{"id": 1}], "links": []}', None),
    ("directory", ".col", b"", "directory"),
    ("fifo", ".col", b"", "fifo"),
    ("missing", ".col", b"", "missing"),
    ("device", ".col", b"", "device"),
    ("symlink-loop", ".col", b"", "symlink-loop"),
]


def hostile_cases() -> list[Case]:
    """Inputs that probe the documented limits and the usual attacks; the most expensive one last."""
    cases = [
        Case(kind, name, SUFFIXES[kind], data, expect_error=True)
        for kind, table in FORBIDDEN.items()
        for name, data in table.items()
    ]
    cases += [
        Case(kind, name, SUFFIXES[kind], data) for kind, table in ODD.items() for name, data in table.items()
    ]
    for kind, name, data, truth in _valid_hostile():
        suffix = ".COL" if kind == "file" else SUFFIXES[kind]
        cases.append(Case(kind, name, suffix, data, truth=truth))
    cases += [Case("file", n, s, d, special=sp, expect_error=True) for n, s, d, sp in NOT_GRAPH_FILES]
    cases.append(Case("dimacs", "max-isolated", ".col", _max_isolated_dimacs(), reference="dimacs"))
    return cases


BAD_OPTIONS = [
    ("--shots", "0"),
    ("--shots", "1e3"),
    ("--time-limit", "nan"),
    ("--time-limit", "-1"),
    ("--memory-limit", "inf"),
    ("--workers", "0"),
    ("--workers", "100000"),
    ("--seed", "-1"),
    ("--seed", str(2**64)),
    ("--max-qubits", "0"),
    ("--exact-share", "2"),
    ("--node-limit", "0"),
    ("--strategy", "sideways"),
    ("--sampler", "oracle"),
    ("--executor", "gpu"),
    ("--backend", "nope"),
    ("--backend", "iqm-fake:nope"),
    ("--backend", "vqpu:ftp://x"),
    ("--json", "/nonexistent/folder/out.json"),
    ("--checkpoint", "/nonexistent/folder/run.ckpt"),
    ("--resume",),
    ("--no-such-option",),
]


def option_cases() -> list[Case]:
    myciel3 = (ROOT / "data" / "graphs" / "myciel3.col").read_bytes()
    return [
        Case("options", " ".join(o), ".col", myciel3, expect_error=True, options=tuple(o))
        for o in BAD_OPTIONS
    ]


def materialize(case: Case, folder: Path, index: int) -> Path:
    """Write ``case`` into ``folder`` (or make its special file) and return the path to read."""
    slug = re.sub(r"[^A-Za-z0-9.+-]+", "_", f"{case.kind}-{case.name}")[:60]
    path = folder / f"{index:05d}-{slug}{case.suffix}"
    if case.special == "directory":
        path.mkdir()
    elif case.special == "fifo":
        os.mkfifo(path)
    elif case.special == "device":
        path.symlink_to("/dev/zero")
    elif case.special == "symlink-loop":
        path.symlink_to(path)
    elif case.special != "missing":
        path.write_bytes(case.data)
    return path


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


# ----------------------------------------------------------------------------- reference parsers
class Rejected(Exception):
    """The reference parser refuses the input under the documented rules."""


def _reference_int(token: str, low: int) -> int:
    if not re.fullmatch(r"[+-]?[0-9]{1,64}", token) or int(token) < low:
        raise Rejected(token)
    return int(token)


def reference_dimacs(data: bytes) -> tuple[set, set] | None:
    """Vertices and edges of a DIMACS file under the documented rules; None if not plain ASCII."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    n, m, edge_lines, edges = None, 0, 0, set()
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        tokens = line.split()
        if "\x00" in line or tokens[0] not in ("p", "e"):
            raise Rejected(line)
        if tokens[0] == "p":
            if n is not None or len(tokens) != 4 or tokens[1] not in ("edge", "col"):
                raise Rejected(line)
            n, m = _reference_int(tokens[2], 0), _reference_int(tokens[3], 0)
            if n > 10_000_000:
                raise Rejected(line)
        else:
            if n is None or len(tokens) != 3:
                raise Rejected(line)
            u, v = _reference_int(tokens[1], 1), _reference_int(tokens[2], 1)
            if u > n or v > n or u == v:
                raise Rejected(line)
            edges.add(frozenset((u, v)))
            edge_lines += 1
    if n is None or n == 0 or edge_lines < m:
        raise Rejected("header")
    touched = len(set().union(*edges))
    if n - touched > max(ISOLATED_FLOOR, ISOLATED_FACTOR * touched):
        raise Rejected("isolated")
    return set(range(1, n + 1)), edges


def _reference_label(token: str) -> int | str:
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", token) or re.fullmatch(r"[0-9]+-+[0-9]+", token):
        raise Rejected(token)
    if re.fullmatch(r"[+-]?[0-9]+", token):
        if len(token) > 64:
            raise Rejected(token)
        return int(token)
    return token


def reference_edgelist(data: bytes) -> tuple[set, set] | None:
    """Vertices and edges of an edge list under the documented rules; None if not plain ASCII."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    labels: dict = {}
    edges = set()
    for raw in text.split("\n"):
        content, line = raw.split("#", 1)[0], raw.strip()
        if not content.strip() or line.startswith("%"):
            continue
        if "\x00" in line:
            raise Rejected(line)
        if "," in content:
            tokens = [t.strip() for t in content.split(",")]
            if not all(tokens):
                raise Rejected(line)
        else:
            tokens = content.split()
        if len(tokens) > 3:
            raise Rejected(line)
        ends = [_reference_label(t) for t in tokens[:2]]
        if len(tokens) == 3:
            try:
                float(tokens[2])
            except ValueError:
                raise Rejected(line) from None
        if len(ends) == 2 and ends[0] == ends[1]:
            raise Rejected(line)
        labels.update(dict.fromkeys(ends))
        if len(ends) == 2:
            edges.add(frozenset(ends))
    if not labels:
        raise Rejected("empty")
    return set(labels), edges


REFERENCES = {"dimacs": reference_dimacs, "edgelist": reference_edgelist}


def reference_read(case: Case) -> Truth | Rejected | None:
    """The graph the reference parser reads from ``case``, its refusal, or None when it cannot tell."""
    try:
        read = REFERENCES[case.reference](case.data) if case.reference else None
    except Rejected as exc:
        return exc
    return None if read is None else Truth(tuple(read[0]), frozenset(read[1]))


def reference_truth(case: Case) -> Truth | None:
    """The graph the reference parser reads from ``case``, or None when it cannot tell or refuses."""
    read = reference_read(case)
    return read if isinstance(read, Truth) else None


# ----------------------------------------------------------------------------- verdicts
@dataclass
class Outcome:
    """The verdict on one input of one part."""

    part: str
    kind: str
    name: str
    size: int  # bytes of the input
    verdict: str
    detail: str = ""
    peak_kb: int = 0
    seconds: float = 0.0
    path: str = ""
    command: str = ""
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, part: str, case: Case, verdict: str, detail: str, **more: Any) -> Outcome:
        """The outcome of ``case``, without its bytes (thousands of them stay in memory)."""
        return cls(part, case.kind, case.name, len(case.data), verdict, detail, **more)

    @property
    def category(self) -> str:
        return f"{self.part} {self.kind}"


def compare_graph(graph: Any, want: Truth, what: str) -> str | None:
    """Why the graph ``read_graph`` returned differs from ``want`` (None if it does not)."""
    labels = [graph.nodes[v]["label"] for v in graph]
    if list(graph) != list(range(len(labels))):
        return "nodes are not 0..n-1"
    edges = {frozenset((graph.nodes[u]["label"], graph.nodes[v]["label"])) for u, v in graph.edges}
    if len(set(labels)) != len(labels) or set(labels) != set(want.labels):
        extra, missing = set(labels) - set(want.labels), set(want.labels) - set(labels)
        return (
            f"vertices differ from {what}: {len(labels)} read, {len(want.labels)} expected; "
            f"extra {sorted(map(repr, extra))[:3]}, missing {sorted(map(repr, missing))[:3]}"
        )
    if edges != set(want.edges):
        extra, missing = edges - set(want.edges), set(want.edges) - edges
        return (
            f"edges differ from {what}: {len(edges)} read, {len(want.edges)} expected; "
            f"extra {[sorted(map(repr, e)) for e in list(extra)[:3]]}, "
            f"missing {[sorted(map(repr, e)) for e in list(missing)[:3]]}"
        )
    return None


def judge_read(case: Case, path: Path) -> dict[str, str]:
    """In the child: read ``path`` with ``read_graph`` and judge the outcome."""
    import warnings

    from bbqmis.mis.errors import GraphFormatError
    from bbqmis.mis.graphio import read_graph

    warnings.simplefilter("ignore")  # networkx warns about odd GraphML keys; the verdict is what counts
    reference = reference_read(case)
    try:
        graph = read_graph(path)
    except GraphFormatError as exc:
        message = str(exc)
        if not message or "\n" in message or not message.startswith(str(path)):
            return {"verdict": "traceback", "detail": f"unclear error message: {message[:300]!r}"}
        if case.truth is not None or isinstance(reference, Truth):
            return {"verdict": "wrong", "detail": f"refused a valid input: {message[:300]}"}
        return {"verdict": "clear", "detail": message[:300]}
    except BaseException as exc:  # noqa: BLE001 - exactly what this part looks for
        lines = traceback.format_exception(exc)
        return {"verdict": "traceback", "detail": "".join(lines[-3:])[-1500:]}
    if case.expect_error:
        return {"verdict": "wrong", "detail": "accepted an input its format forbids"}
    if isinstance(reference, Rejected):
        return {
            "verdict": "wrong",
            "detail": f"accepted an input its format forbids: {str(reference)[:200]!r}",
        }
    if case.truth is not None:
        problem = compare_graph(graph, case.truth, "the generated graph")
    else:
        problem = None if reference is None else compare_graph(graph, reference, "the reference parser")
    size = f"{graph.number_of_nodes()} vertices, {graph.number_of_edges()} edges"
    return {"verdict": "wrong", "detail": problem} if problem else {"verdict": "ok", "detail": size}


def check_coloring(result: dict, truth: Truth) -> str | None:
    """Why the ``--json`` result is not a right answer for ``truth`` (None if it is)."""
    # the documented keys: str(label), or repr(label) for all when two labels print alike
    key = str if len({str(label) for label in truth.labels}) == len(truth.labels) else repr
    names: dict[str, list] = {}
    for label in truth.labels:
        names.setdefault(key(label), []).append(label)
    coloring = result.get("coloring")
    if not isinstance(coloring, dict):
        return f"--json has no colouring object: {str(coloring)[:100]}"
    clash = next((name for name, labels in names.items() if len(labels) > 1), None)
    if clash is not None:
        return (
            f"the --json colouring cannot tell vertices {names[clash]!r} apart: both are written as key "
            f"{clash!r}, so the colouring it holds has {len(coloring)} of the {len(truth.labels)} vertices"
        )
    missing, extra = names.keys() - coloring.keys(), coloring.keys() - names.keys()
    if missing or extra:
        return f"colouring misses {sorted(missing)[:3]} ({len(missing)}) and has extra {sorted(extra)[:3]}"
    colours = list(coloring.values())
    if not all(isinstance(c, int) and c >= 0 for c in colours):
        return "colours are not non-negative integers"
    for edge in truth.edges:
        u, v = tuple(edge)
        if coloring[key(u)] == coloring[key(v)]:
            return f"improper colouring: adjacent vertices {u!r} and {v!r} share colour {coloring[key(u)]}"
    k, lower, optimal = len(set(colours)), result.get("lower_bound"), result.get("optimal")
    if result.get("num_colors") != k:
        return f"num_colors {result.get('num_colors')} but the colouring uses {k} colours"
    if not isinstance(lower, int) or lower > k or optimal is not (lower == k):
        return f"inconsistent result: {k} colours, lower bound {lower!r}, optimal {optimal!r}"
    if truth.chi is not None:
        if lower > truth.chi:
            return f"lower bound {lower} above the chromatic number {truth.chi}"
        if optimal and k != truth.chi:
            return f"claims {k} colours optimal; the chromatic number is {truth.chi}"
    return None


# ----------------------------------------------------------------------------- part 1: parser
def _vm_size() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run_forked(fn: Callable[[], dict], timeout: float, cap: int) -> tuple[dict, int, float]:
    """Run ``fn`` in a forked child under an address-space cap; its result, peak RSS (KB) and seconds."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    tic = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            resource.setrlimit(resource.RLIMIT_AS, (cap, resource.getrlimit(resource.RLIMIT_AS)[1]))
            payload = json.dumps(fn()).encode()
            with os.fdopen(write_fd, "wb") as pipe:
                pipe.write(payload)
        except BaseException:  # noqa: BLE001 - reported as a crash by the parent
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    chunks, hung = [], False
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            left = tic + timeout - time.monotonic()
            if left <= 0:
                hung = True
                os.kill(pid, signal.SIGKILL)
                break
            if select.select([pipe], [], [], left)[0]:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.monotonic() - tic
    if hung:
        return {"verdict": "hang", "detail": f"no answer within {timeout:g} s"}, usage.ru_maxrss, seconds
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or not chunks:
        how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
        return {"verdict": "traceback", "detail": f"child crashed ({how})"}, usage.ru_maxrss, seconds
    return json.loads(b"".join(chunks)), usage.ru_maxrss, seconds


def parser_part(
    rng: random.Random, budget: float, limit: int, folder: Path, progress: Callable[[str], None]
) -> list[Outcome]:
    """Read the hostile inputs, then valid and mutated ones, for ``budget`` s or ``limit`` inputs."""
    import bbqmis.mis.graphio  # noqa: F401 - imported before the forks, so each child starts warm

    cap = _vm_size() + PARSE_CAP_BYTES
    outcomes: list[Outcome] = []
    deadline = time.monotonic() + budget
    hostile = hostile_cases()
    first = hostile[:-1]
    rng.shuffle(first)  # a small limit still samples every format

    def random_case() -> Case:
        return valid_case(rng, rng.choice([10, 40, 200])) if rng.random() < 0.35 else mutated_case(rng)

    def cases() -> Iterator[Case]:
        for case in [*first, hostile[-1]]:  # a short run samples both kinds
            yield case
            yield random_case()
        while True:
            yield random_case()

    for index, case in zip(range(limit), cases(), strict=False):
        if time.monotonic() > deadline:
            break
        path = materialize(case, folder, index)
        result, peak, seconds = run_forked(
            lambda case=case, path=path: judge_read(case, path), PARSE_TIMEOUT, cap
        )
        outcome = Outcome.of(
            "parser", case, result["verdict"], result["detail"], peak_kb=peak, seconds=seconds
        )
        code = f'from bbqmis.mis.graphio import read_graph; read_graph("{path}")'
        outcome.path, outcome.command = str(path), f"python -c {shlex.quote(code)}"
        outcomes.append(outcome)
        keep(outcome, folder)
        if index % 250 == 0:
            progress(f"parser: {index + 1} inputs")
    return outcomes


def keep(outcome: Outcome, folder: Path) -> None:
    """Remove the input of an unremarkable outcome; keep the others for their reproducers."""
    path = Path(outcome.path)
    if outcome.verdict in ("clear", "ok") and outcome.peak_kb < MEMORY_TARGET_KB and not outcome.notes:
        remove(path)


def pooled(
    items: Iterator[Any],
    run: Callable[[Any, int], Outcome],
    *,
    budget: float,
    limit: int,
    jobs: int,
    folder: Path,
    progress: Callable[[str], None],
) -> list[Outcome]:
    """``run(item, index)`` on ``jobs`` threads until ``budget`` s have passed or ``limit`` items ran."""
    deadline = time.monotonic() + budget
    lock = threading.Lock()
    counter = iter(range(limit))

    def worker() -> list[Outcome]:
        done = []
        while time.monotonic() < deadline:
            with lock:
                index = next(counter, None)
                if index is None:
                    break
                item = next(items)
            outcome = run(item, index)
            done.append(outcome)
            keep(outcome, folder)
            if index % 10 == 0:
                progress(f"{outcome.part}: {index + 1} runs")
        return done

    with ThreadPoolExecutor(jobs) as pool:
        results = [pool.submit(worker) for _ in range(jobs)]
        return [outcome for future in results for outcome in future.result()]


# ----------------------------------------------------------------------------- part 2: CLI
@dataclass
class Run:
    """A finished (or killed) subprocess."""

    returncode: int
    stdout: str
    stderr: str
    peak_kb: int
    seconds: float
    hung: bool
    leftovers: bool


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
    }


def _group(group: int) -> dict[int, int]:
    """The processes of a process group that have not exited (zombies left out): pid -> VmHWM in KB."""
    members = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            state, _, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
            if int(pgrp) == group and state != "Z":
                status = (stat.parent / "status").read_text().splitlines()
                members[int(stat.parent.name)] = next(
                    (int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0
                )
    return members


def run_command(argv: list[str], timeout: float, cwd: Path, cap: int = CLI_CAP_BYTES) -> Run:
    """Run ``argv`` under an address-space cap in its own session; kill the session after ``timeout`` s."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        report = cwd / f"run-{threading.get_ident()}-{time.monotonic_ns()}.json"
        tic = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-c", _MEASURE, str(cap), str(report), *argv],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=cwd,
            env=_env(),
            start_new_session=True,
        )
        hung, peak = False, 0
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            hung, peak = True, max(_group(process.pid).values(), default=0)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        seconds = time.monotonic() - tic
        grace = time.monotonic() + 2.0  # pool workers may take a moment to wind down
        while not hung and _group(process.pid) and time.monotonic() < grace:
            time.sleep(0.05)
        leftovers = not hung and bool(_group(process.pid))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # processes the run left behind
        code = process.returncode
        with contextlib.suppress(OSError, ValueError):
            measured = json.loads(report.read_text())
            code, peak = measured["code"], measured["peak_kb"]
        report.unlink(missing_ok=True)
        out.seek(0)
        err.seek(0)
        text = [f.read().decode("utf-8", "replace") for f in (out, err)]
    return Run(code, text[0], text[1], peak, seconds, hung, leftovers)


def known_options() -> set[str]:
    from bbqmis.coloring.cli import build_parser

    return {option for action in build_parser()._actions for option in action.option_strings}


def judge_run(case: Case, path: Path, run: Run, out: Path, options: set[str]) -> tuple[str, str, list[str]]:
    """Verdict, detail and notes of one CLI run."""
    notes = []
    if run.leftovers:
        notes.append("processes of the run were still running 2 s after it exited")
    if run.hung:
        return "hang", f"no exit within {CLI_TIMEOUT:g} s", notes
    lines = run.stderr.strip().splitlines()
    last = lines[-1][:300] if lines else ""
    if "Traceback (most recent call last)" in run.stderr or run.returncode not in (0, 2):
        return "traceback", f"exit {run.returncode}: {last}", notes
    if run.returncode == 2:
        if len(lines) != 1:
            return (
                "traceback",
                f"exit 2 with {len(lines)} stderr lines instead of one: {run.stderr[:300]!r}",
                notes,
            )
        advice = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", lines[0])) - options - set(case.options)
        if advice:
            notes.append(f"the message advises {', '.join(sorted(advice))}, which the command line lacks")
        if case.truth is not None:
            return "wrong", f"refused a valid input: {last}", notes
        return "clear", last, notes
    if case.expect_error:
        return "wrong", "accepted an input its format forbids", notes
    try:
        result = json.loads(out.read_text())
    except (OSError, ValueError) as exc:
        return "traceback", f"exit 0 but no readable --json: {exc}", notes
    truth = case.truth or reference_truth(case)
    if truth is None and path.is_file() and path.stat().st_size < 200_000:
        from bbqmis.mis.errors import GraphFormatError
        from bbqmis.mis.graphio import read_graph

        try:
            graph = read_graph(path)
        except GraphFormatError as exc:
            return "wrong", f"the command line accepted a file read_graph refuses: {exc}", notes
        labels = [graph.nodes[v]["label"] for v in graph]
        truth = truth_of(labels, list(graph.edges), None)
    if truth is None:
        return "ok", f"{result.get('num_colors')} colours (colouring not checked)", notes
    problem = check_coloring(result, truth)
    summary = f"{result['num_colors']} colours, bound {result['lower_bound']}, stopped {result['stopped']}"
    return ("wrong", problem, notes) if problem else ("ok", summary, notes)


def cli_options(rng: random.Random) -> tuple[str, ...]:
    """Random but valid search options: sampler, strategy, heuristic, workers, seed."""
    sampler = rng.choice(["qaoa", "qaoa", "exact", "greedy", "random", "anneal"])
    options = ["--sampler", sampler, "--seed", str(rng.randrange(1000))]
    if rng.random() < 0.2:
        options += ["--strategy", "depth-first"]
    if rng.random() < 0.15:
        options.append("--heuristic")
    if rng.random() < 0.1:
        options += ["--workers", "2"]
    if rng.random() < 0.2:
        options += ["--exact-share", "0"]
    return tuple(options)


def cli_command(path: Path, out: Path, options: tuple[str, ...]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bbqmis",
        str(path),
        "--time-limit",
        f"{TIME_LIMIT:g}",
        "--json",
        str(out),
        "--quiet",
        *options,
    ]


def _shown(argv: list[str], out: Path) -> str:
    """The command to reproduce a run, writing its result to ``out.json``."""
    return shlex.join(["python", *("out.json" if arg == str(out) else arg for arg in argv[1:])])


def cli_part(
    rng: random.Random, budget: float, limit: int, folder: Path, jobs: int, progress: Callable[[str], None]
) -> list[Outcome]:
    """Run the hostile cases and bad options, then a random sample, through ``python -m bbqmis``."""
    options = known_options()
    hostile = hostile_cases()
    fixed = hostile[:-1] + option_cases()
    rng.shuffle(fixed)  # a short budget still samples every format
    fixed.append(hostile[-1])  # the slowest input last

    def cases() -> Iterator[Case]:
        yield from fixed
        while True:
            case = valid_case(rng, rng.choice([12, 25, 40])) if rng.random() < 0.6 else mutated_case(rng)
            yield replace(case, options=cli_options(rng))

    def run(case: Case, index: int) -> Outcome:
        path = materialize(case, folder, 50_000 + index)
        out = folder / f"{50_000 + index:05d}.result.json"
        argv = cli_command(path, out, case.options)
        done = run_command(argv, CLI_TIMEOUT, folder)
        verdict, detail, notes = judge_run(case, path, done, out, options)
        out.unlink(missing_ok=True)
        outcome = Outcome.of("cli", case, verdict, detail, peak_kb=done.peak_kb, seconds=done.seconds)
        outcome.path, outcome.command, outcome.notes = str(path), _shown(argv, out), notes
        return outcome

    return pooled(cases(), run, budget=budget, limit=limit, jobs=jobs, folder=folder, progress=progress)


# ----------------------------------------------------------------------------- part 3: checkpoints
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
    settings = [str(graph), "--sampler", "exact", "--exact-share", "0", "--checkpoint-interval", "0"]
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
        outcome.path, outcome.command, outcome.notes = str(path), _shown(argv, out), notes
        return outcome

    variants = checkpoint_variants(base, rng)
    return pooled(variants, run, budget=budget, limit=limit, jobs=jobs, folder=folder, progress=progress)


# ----------------------------------------------------------------------------- part 4: vQPU soak
def soak_client(args: argparse.Namespace) -> None:
    """One client process: submit its batches one after another; one JSON line per event."""
    from backends.errors import BackendError
    from backends.vqpu.api import VQPUSession

    payload = Path(args.payload).read_text()

    def emit(**record: Any) -> None:
        print(json.dumps(record), flush=True)

    with VQPUSession(args.url, job=args.job, deadline=args.deadline) as session:
        for k in range(args.batches):
            key, seed = f"{args.job}-{k}", args.first_seed + k
            try:
                accepted = session.submit(payload, SOAK_SHOTS, seed=seed, key=key)
                emit(event="ack", key=key, id=accepted["id"])
                batch = session.result(accepted["id"])
            except BackendError as exc:
                emit(event="error", key=key, detail=str(exc)[:300])
                continue
            shots = sum(batch["counts"][0].values()) if batch.get("counts") else 0
            emit(
                event="done",
                key=key,
                id=batch["id"],
                echoed=batch["key"],
                status=batch["status"],
                shots=shots,
            )


def _multiplexing() -> Any:
    """``benchmarks/vqpu_multiplexing.py``, whose ``Server`` starts, kills and restarts a vQPU server."""
    spec = importlib.util.spec_from_file_location(
        "vqpu_multiplexing", ROOT / "benchmarks" / "vqpu_multiplexing.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def soak(
    clients: int, batches: int, kills: int, folder: Path, seed: int, progress: Callable[[str], None]
) -> dict[str, Any]:
    """C clients submit B batches in total; the server is SIGKILLed and restarted K times."""
    from qiskit import QuantumCircuit

    from backends.vqpu.server.store import read_batches
    from backends.vqpu.wire import encode_circuits

    multiplexing = _multiplexing()
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "soak.sqlite"
    for stale in folder.glob("soak.sqlite*"):
        stale.unlink()
    circuit = QuantumCircuit(3, 3)
    circuit.h(0)
    circuit.cx(0, 1)
    circuit.cx(1, 2)
    circuit.measure(range(3), range(3))
    payload = folder / "payload.txt"
    payload.write_text(encode_circuits([circuit]))
    server = multiplexing.Server(
        multiplexing.default_server_command("aer"), db, "--latency", "0.002", "--max-queue", str(10 * clients)
    )
    shares = [batches // clients + (i < batches % clients) for i in range(clients)]
    tic = time.monotonic()
    kill_times = []
    server.start()
    try:
        logs = [open(folder / f"client-{i}.jsonl", "w") for i in range(clients)]
        client = [sys.executable, str(Path(__file__).resolve()), "--soak-client", "--url", server.url]
        client += ["--payload", str(payload)]
        processes = [
            subprocess.Popen(
                [*client, "--job", f"soak-{i}", "--batches", str(shares[i])]
                + ["--first-seed", str(seed * 10**6 + i * 10**4)],  # a seed of its own for every batch
                stdout=logs[i],
                env=_env(),
            )
            for i in range(clients)
        ]

        def finished() -> int:
            with contextlib.suppress(Exception):  # the database may be mid-write; try again
                return sum(b.status in ("done", "failed") for b in read_batches(db))
            return 0

        for j in range(kills):
            while finished() < batches * (j + 1) / (kills + 1) and any(p.poll() is None for p in processes):
                time.sleep(0.05)
            server.kill()
            kill_times.append(time.monotonic() - tic)
            progress(f"soak: server killed after {finished()} of {batches} batches; restarting")
            server.start()
        for process in processes:
            try:
                process.wait(timeout=max(1.0, 300 - (time.monotonic() - tic)))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for file in logs:
            file.close()
    finally:
        server.kill()
    rows = read_batches(db)
    events = [
        json.loads(line)
        for i in range(clients)
        for line in (folder / f"client-{i}.jsonl").read_text().splitlines()
        if line.startswith("{")
    ]
    acked = {e["key"]: e["id"] for e in events if e["event"] == "ack"}
    delivered: dict[str, list[dict]] = {}
    for e in events:
        if e["event"] == "done":
            delivered.setdefault(e["key"], []).append(e)
    keys_by_id: dict[int, set[str]] = {}
    for key, batch_id in acked.items():
        keys_by_id.setdefault(batch_id, set()).add(key)
    lost = sum(1 for key in acked if not any(d["status"] == "done" for d in delivered.get(key, [])))
    duplicated = sum(len(d) - 1 for d in delivered.values()) + sum(len(k) - 1 for k in keys_by_id.values())
    duplicated += len(rows) - len({(b.job, b.key) for b in rows})
    mismatched = sum(
        1
        for key, ds in delivered.items()
        for d in ds
        if d["echoed"] != key or d["id"] != acked.get(key) or d["shots"] != SOAK_SHOTS
    )
    return {
        "clients": clients,
        "batches": batches,
        "kills": len(kill_times),
        "lost": lost,
        "duplicated": duplicated,
        "acknowledged": len(acked),
        "delivered": sum(len(d) for d in delivered.values()),
        "client_errors": sum(e["event"] == "error" for e in events),
        "mismatched": mismatched,
        "rerun": sum(b.runs > 1 for b in rows),
        "unacknowledged_rows": sum(b.key not in acked for b in rows),
        "unfinished_rows": sum(b.status not in ("done", "failed") for b in rows),
        "client_exit_codes": sorted({p.returncode for p in processes}),
        "kill_seconds": [round(t, 1) for t in kill_times],
        "seconds": round(time.monotonic() - tic, 1),
    }


# ----------------------------------------------------------------------------- report
def tally(outcomes: list[Outcome]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        row = rows.setdefault(
            o.category, {"tried": 0, "peak_kb": 0, "over_1gb": 0, **dict.fromkeys(VERDICTS, 0)}
        )
        row["tried"] += 1
        row[o.verdict] += 1
        row["peak_kb"] = max(row["peak_kb"], o.peak_kb)
        row["over_1gb"] += o.peak_kb >= MEMORY_TARGET_KB
    return rows


def print_report(outcomes: list[Outcome], soak_result: dict[str, Any] | None, folder: Path) -> dict[str, Any]:
    rows = tally(outcomes)
    with open(folder / "outcomes.jsonl", "w") as file:
        for o in outcomes:
            record = {"part": o.part, "kind": o.kind, "name": o.name, "size": o.size, "verdict": o.verdict}
            record |= {"detail": o.detail, "peak_kb": o.peak_kb, "seconds": round(o.seconds, 2)}
            file.write(json.dumps(record | {"command": o.command, "notes": o.notes}) + "\n")
    total = {"tried": 0, "peak_kb": 0, "over_1gb": 0, **dict.fromkeys(VERDICTS, 0)}
    print(
        f"{'category':<20} {'tried':>6} {'clear':>6} {'accepted':>8} {'tracebacks':>10} {'hangs':>6} "
        f"{'wrong':>6} {'peak MB':>8} {'>1 GB':>6}"
    )
    for name, row in [*sorted(rows.items()), ("total", total)]:
        if name != "total":
            for key in total:
                total[key] = max(total[key], row[key]) if key == "peak_kb" else total[key] + row[key]
        print(
            f"{name:<20} {row['tried']:>6} {row['clear']:>6} {row['ok']:>8} {row['traceback']:>10} "
            f"{row['hang']:>6} {row['wrong']:>6} {row['peak_kb'] / 1024:>8.0f} {row['over_1gb']:>6}"
        )
    if soak_result is not None:
        s = soak_result
        print(
            f"\nvQPU soak: {s['clients']} clients, {s['batches']} batches, {s['kills']} server kills "
            f"(at {s['kill_seconds']} s): {s['acknowledged']} acknowledged, {s['delivered']} delivered, "
            f"lost {s['lost']}, duplicated {s['duplicated']}, mismatched {s['mismatched']}, "
            f"client errors {s['client_errors']}, re-run after a kill {s['rerun']}, {s['seconds']} s"
        )
    findings = [o for o in outcomes if o.verdict not in ("clear", "ok") or o.peak_kb >= MEMORY_TARGET_KB]
    noted = [o for o in outcomes if o.notes and o not in findings]
    if findings or noted:
        kept = folder / "findings"
        kept.mkdir(parents=True, exist_ok=True)
        print(f"\nfindings ({len(findings)}; inputs kept in {kept}):")
        for o in findings + noted:
            path = Path(o.path)
            if path.exists() or path.is_symlink():
                target = kept / path.name
                with contextlib.suppress(OSError):
                    remove(target)
                    path.rename(target)  # the same file system: FIFOs and symbolic links move as they are
                    o.command = o.command.replace(str(path), str(target))
            verdict = o.verdict if o.verdict not in ("clear", "ok") else "note"
            if o.peak_kb >= MEMORY_TARGET_KB:
                verdict = f"{'memory' if verdict == 'note' else verdict}, peak {o.peak_kb / 2**20:.2f} GB"
            print(f"- [{verdict}] {o.category} {o.name!r} ({o.size} bytes, {o.seconds:.1f} s): {o.detail}")
            for note in o.notes:
                print(f"    note: {note}")
            print(f"    reproduce: {o.command}")
    small = [o.peak_kb for o in outcomes if o.size < 2**20]
    result: dict[str, Any] = {
        "inputs": total["tried"],
        "clear_errors": total["clear"],
        "tracebacks": total["traceback"],
        "hangs": total["hang"],
        "wrong_answers": total["wrong"] + (soak_result or {}).get("mismatched", 0),
        "peak_gb": round(max(small, default=0) / 2**20, 3),
    }
    if soak_result is not None:
        result["soak"] = {
            key: soak_result[key] for key in ("clients", "batches", "kills", "lost", "duplicated")
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=float, default=420.0, help="seconds for parts 1-3 (default 420)")
    parser.add_argument(
        "--quick", action="store_true", help="about a minute: budget 40 s, soak 4 x 100, 1 kill"
    )
    parser.add_argument(
        "--max-inputs",
        type=int,
        default=10**9,
        metavar="N",
        help="at most N runs in each of the CLI and checkpoint parts and 10 N reads in the parser part, "
        "so that a small run does not depend on the machine's speed (default: no limit)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="CLI runs at once")
    parser.add_argument("--soak-clients", type=int, default=16)
    parser.add_argument("--soak-batches", type=int, default=1000)
    parser.add_argument("--soak-kills", type=int, default=2)
    parser.add_argument("--no-soak", action="store_true", help="skip part 4")
    parser.add_argument("--out", default="results/robustness", help="findings and soak logs go here")
    # the soak's client processes (internal)
    parser.add_argument("--soak-client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    parser.add_argument("--batches", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--first-seed", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--payload", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=120.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.soak_client:
        soak_client(args)
        return 0
    if args.quick:
        args.budget, args.soak_clients, args.soak_batches, args.soak_kills = 40.0, 4, 100, 1
    out = Path(args.out).resolve()  # the runs' working folder is elsewhere
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "findings", ignore_errors=True)
    started = time.monotonic()

    def progress(message: str) -> None:
        log(f"[{time.monotonic() - started:6.1f} s] {message}")

    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="work-", dir=out) as tmp:
        work = Path(tmp)
        budget, limit = {part: share * args.budget for part, share in SHARES.items()}, args.max_inputs
        outcomes += parser_part(random.Random(args.seed), budget["parser"], 10 * limit, work, progress)
        progress(f"parser: done, {len(outcomes)} inputs")
        for offset, (part, run) in enumerate((("cli", cli_part), ("checkpoint", checkpoint_part)), start=1):
            rng = random.Random(args.seed + offset)
            outcomes += run(rng, budget[part], limit, work, args.jobs, progress)
            progress(f"{part}: done")
        soak_result = None
        if not args.no_soak:
            soak_result = soak(
                args.soak_clients, args.soak_batches, args.soak_kills, out / "soak", args.seed, progress
            )
            progress("soak: done")
        result = print_report(outcomes, soak_result, out)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
