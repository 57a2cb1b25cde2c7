"""read_graph: format dispatch, file errors, bad input of every kind, round trips (bbqmis.mis.graphio)."""

import itertools
import json
import os
import string
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bbqmis.mis.graphio as graphio
from bbqmis.mis.errors import GraphFormatError, InvalidParameterError
from bbqmis.mis.graphio import EXTENSIONS, FORMATS, MAX_VERTICES, read_graph
from bbqmis.mis.graphio import _common as common
from bbqmis.mis.graphio._common import INT_RE, all_ints, format_error, from_networkx, relabel, show

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"


# ---------------------------------------------------------------- dispatch


def test_format_override(tmp_path, write, labels, assert_error):
    path = write(tmp_path, "g.txt", "c comment\np edge 3 1\ne 1 3\n")
    graph = read_graph(path, format="dimacs")
    assert labels(graph) == [1, 2, 3]
    assert graph.number_of_edges() == 1
    # Without the override the .txt extension means an edge list, where 'p edge 3 1' has 4 tokens.
    assert_error(
        path,
        ":2: expected 1 or 2 vertex labels and an optional numeric weight, found 4 tokens: 'p edge 3 1'",
    )


def test_format_override_edgelist_on_col(tmp_path, write, labels):
    graph = read_graph(write(tmp_path, "g.col", "1 2\n"), format="edgelist")
    assert labels(graph) == [1, 2]


@pytest.mark.parametrize("name", ["json", "nodelink"])
def test_format_override_json_and_graphml(tmp_path, write, labels, name):
    path = tmp_path / "g.dat"
    nx.write_graphml(nx.Graph([("x", "y")]), path)
    assert labels(read_graph(path, format="graphml")) == ["x", "y"]
    path = write(tmp_path, "g.data", json.dumps(nx.node_link_data(nx.Graph([("x", "y")]))))
    assert labels(read_graph(path, format=name)) == ["x", "y"]


def test_format_is_keyword_only():
    with pytest.raises(TypeError):
        read_graph(DATA / "myciel3.col", "dimacs")  # type: ignore[misc]


def test_extension_is_case_insensitive(tmp_path, write):
    assert read_graph(write(tmp_path, "G.COL", "p edge 2 1\ne 1 2\n")).graph["name"] == "G"


def test_extensions_and_formats_are_public():
    assert set(EXTENSIONS.values()) | {"nodelink"} == set(FORMATS)
    assert MAX_VERTICES == 10_000_000


def test_unknown_format():
    with pytest.raises(InvalidParameterError) as info:
        read_graph(DATA / "myciel3.col", format="xml")
    assert str(info.value) == (
        "The 'format' parameter of read_graph must be one of "
        "'dimacs', 'edgelist', 'graphml', 'json', 'nodelink' or None. Got 'xml' instead."
    )


def test_str_path_accepted():
    graph = read_graph(str(DATA / "myciel3.col"))
    assert graph.number_of_nodes() == 11


def test_utf8_byte_order_mark_is_dropped(tmp_path, labels):
    for name, text in [
        ("g.col", "p edge 2 1\ne 1 2\n"),
        ("g.txt", "a b\n"),
        ("g.json", '{"nodes": [{"id": 1}], "edges": []}'),
    ]:
        path = tmp_path / name
        path.write_bytes(b"\xef\xbb\xbf" + text.encode())
        assert read_graph(path).number_of_nodes() >= 1


@pytest.mark.parametrize("name", ["g.txt", "g.json"])
def test_bad_byte_after_a_byte_order_mark_is_counted_from_the_file_start(tmp_path, name, assert_error):
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf\nab \xff\n")
    assert_error(path, ":2: expected UTF-8 text, found byte 0xff at byte 4")


# ---------------------------------------------------------------- bad input, as reported: one test per case

