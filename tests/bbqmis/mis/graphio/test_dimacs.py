"""The DIMACS colouring format (bbqmis.mis.graphio.dimacs)."""

import time
import tracemalloc
from pathlib import Path

import networkx as nx
import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import MAX_VERTICES, read_graph
from bbqmis.mis.graphio.dimacs import parse_dimacs

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"

BUNDLED = [
    ("myciel3", 11, 20),
    ("myciel4", 23, 71),
    ("queen5_5", 25, 160),
    ("huck", 74, 301),
    ("anna", 138, 493),
    ("le450_5a", 450, 5714),
]


# ---------------------------------------------------------------- bundled DIMACS


@pytest.mark.parametrize(("stem", "n", "m"), BUNDLED)
def test_bundled_dimacs(stem, n, m, labels):
    graph = read_graph(DATA / f"{stem}.col")
    assert type(graph) is nx.Graph
    assert graph.number_of_nodes() == n
    assert graph.number_of_edges() == m
    assert list(graph.nodes) == list(range(n))
    assert labels(graph) == list(range(1, n + 1))
    assert graph.nodes[0]["label"] == 1
    assert graph.graph["name"] == stem
    assert nx.number_of_selfloops(graph) == 0


def test_bundled_dimacs_edges_match_file(labelled_edges):
    path = DATA / "myciel3.col"
    expected = {
        frozenset(int(t) for t in line.split()[1:])
        for line in path.read_text().splitlines()
        if line.startswith("e ")
    }
    assert labelled_edges(read_graph(path)) == expected


def test_bundled_myciel3_is_the_mycielski_graph():
    # myciel3 is the Groetzsch graph, networkx's mycielski_graph(4).
    assert nx.is_isomorphic(read_graph(DATA / "myciel3.col"), nx.mycielski_graph(4))


def test_parse_dimacs_reads_an_open_file_like_read_graph():
    path = DATA / "myciel4.col"
    with open(path, encoding="utf-8") as fh:
        parsed = parse_dimacs(fh, source="m4")
    read = read_graph(path)
    assert parsed.graph["name"] == "m4"
    assert sorted(parsed.edges) == sorted(read.edges)
    assert dict(parsed.nodes(data="label")) == dict(read.nodes(data="label"))


# ---------------------------------------------------------------- DIMACS parsing


def test_dimacs_comments_and_blank_lines_anywhere(labelled_edges):
    lines = ["c head", "", "p edge 3 2", "c middle", "   ", "e 1 2", "c", "e 2 3", "c tail", ""]
    graph = parse_dimacs(lines)
    assert labelled_edges(graph) == {frozenset((1, 2)), frozenset((2, 3))}
    assert graph.graph["name"] == "<string>"


def test_dimacs_p_col_and_newlines(labels):
    graph = parse_dimacs(["p col 3 1\n", "e 3 1\n"], source="x")
    assert labels(graph) == [1, 2, 3]
    assert sorted(graph.edges) == [(0, 2)]
    assert graph.graph["name"] == "x"


def test_dimacs_duplicate_and_reversed_edges_merged(labelled_edges):
    graph = parse_dimacs(["p edge 3 4", "e 1 2", "e 2 1", "e 1 2", "e 2 3"])
    assert graph.number_of_edges() == 2
    assert labelled_edges(graph) == {frozenset((1, 2)), frozenset((2, 3))}


def test_dimacs_doubled_edge_count_accepted():
    # Each edge listed in both directions and counted twice in the header.
    graph = parse_dimacs(["p edge 3 4", "e 1 2", "e 2 1", "e 2 3", "e 3 2"])
    assert graph.number_of_edges() == 2


def test_dimacs_more_edge_lines_than_header():
    graph = parse_dimacs(["p edge 3 1", "e 1 2", "e 2 3"])
    assert graph.number_of_edges() == 2


def test_dimacs_isolated_vertex_kept(labels):
    graph = parse_dimacs(["p edge 5 1", "e 2 4"])
    assert graph.number_of_nodes() == 5
    assert labels(graph) == [1, 2, 3, 4, 5]
    assert sorted(graph.edges) == [(1, 3)]
    assert graph.degree[0] == graph.degree[2] == graph.degree[4] == 0


def test_dimacs_empty_graph_only_with_allow_empty():
    with pytest.raises(GraphFormatError) as info:
        parse_dimacs(["c nothing", "p edge 0 0"], source="none.col")
    assert str(info.value) == (
        "none.col:2: expected at least one vertex, found the header 'p edge 0 0'; "
        "pass allow_empty=True (command line: --allow-empty) to accept an empty graph"
    )
    graph = parse_dimacs(["p edge 0 0"], allow_empty=True)
    assert graph.number_of_nodes() == 0


