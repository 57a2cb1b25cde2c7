"""The DIMACS colouring format (bbqmis.mis.graphio.dimacs)."""

from pathlib import Path

import networkx as nx
import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import read_graph
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


def test_dimacs_empty_graph():
    graph = parse_dimacs(["p edge 0 0"])
    assert graph.number_of_nodes() == 0


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