_DEEP = "[" * 100_000 + "]" * 100_000
_NS = '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">'
_GROUP = '<node id="g" yfiles.foldertype="group"><graph>'
_DIGITS = "'" + "9" * 60 + "'..."
_LABEL_RULE = (
    "expected vertex labels made of letters, digits, '_', '.', '+' or '-' and separated by whitespace "
    "or a comma, found"
)
_EMPTY = "; pass allow_empty=True (command line: --allow-empty) to accept an empty graph"
_ISOLATED = "; pass allow_isolated=True (command line: --allow-isolated) if they are intended"
_KNOWN = (
    ": expected a known graph file extension, .col .dimacs (dimacs), .txt .edges .edgelist .el "
    "(edgelist), .graphml (graphml), .json (json); found {}; pass format= one of 'dimacs', 'edgelist', "
    "'graphml', 'json', 'nodelink' (command line: --format) to read it anyway"
)

# name -> (file name, content, read_graph options, message after the file name)
BAD = {
    "dimacs-header-1e9": (
        "g.col",
        "p edge 1000000000 1\ne 1 2\n",
        {},
        ":1: expected at most MAX_VERTICES=10000000 vertices, found 1000000000 "
        "(the header 'p edge 1000000000 1')",
    ),
    "dimacs-header-1e9-allow-isolated": (
        "g.col",
        "p edge 1000000000 1\ne 1 2\n",
        {"allow_isolated": True},
        ":1: expected at most MAX_VERTICES=10000000 vertices, found 1000000000 "
        "(the header 'p edge 1000000000 1')",
    ),
    "dimacs-header-1e7-one-edge": (
        "g.col",
        "p edge 10000000 1\ne 1 2\n",
        {},
        ":1: expected at most max(1000, 2 x 2 vertices in edges) = 1000 isolated vertices, found 9999998: "
        "the header 'p edge 10000000 1' declares 10000000 vertices but the edges touch only 2" + _ISOLATED,
    ),
    "dimacs-header-1e6-one-edge": (
        "g.col",
        "c made by hand\np edge 1000000 1\ne 1 2\n",
        {},
        ":2: expected at most max(1000, 2 x 2 vertices in edges) = 1000 isolated vertices, found 999998: "
        "the header 'p edge 1000000 1' declares 1000000 vertices but the edges touch only 2" + _ISOLATED,
    ),
    "dimacs-header-huge-integer": (
        "g.col",
        "p edge " + "9" * 5000 + " 1\n",
        {},
        f":1: expected an integer vertex count of at most 64 digits, found {_DIGITS} (5000 characters)",
    ),
    "dimacs-vertex-huge-integer": (
        "g.col",
        "p edge 2 1\ne 1 " + "9" * 100 + "\n",
        {},
        f":2: expected an integer vertex of at most 64 digits, found {_DIGITS} (100 characters)",
    ),
    "dimacs-vertex-zero": (
        "g.col",
        "p edge 2 1\ne 0 1\n",
        {},
        ":2: expected a vertex between 1 and n=2, found 0",
    ),
    "dimacs-vertex-negative": (
        "g.col",
        "p edge 2 1\ne 1 -2\n",
        {},
        ":2: expected a vertex between 1 and n=2, found -2",
    ),
    "dimacs-vertex-beyond-n": (
        "g.col",
        "p edge 2 1\ne 1 3\n",
        {},
        ":2: expected a vertex between 1 and n=2, found 3",
    ),
    "dimacs-self-loop": (
        "g.col",
        "p edge 2 1\ne 2 2\n",
        {},
        ":2: expected two distinct vertices, found a self-loop on vertex 2 "
        "(a graph with a self-loop cannot be coloured)",
    ),
    "dimacs-nul": (
        "g.col",
        b"p edge 2 1\ne 1 2\x00\n",
        {},
        ":2: expected text, found a NUL character at column 6 (a binary file?)",
    ),
    "dimacs-not-utf8": (
        "g.col",
        b"p edge 2 1\ne 1 \xff\n",
        {},
        ":2: expected UTF-8 text, found byte 0xff at byte 5",
    ),
    "dimacs-empty-file": ("g.col", "", {}, ":1: expected a 'p edge N M' header line, found none"),
    "dimacs-no-vertex": (
        "g.col",
        "p edge 0 0\n",
        {},
        ":1: expected at least one vertex, found the header 'p edge 0 0'" + _EMPTY,
    ),
    "edgelist-empty-file": (
        "g.txt",
        "",
        {},
        ": expected at least one vertex, found no vertex (only blank lines and comments)" + _EMPTY,
    ),
    "edgelist-only-comments": (
        "g.edges",
        "# nothing\n% here\n\n",
        {},
        ": expected at least one vertex, found no vertex (only blank lines and comments)" + _EMPTY,
    ),
    "edgelist-semicolon": ("g.txt", "1;2\n", {}, f":1: {_LABEL_RULE} '1;2' in '1;2'"),
    "edgelist-arrow": ("g.txt", "a b\na->b\n", {}, f":2: {_LABEL_RULE} 'a->b' in 'a->b'"),
    "edgelist-dash": ("g.txt", "1-2\n", {}, f":1: {_LABEL_RULE} '1-2' in '1-2'"),
    "edgelist-empty-field": (
        "g.txt",
        "1,,2\n",
        {},
        ":1: expected a value between every two commas, found '1,,2'",
    ),
    "edgelist-trailing-comma": (
        "g.txt",
        "1,2,\n",
        {},
        ":1: expected a value between every two commas, found '1,2,'",
    ),
    "edgelist-huge-label": (
        "g.txt",
        "1 " + "9" * 5000 + "\n",
        {},
        f":1: expected an integer label of at most 64 digits, found {_DIGITS} (5000 characters)",
    ),
    "edgelist-nul": (
        "g.txt",
        b"1 2\x00\n",
        {},
        ":1: expected text, found a NUL character at column 4 (a binary file?)",
    ),
    "edgelist-binary": (
        "g.txt",
        b"\x89PNG\r\n\x1a\n\x00\x00",
        {},
        ":1: expected UTF-8 text, found byte 0x89 at byte 1",
    ),
    "edgelist-long-line": (
        "g.txt",
        "a b c d " * 50 + "\n",
        {},
        ":1: expected 1 or 2 vertex labels and an optional numeric weight, found 200 tokens: "
        "'a b c d a b c d a b c d a b c d a b c d a b c d a b c d a b '... (399 characters)",
    ),
    "edgelist-self-loop": (
        "g.txt",
        "1, 2\n2,2\n",
        {},
        ":2: expected two distinct vertices, found a self-loop on vertex 2 "
        "(a graph with a self-loop cannot be coloured)",
    ),
    "json-list": ("g.json", "[]", {}, ": expected a node-link JSON object, found list"),
    "json-nodes-int-no-edges": (
        "g.json",
        '{"nodes": 5}',
        {},
        ": expected a node-link JSON object with keys 'nodes' and 'edges' (or 'links'), found keys ['nodes']",
    ),
    "json-nodes-int": (
        "g.json",
        '{"nodes": 5, "edges": []}',
        {},
        ": expected 'nodes' to be a list, found number 5",
    ),
    "json-node-not-object": (
        "g.json",
        '{"nodes": ["a"], "links": []}',
        {},
        ": expected 'nodes'[0] to be an object with an 'id', found string 'a'",
    ),
    "json-id-nested-too-deep": (
        "g.json",
        '{"nodes": [{"id": ' + "[" * 20 + "]" * 20 + '}], "edges": []}',
        {},
        ": expected 'nodes'[0]['id'] to be a string, a number or a list of them (at most 8 deep), "
        "found a list of 1 item",
    ),
    "json-nesting-100000": (
        "g.json",
        '{"nodes": ' + _DEEP + ', "edges": []}',
        {},
        ": expected JSON nested at most a few hundred levels deep",
    ),
    "json-id-null": (
        "g.json",
        '{"nodes": [{"id": null}], "edges": []}',
        {},
        ": expected 'nodes'[0]['id'] to be a string, a number or a list of them (at most 8 deep), found null",
    ),
    "json-edge-unknown-node": (
        "g.json",
        '{"nodes": [{"id": 1}, {"id": 2}], "edges": [{"source": 1, "target": 3}]}',
        {},
        ": expected 'edges'[0]['target'] to be the id of a node, found 3",
    ),
    "json-edge-not-object": (
        "g.json",
        '{"nodes": [{"id": 1}], "edges": [[1, 2]]}',
        {},
        ": expected 'edges'[0] to be an object with 'source' and 'target', found a list of 2 items",
    ),
    "json-weight-not-number": (
        "g.json",
        '{"nodes": [{"id": 1}, {"id": 2}], "edges": [{"source": 1, "target": 2, "weight": "heavy"}]}',
        {},
        ": expected 'edges'[0]['weight'] to be a number, found string 'heavy'",
    ),
    "json-self-loop": (
        "g.json",
        '{"nodes": [{"id": 1}], "edges": [{"source": 1, "target": 1}]}',
        {},
        ": expected two distinct vertices on every edge, found a self-loop on node 1 "
        "(a graph with a self-loop cannot be coloured)",
    ),
    "json-huge-integer": (
        "g.json",
        '{"nodes": [{"id": 1' + "0" * 5000 + "}]}",
        {},
        ": expected valid JSON, found Exceeds the limit (4300 digits) for integer string conversion: "
        "value has 5001 digits; use sys.set_int_max_str_digits() to increase the limit",
    ),
    "json-no-vertex": (
        "g.json",
        '{"nodes": [], "edges": []}',
        {},
        ": expected at least one vertex, found 'nodes': []" + _EMPTY,
    ),
    "json-empty-file": ("g.json", "", {}, ":1: expected valid JSON, found Expecting value"),
    "json-not-utf8": (
        "g.json",
        b'{"nodes": [{"id": "\xe9"}], "edges": []}',
        {},
        ":1: expected UTF-8 text, found byte 0xe9 at byte 20",
    ),
    "graphml-entities": (
        "g.graphml",
        '<?xml version="1.0"?><!DOCTYPE g [<!ENTITY a "aaaa">]><graphml>&a;</graphml>',
        {},
        ": expected GraphML without a <!DOCTYPE> or <!ENTITY> declaration",
    ),
    "graphml-empty-file": (
        "g.graphml",
        "",
        {},
        ":1: expected well-formed GraphML XML, found no element found: line 1, column 0",
    ),
    "graphml-no-vertex": (
        "g.graphml",
        _NS + "</graph></graphml>",
        {},
        ": expected at least one vertex, found a graph with no node" + _EMPTY,
    ),
    "graphml-nested-groups": (
        "g.graphml",
        _NS + _GROUP * 3000 + "</graph></node>" * 3000 + "</graph></graphml>",
        {},
        # refused at the first nested graph, before networkx could recurse into 3000 of them
        ":1: expected a single flat <graph> (nested graphs are not read), "
        "found a <graph> nested inside node 'g'",
    ),
    "graphml-self-loop": (
        "g.graphml",
        _NS + '<node id="a"/><edge source="a" target="a"/></graph></graphml>',
        {},
        ": expected two distinct vertices on every edge, found a self-loop on node 'a' "
        "(a graph with a self-loop cannot be coloured)",
    ),
    "unknown-extension": ("g.xyz", "1 2\n", {}, _KNOWN.format("'.xyz'")),
    "no-extension": ("graph", "1 2\n", {}, _KNOWN.format("no extension")),
}