def test_dimacs_crlf_and_byte_order_mark(tmp_path, labelled_edges):
    path = tmp_path / "windows.col"
    path.write_bytes(b"\xef\xbb\xbfc from Notepad\r\np edge 3 2\r\ne 1 2\r\ne 2 3\r\n")
    assert labelled_edges(read_graph(path)) == {frozenset((1, 2)), frozenset((2, 3))}


def test_dimacs_extension_and_tabs(tmp_path, write):
    path = write(tmp_path, "g.dimacs", "p\tedge 2 1\ne\t1\t2\n")
    graph = read_graph(path)
    assert graph.graph["name"] == "g"
    assert graph.number_of_edges() == 1


def test_dimacs_signed_vertex_numbers_are_integers(labels):
    graph = parse_dimacs(["p edge +3 1", "e +1 3"])
    assert labels(graph) == [1, 2, 3] and sorted(graph.edges) == [(0, 2)]


# ---------------------------------------------------------------- DIMACS errors


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "c x\ne 1 2\np edge 2 1\n",
            ":2: expected a 'p edge N M' header before the first edge, found 'e 1 2'",
        ),
        ("c only comments\n\n", ":1: expected a 'p edge N M' header line, found none"),
        ("", ":1: expected a 'p edge N M' header line, found none"),
        (
            "p edge 2 1\ne 1 2\np edge 2 1\n",
            ":3: expected a single 'p' header line, found a second one (the first is at line 1): "
            "'p edge 2 1'",
        ),
        ("p edge 2\n", ":1: expected 4 tokens 'p edge N M', found 3: 'p edge 2'"),
        ("p edge 2 1 9\n", ":1: expected 4 tokens 'p edge N M', found 5: 'p edge 2 1 9'"),
        ("p cnf 2 1\n", ":1: expected problem type 'edge' or 'col', found 'cnf'"),
        ("p edge two 1\n", ":1: expected an integer vertex count, found 'two'"),
        ("p edge 2 1.5\n", ":1: expected an integer edge count, found '1.5'"),
        ("p edge -2 1\n", ":1: expected a non-negative vertex count, found -2"),
        ("p edge 2 -1\n", ":1: expected a non-negative edge count, found -1"),
        ("p edge 3 1\ne 1\n", ":2: expected 3 tokens 'e U V', found 2: 'e 1'"),
        ("p edge 3 1\ne 1 2 3\n", ":2: expected 3 tokens 'e U V', found 4: 'e 1 2 3'"),
        ("p edge 3 1\n\ne 1 x\n", ":3: expected an integer vertex, found 'x'"),
        ("p edge 3 1\ne 2.0 1\n", ":2: expected an integer vertex, found '2.0'"),
        ("p edge 3 1\ne 1 4\n", ":2: expected a vertex between 1 and n=3, found 4"),
        ("p edge 3 1\ne 0 2\n", ":2: expected a vertex between 1 and n=3, found 0"),
        ("p edge 3 1\ne -1 2\n", ":2: expected a vertex between 1 and n=3, found -1"),
        (
            "p edge 3 1\ne 3 3\n",
            ":2: expected two distinct vertices, found a self-loop on vertex 3 "
            "(a graph with a self-loop cannot be coloured)",
        ),
        ("p edge 3 1\nn 1 5\n", ":2: expected a line starting with 'c', 'p' or 'e', found 'n 1 5'"),
        (
            "p edge 4 3\ne 1 2\ne 2 3\nc end\n",
            ":4: expected at least 3 edge lines (header at line 1), found 2; the input looks truncated",
        ),
        (
            "p edge 4 3\ne 1 2\ne 2 1\n",
            ":3: expected at least 3 edge lines (header at line 1), found 2; the input looks truncated",
        ),
    ],
)
def test_dimacs_errors(tmp_path, text, message, write, assert_error):
    assert_error(write(tmp_path, "bad.col", text), message)


# ---------------------------------------------------------------- sizes declared in the header


def _isolated_message(source, lineno, header, n, touched):
    limit = max(1000, 2 * touched)
    return (
        f"{source}:{lineno}: expected at most max(1000, 2 x {touched} vertices in edges) = {limit} "
        f"isolated vertices, found {n - touched}: the header {header!r} declares {n} vertices but the "
        f"edges touch only {touched}; pass allow_isolated=True (command line: --allow-isolated) if they "
        f"are intended"
    )