@pytest.mark.parametrize(("name", "content", "options", "message"), list(BAD.values()), ids=list(BAD))
def test_bad_input_is_one_graph_format_error_line(tmp_path, name, content, options, message, assert_error):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert_error(path, message, **options)
    assert "\n" not in message


def run_module(*args):
    """``python -m bbqmis *args``, as tests/bbqmis/coloring/test_cli.py runs it."""
    return subprocess.run(
        [sys.executable, "-m", "bbqmis", *args], capture_output=True, text=True, timeout=100
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "ends.graphml",
            _NS + '\n<node id="3"/>\n<edge source="3" target="7"/>\n</graph></graphml>',
            ":3: expected the target of edge '3' -> '7' to be the id of a <node>, found '7', "
            "which has no <node> element",
        ),
        (
            "dup.json",
            '{"nodes": [{"id": "a"}, {"id": "a"}], "edges": []}',
            ": expected unique node ids, found 'a' at 'nodes'[0] and 'nodes'[1]",
        ),
    ],
    ids=["graphml-edge-end", "json-duplicate-node"],
)
def test_command_line_reports_a_refused_graph_on_one_line_with_status_2(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    run = run_module(str(path))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"bbqmis: error: {path}{message}\n"


def test_missing_file(tmp_path, assert_error):
    assert_error(tmp_path / "missing.col", ": expected a readable graph file, found no such file")


def test_missing_file_unknown_extension(tmp_path, assert_error):
    # The missing file is the first thing to fix, whatever its extension.
    assert_error(tmp_path / "missing.xyz", ": expected a readable graph file, found no such file")


def test_directory(tmp_path, assert_error):
    directory = tmp_path / "graphs.col"
    directory.mkdir()
    assert_error(directory, ": expected a readable graph file, found a directory")


def test_fifo_is_refused_without_blocking(tmp_path, assert_error):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    assert_error(fifo, ": expected a readable graph file, found a FIFO, socket or device")


def test_device_is_refused_without_reading_forever(assert_error):
    assert_error(
        Path("/dev/zero"),
        ": expected a readable graph file, found a FIFO, socket or device",
        format="edgelist",
    )


def test_permission_denied(tmp_path, monkeypatch, assert_error):
    path = tmp_path / "secret.col"
    path.write_text("p edge 2 1\ne 1 2\n")

    def denied(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(common, "open", denied, raising=False)
    assert_error(path, ": expected a readable graph file, found permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode; see the next test")
def test_permission_denied_by_mode(tmp_path, assert_error):
    path = tmp_path / "secret.json"
    path.write_text("{}")
    path.chmod(0)
    assert_error(path, ": expected a readable graph file, found permission denied")


@pytest.mark.usefixtures("linux_proc")
@pytest.mark.parametrize("format", ["json", "edgelist"])  # read whole, and line by line
def test_a_file_that_refuses_reads_even_to_root(assert_error, format):
    # A regular file of mode 0600 owned by the reader, so root and anyone else open it; but its
    # offset 0 is address 0 of the reader's memory, never mapped: every read fails with EIO.
    assert_error(
        Path("/proc/self/mem"), ": expected a readable graph file, found Input/output error", format=format
    )


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (MemoryError, ": ran out of memory while reading; the graph is too large"),
        (RecursionError, ": expected input nested less deeply, found too deep a nesting"),
    ],
)
def test_last_defences_turn_into_graph_format_errors(
    tmp_path, monkeypatch, write, error, message, assert_error
):
    def boom(*args, **kwargs):
        raise error

    monkeypatch.setattr(graphio, "parse_dimacs", boom)
    assert_error(write(tmp_path, "g.col", "p edge 2 1\ne 1 2\n"), message)


# ---------------------------------------------------------------- empty graphs

_EMPTY_FILES = {
    "g.col": "p edge 0 0\n",
    "g.txt": "# nothing\n",
    "g.json": '{"nodes": [], "links": []}',
    "g.graphml": _NS + "</graph></graphml>",
}


@pytest.mark.parametrize("name", sorted(_EMPTY_FILES))
def test_empty_graph_only_with_allow_empty(tmp_path, write, name):
    path = write(tmp_path, name, _EMPTY_FILES[name])
    with pytest.raises(
        GraphFormatError, match=r"expected at least one vertex, .* pass allow_empty=True"
    ) as info:
        read_graph(path)
    assert str(info.value).startswith(str(path))
    graph = read_graph(path, allow_empty=True)
    assert graph.number_of_nodes() == 0 and graph.graph["name"] == "g"


# ---------------------------------------------------------------- round trip, every format

_LETTERS = string.ascii_letters + "_"


@st.composite
def labelled_graphs(draw, min_nodes=0):
    """A small graph whose labels are all ints or all letter strings, edges optionally weighted."""
    n = draw(st.integers(min_nodes, 8))
    if draw(st.booleans()):
        labels = draw(st.lists(st.integers(-99, 99), min_size=n, max_size=n, unique=True))
    else:
        word = st.text(alphabet=_LETTERS, min_size=1, max_size=6)
        labels = draw(st.lists(word, min_size=n, max_size=n, unique=True))
    pairs = list(itertools.combinations(labels, 2))
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    weight = st.none() | st.floats(allow_nan=False, allow_infinity=False)
    graph = nx.Graph()
    graph.add_nodes_from(labels)
    for u, v in edges:
        w = draw(weight)
        graph.add_edge(u, v, **({} if w is None else {"weight": w}))
    return graph