def test_dimacs_isolated_vertices_up_to_the_floor():
    assert parse_dimacs(["p edge 1002 1", "e 1 2"]).number_of_nodes() == 1002  # 1000 isolated
    with pytest.raises(GraphFormatError) as info:
        parse_dimacs(["p edge 1003 1", "e 1 2"], source="g.col")
    assert str(info.value) == _isolated_message("g.col", 1, "p edge 1003 1", 1003, 2)


def test_dimacs_isolated_vertices_up_to_twice_the_touched_ones():
    edges = [f"e {2 * i + 1} {2 * i + 2}" for i in range(600)]  # 1200 touched: 2400 may be isolated
    assert parse_dimacs(["p edge 3600 600", *edges]).number_of_nodes() == 3600
    with pytest.raises(GraphFormatError) as info:
        parse_dimacs(["c big", "p edge 3601 600", *edges], source="g.col")
    assert str(info.value) == _isolated_message("g.col", 2, "p edge 3601 600", 3601, 1200)


def test_dimacs_allow_isolated_opts_in(tmp_path, write):
    path = write(tmp_path, "sparse.col", "p edge 5000 1\ne 1 2\n")
    graph = read_graph(path, allow_isolated=True)
    assert graph.number_of_nodes() == 5000 and graph.number_of_edges() == 1
    assert graph.nodes[4999]["label"] == 5000


def test_dimacs_max_vertices_holds_whatever_the_options(tmp_path, write, assert_error):
    assert MAX_VERTICES == 10_000_000
    path = write(tmp_path, "big.col", f"p edge {MAX_VERTICES + 1} 1\ne 1 2\n")
    assert_error(
        path,
        ":1: expected at most MAX_VERTICES=10000000 vertices, found 10000001 (the header "
        "'p edge 10000001 1')",
        allow_isolated=True,
        allow_empty=True,
    )


def test_dimacs_huge_header_is_refused_in_bounded_time_and_memory(tmp_path, write, assert_error):
    # The user's 25-byte file took 30 s and 4.7 GB before the check.
    path = write(tmp_path, "typo.col", "p edge 10000000 1\ne 1 2\n")
    assert path.stat().st_size < 30
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(GraphFormatError, match=r"typo\.col:1: .* pass allow_isolated=True"):
            read_graph(path)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 2.0
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    # The header without its edge is refused as truncated, as cheaply.
    start = time.perf_counter()
    assert_error(
        write(tmp_path, "typo2.col", "p edge 10000000 1\n"),
        ":1: expected at least 1 edge lines (header at line 1), found 0; the input looks truncated",
    )
    assert time.perf_counter() - start < 2.0


def test_dimacs_memory_grows_with_the_edges_not_with_n_squared():
    n = 20_000  # a dense n x n matrix of bools would take 400 MB
    lines = [f"p edge {n} {n - 1}", *(f"e {i} {i + 1}" for i in range(1, n))]
    tracemalloc.start()
    try:
        graph = parse_dimacs(lines)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert graph.number_of_edges() == n - 1
    assert peak < 100 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_dimacs_long_line_is_quoted_cut_short():
    with pytest.raises(GraphFormatError) as info:
        parse_dimacs(["p edge 2 1", "x" * 1000])
    assert str(info.value) == (
        "<string>:2: expected a line starting with 'c', 'p' or 'e', found '"
        + "x" * 60
        + "'... (1000 characters)"
    )


def test_dimacs_truncated_real_file(tmp_path, write, assert_error):
    lines = (DATA / "anna.col").read_text().splitlines(keepends=True)
    half = lines[: len(lines) // 2]
    path = write(tmp_path, "anna_half.col", "".join(half))
    edge_lines = sum(line.startswith("e") for line in half)
    assert_error(
        path,
        f":{len(half)}: expected at least 493 edge lines (header at line 1), found {edge_lines}; "
        "the input looks truncated",
    )


def test_parse_dimacs_default_source():
    with pytest.raises(GraphFormatError, match=r"^<string>:2: expected a vertex between 1 and n=2, found 3$"):
        parse_dimacs(["p edge 2 1", "e 1 3"])


def test_parse_dimacs_names_the_given_source():
    with pytest.raises(GraphFormatError, match=r"^net\.col:1: expected problem type 'edge' or 'col'"):
        parse_dimacs(["p graph 2 1"], source="net.col")


def test_graph_format_error_is_value_error():
    with pytest.raises(ValueError):
        parse_dimacs(["e 1 2"])