def write_dimacs(graph, path):
    number = {v: i for i, v in enumerate(graph, start=1)}
    lines = [f"p edge {graph.number_of_nodes()} {graph.number_of_edges()}"]
    lines += [f"e {number[u]} {number[v]}" for u, v in graph.edges]
    path.write_text("\n".join(lines) + "\n")
    return nx.relabel_nodes(graph, number), list(number.values())  # DIMACS labels are vertex numbers


def _edgelist_writer(separator):
    def write_edgelist(graph, path):
        edges = list(graph.edges(data=True))
        isolated = [v for v in graph if graph.degree(v) == 0]
        lines = [
            separator.join([str(u), str(v)] + ([repr(d["weight"])] if "weight" in d else []))
            for u, v, d in edges
        ]
        path.write_text("\n".join(lines + [str(v) for v in isolated]) + "\n")
        return graph, list(dict.fromkeys([*(x for u, v, _ in edges for x in (u, v)), *isolated]))

    return write_edgelist


def write_graphml(graph, path):
    nx.write_graphml(graph, path)
    return graph, list(graph)


def write_nodelink(graph, path):
    path.write_text(json.dumps(nx.node_link_data(graph, edges="edges")))
    return graph, list(graph)


WRITERS = {
    "dimacs.col": write_dimacs,
    "spaces.txt": _edgelist_writer(" "),
    "tabs.edges": _edgelist_writer("\t"),
    "commas.el": _edgelist_writer(","),
    "comma-space.edgelist": _edgelist_writer(", "),
    "graph.graphml": write_graphml,
    "nodelink.json": write_nodelink,
}


def _assert_read_back(read, expected, file_order, weights):
    n = expected.number_of_nodes()
    assert type(read) is nx.Graph and list(read) == list(range(n))
    labels = [read.nodes[i]["label"] for i in range(n)]
    # Nodes follow the sorted labels when all are integers, else the file's order.
    assert labels == (sorted(file_order) if all(type(x) is int for x in file_order) else file_order)
    assert nx.is_isomorphic(read, expected)
    back = nx.relabel_nodes(read, dict(enumerate(labels)))
    assert set(back) == set(expected)
    assert {frozenset(e) for e in back.edges} == {frozenset(e) for e in expected.edges}
    if weights:
        for u, v, data in expected.edges(data=True):
            assert back.edges[u, v] == ({"weight": data["weight"]} if "weight" in data else {})


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_bundled_graph_round_trips_in_every_format(tmp_path, name):
    graph = nx.relabel_nodes(read_graph(DATA / "myciel4.col"), lambda i: i + 1)
    path = tmp_path / name
    expected, file_order = WRITERS[name](graph, path)
    read = read_graph(path)
    _assert_read_back(read, expected, file_order, weights=False)
    assert read.graph["name"] == path.stem


@settings(max_examples=150, deadline=timedelta(seconds=2))
@given(graph=labelled_graphs(), name=st.sampled_from(sorted(WRITERS)))
def test_written_graphs_read_back_isomorphic_with_the_same_labels(graph, name):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        expected, file_order = WRITERS[name](graph, path)
        read = read_graph(path, allow_empty=True)
    _assert_read_back(read, expected, file_order, weights=not name.endswith(".col"))  # DIMACS has no weights


# ---------------------------------------------------------------- any input: a graph or a GraphFormatError

_SOUP = {
    ".col": ["p", "edge", "col", "e", "c", "0", "1", "2", "3", "-1", "+2", "999999", "10000000", "x", "%"],
    ".txt": ["1", "2", "01", "-3", "a", "b", ",", ", ", "#", "%", "-", ";", "1.5", "1e999", "nan", "\x00"],
    ".json": [
        '{"nodes": [',
        '{"id": 1}',
        '{"id": [1, 2]}',
        '{"id": null}',
        "]",
        ', "edges": [',
        ', "links": [',
    ],
    ".graphml": [
        _NS,
        "<graphml>",
        "</graphml>",
        "<graph>",
        "</graph>",
        '<node id="1"/>',
        '<node id="x">',
        "</node>",
        '<edge source="1" target="2"/>',
        '<key id="w" for="edge" attr.name="weight" attr.type="int"/>',
        '<data key="w">x</data>',
        '<data key="q">1</data>',
    ],
}
_SEPARATORS = [" ", "\t", "\n", "", '"', ",", "}", "{", "<", ">"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["nodes", "edges", "links", "id", "source", "target", "weight"]), inner
        )
    ),
    max_leaves=20,
)
node_link_shaped = st.fixed_dictionaries(
    {
        "nodes": st.lists(st.fixed_dictionaries({"id": json_values}) | json_values, max_size=5),
        "edges": st.lists(
            st.fixed_dictionaries({"source": json_values, "target": json_values, "weight": json_values})
            | json_values,
            max_size=5,
        ),
    }
)


@st.composite
def documents(draw, suffix):
    """Bytes a file of this suffix might hold: noise, token soup or a mutated valid file."""
    kind = draw(st.sampled_from(["bytes", "text", "soup", "mutated", "json"]))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "text":
        return draw(st.text(max_size=300)).encode("utf-8", "surrogatepass")
    if kind == "soup":
        pieces = draw(st.lists(st.sampled_from(_SOUP[suffix]) | st.sampled_from(_SEPARATORS), max_size=40))
        return "".join(pieces).encode()
    if kind == "json":
        return json.dumps(draw(json_values | node_link_shaped)).encode()
    writer = {
        ".col": "dimacs.col",
        ".txt": "commas.el",
        ".json": "nodelink.json",
        ".graphml": "graph.graphml",
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "g"
        WRITERS[writer[suffix]](draw(labelled_graphs()), path)
        data = path.read_bytes()
    start = draw(st.integers(0, len(data)))
    end = draw(st.integers(start, len(data)))
    return data[:start] + draw(st.binary(max_size=8)) + data[end:]


@settings(
    max_examples=200,
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), suffix=st.sampled_from(sorted(_SOUP)), allow_empty=st.booleans())
def test_any_bytes_give_a_graph_or_a_graph_format_error(data, suffix, allow_empty):
    content = data.draw(documents(suffix))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_bytes(content)
        try:
            graph = read_graph(path, allow_empty=allow_empty)
        except GraphFormatError as exc:
            message = str(exc)
            assert message.startswith(f"{path}:") and "\n" not in message
        else:
            assert type(graph) is nx.Graph and list(graph) == list(range(graph.number_of_nodes()))
            assert allow_empty or graph.number_of_nodes() > 0
            assert nx.number_of_selfloops(graph) == 0


# ---------------------------------------------------------------- shared helpers (_common)


def test_format_error_names_source_and_line_on_one_line():
    error = format_error("g.col", 7, "expected this, found that")
    assert isinstance(error, GraphFormatError) and isinstance(error, ValueError)
    assert str(error) == "g.col:7: expected this, found that"
    assert str(format_error("g.json", None, "bad")) == "g.json: bad"
    assert str(format_error("g.xml", 2, "first\nsecond")) == "g.xml:2: first second"


def test_show_cuts_long_text():
    assert show("short") == "'short'"
    assert show("x" * 61) == "'" + "x" * 60 + "'... (61 characters)"


def test_int_re_and_all_ints():
    assert all(INT_RE.fullmatch(t) for t in ["0", "-3", "+12", "007"])
    assert not any(INT_RE.fullmatch(t) for t in ["1.0", "1e3", "x1", "", "--1"])
    assert all_ints([3, -1, 0]) and all_ints([])
    assert not all_ints([1, True]) and not all_ints([1, "2"]) and not all_ints([1.0])


def test_relabel_numbers_nodes_by_label_order():
    edges = {frozenset(("b", "c")): {"weight": 1.5}, frozenset(("a", "b")): {}}
    kept = relabel(["b", "a", "c"], edges, "src", sort=False)
    assert [kept.nodes[i]["label"] for i in kept] == ["b", "a", "c"]
    assert kept.edges[0, 2] == {"weight": 1.5} and kept.edges[0, 1] == {}
    assert kept.graph["name"] == "src"
    ordered = relabel(["b", "a", "c"], edges, "src", sort=True)
    assert [ordered.nodes[i]["label"] for i in ordered] == ["a", "b", "c"]
    assert ordered.edges[1, 2] == {"weight": 1.5}


@settings(max_examples=100, deadline=None)
@given(
    labels=st.lists(st.one_of(st.integers(-50, 50), st.text("abc", min_size=1, max_size=2)), unique=True),
    pairs=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 200), st.booleans())),
    sort=st.booleans(),
)
def test_relabel_builds_the_graph_add_edges_from_builds(labels, pairs, sort):
    edges = {}
    for a, b, weighted in pairs:
        if len(labels) > 1 and a % len(labels) != b % len(labels):
            edges[frozenset((labels[a % len(labels)], labels[b % len(labels)]))] = (
                {"weight": a} if weighted else {}
            )
    order = sorted(labels, key=str) if sort else labels
    expected = nx.Graph(name="src")
    expected.add_nodes_from((i, {"label": label}) for i, label in enumerate(order))
    index = {label: i for i, label in enumerate(order)}
    expected.add_edges_from((index[u], index[v], dict(data)) for (u, v), data in edges.items())
    built = relabel(order, edges, "src", sort=False)
    assert built.graph == expected.graph and list(built.nodes(data=True)) == list(expected.nodes(data=True))
    assert {v: list(built.adj[v].items()) for v in built} == {
        v: list(expected.adj[v].items()) for v in expected
    }
    assert all(built.adj[u][v] is built.adj[v][u] for u, v in built.edges)  # one dict per edge, as networkx


def test_from_networkx_converts_canonical_integer_ids_only_when_asked():
    graph = nx.Graph([("10", "2"), ("2", "3")], name="ignored")
    graph.edges["10", "2"]["colour"] = "red"
    converted = from_networkx(graph, "src", int_ids=True)
    assert [converted.nodes[i]["label"] for i in converted] == [2, 3, 10]
    assert converted.edges[0, 2] == {}  # only 'weight' is kept
    kept = from_networkx(graph, "src", int_ids=False)
    assert [kept.nodes[i]["label"] for i in kept] == ["10", "2", "3"]
    # An id too long to convert keeps every id a string.
    long = from_networkx(nx.Graph([("1", "9" * 100)]), "src", int_ids=True)
    assert [long.nodes[i]["label"] for i in long] == ["1", "9" * 100]
