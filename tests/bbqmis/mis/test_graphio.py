import json
from pathlib import Path

import networkx as nx
import pytest

from bbqmis.mis.errors import GraphFormatError, InvalidParameterError
from bbqmis.mis.graphio import parse_dimacs, parse_edgelist, read_graph

DATA = Path(__file__).resolve().parents[3] / "data" / "graphs"

BUNDLED = [
    ("myciel3", 11, 20),
    ("myciel4", 23, 71),
    ("queen5_5", 25, 160),
    ("huck", 74, 301),
    ("anna", 138, 493),
    ("le450_5a", 450, 5714),
]


def labels(graph):
    return [graph.nodes[i]["label"] for i in range(graph.number_of_nodes())]


def labelled_edges(graph):
    """Edges as frozensets of original labels."""
    return {frozenset((graph.nodes[u]["label"], graph.nodes[v]["label"])) for u, v in graph.edges}


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def assert_error(path, message, **kwargs):
    with pytest.raises(GraphFormatError) as info:
        read_graph(path, **kwargs)
    assert str(info.value) == f"{path}{message}"


# ---------------------------------------------------------------- bundled DIMACS


@pytest.mark.parametrize(("stem", "n", "m"), BUNDLED)
def test_bundled_dimacs(stem, n, m):
    graph = read_graph(DATA / f"{stem}.col")
    assert type(graph) is nx.Graph
    assert graph.number_of_nodes() == n
    assert graph.number_of_edges() == m
    assert list(graph.nodes) == list(range(n))
    assert labels(graph) == list(range(1, n + 1))
    assert graph.nodes[0]["label"] == 1
    assert graph.graph["name"] == stem
    assert nx.number_of_selfloops(graph) == 0


def test_bundled_dimacs_edges_match_file():
    path = DATA / "myciel3.col"
    expected = {
        frozenset(int(t) for t in line.split()[1:])
        for line in path.read_text().splitlines()
        if line.startswith("e ")
    }
    assert labelled_edges(read_graph(path)) == expected


# ---------------------------------------------------------------- DIMACS parsing


def test_dimacs_comments_and_blank_lines_anywhere():
    lines = ["c head", "", "p edge 3 2", "c middle", "   ", "e 1 2", "c", "e 2 3", "c tail", ""]
    graph = parse_dimacs(lines)
    assert labelled_edges(graph) == {frozenset((1, 2)), frozenset((2, 3))}
    assert graph.graph["name"] == "<string>"


def test_dimacs_p_col_and_newlines():
    graph = parse_dimacs(["p col 3 1\n", "e 3 1\n"], source="x")
    assert labels(graph) == [1, 2, 3]
    assert sorted(graph.edges) == [(0, 2)]
    assert graph.graph["name"] == "x"


def test_dimacs_duplicate_and_reversed_edges_merged():
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


def test_dimacs_isolated_vertex_kept():
    graph = parse_dimacs(["p edge 5 1", "e 2 4"])
    assert graph.number_of_nodes() == 5
    assert labels(graph) == [1, 2, 3, 4, 5]
    assert sorted(graph.edges) == [(1, 3)]
    assert graph.degree[0] == graph.degree[2] == graph.degree[4] == 0


def test_dimacs_empty_graph():
    graph = parse_dimacs(["p edge 0 0"])
    assert graph.number_of_nodes() == 0


def test_dimacs_extension_and_tabs(tmp_path):
    path = write(tmp_path, "g.dimacs", "p\tedge 2 1\ne\t1\t2\n")
    graph = read_graph(path)
    assert graph.graph["name"] == "g"
    assert graph.number_of_edges() == 1


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
def test_dimacs_errors(tmp_path, text, message):
    assert_error(write(tmp_path, "bad.col", text), message)


def test_dimacs_truncated_real_file(tmp_path):
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


def test_graph_format_error_is_value_error():
    with pytest.raises(ValueError):
        parse_dimacs(["e 1 2"])


# ---------------------------------------------------------------- edge lists


def test_edgelist_str_labels_first_appearance():
    graph = parse_edgelist(["b a", "a c", "# comment", "", "c b  # trailing comment"])
    assert labels(graph) == ["b", "a", "c"]
    assert labelled_edges(graph) == {frozenset("ab"), frozenset("ac"), frozenset("bc")}


def test_edgelist_int_labels_sorted():
    graph = parse_edgelist(["10 2", "2 -3", "7"])
    assert labels(graph) == [-3, 2, 7, 10]
    assert all(type(label) is int for label in labels(graph))
    assert labelled_edges(graph) == {frozenset((10, 2)), frozenset((2, -3))}
    assert sorted(graph.edges) == [(0, 1), (1, 3)]


def test_edgelist_mixed_labels_first_appearance():
    graph = parse_edgelist(["5 x", "1 5"])
    assert labels(graph) == [5, "x", 1]


def test_edgelist_single_token_isolated_vertex():
    graph = parse_edgelist(["1 2", "3", "2"])
    assert graph.number_of_nodes() == 3
    assert graph.number_of_edges() == 1
    assert graph.degree[2] == 0
    assert graph.nodes[2]["label"] == 3


def test_edgelist_duplicates_merged_and_weights():
    graph = parse_edgelist(["a b 1.5", "b a 2", "b c", "c d -1e-3"])
    assert graph.number_of_edges() == 3
    index = {label: i for i, label in enumerate(labels(graph))}
    assert graph.edges[index["a"], index["b"]] == {"weight": 2.0}
    assert graph.edges[index["b"], index["c"]] == {}
    assert graph.edges[index["c"], index["d"]]["weight"] == pytest.approx(-1e-3)


def test_edgelist_empty():
    graph = parse_edgelist(["# nothing"])
    assert graph.number_of_nodes() == 0


@pytest.mark.parametrize("suffix", [".txt", ".edges", ".edgelist", ".el", ".EL"])
def test_edgelist_extensions(tmp_path, suffix):
    graph = read_graph(write(tmp_path, f"g{suffix}", "1 2\n2 3\n"))
    assert graph.number_of_edges() == 2
    assert graph.graph["name"] == "g"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "1 2\n# c\n1 2 3 4\n",
            ":3: expected 1 or 2 vertex labels and an optional numeric weight, found 4 tokens: '1 2 3 4'",
        ),
        ("a b heavy\n", ":1: expected a numeric edge weight as the third token, found 'heavy'"),
        (
            "1 2\n2 2\n",
            ":2: expected two distinct vertices, found a self-loop on vertex 2 "
            "(a graph with a self-loop cannot be coloured)",
        ),
        (
            "\nx x 1.0\n",
            ":2: expected two distinct vertices, found a self-loop on vertex 'x' "
            "(a graph with a self-loop cannot be coloured)",
        ),
    ],
)
def test_edgelist_errors(tmp_path, text, message):
    assert_error(write(tmp_path, "bad.txt", text), message)


# ---------------------------------------------------------------- GraphML and JSON


def sample_graph():
    graph = nx.Graph()
    graph.add_edge("alice", "bob", weight=2.5, colour="red")
    graph.add_edge("bob", "carol")
    graph.add_node("dave")
    return graph


def test_graphml_round_trip_str_labels(tmp_path):
    path = tmp_path / "people.graphml"
    nx.write_graphml(sample_graph(), path)
    graph = read_graph(path)
    assert labels(graph) == ["alice", "bob", "carol", "dave"]
    assert labelled_edges(graph) == {frozenset(("alice", "bob")), frozenset(("bob", "carol"))}
    assert graph.edges[0, 1] == {"weight": 2.5}
    assert graph.edges[1, 2] == {}
    assert graph.graph["name"] == "people"


def test_graphml_round_trip_int_labels_sorted(tmp_path):
    source = nx.Graph([(30, 10), (10, 20)])
    path = tmp_path / "ints.graphml"
    nx.write_graphml(source, path)
    graph = read_graph(path)
    assert labels(graph) == [10, 20, 30]
    assert labelled_edges(graph) == {frozenset((10, 30)), frozenset((10, 20))}


def test_graphml_directed_and_noncanonical_ids(tmp_path):
    source = nx.DiGraph([("01", "1"), ("1", "01"), ("1", "2")])
    path = tmp_path / "d.graphml"
    nx.write_graphml(source, path)
    graph = read_graph(path)
    assert type(graph) is nx.Graph
    assert labels(graph) == ["01", "1", "2"]
    assert graph.number_of_edges() == 2


@pytest.mark.parametrize("key", ["links", "edges"])
def test_json_round_trip(tmp_path, key):
    data = nx.node_link_data(sample_graph(), edges=key)
    path = write(tmp_path, "people.json", json.dumps(data))
    graph = read_graph(path)
    assert labels(graph) == ["alice", "bob", "carol", "dave"]
    assert labelled_edges(graph) == {frozenset(("alice", "bob")), frozenset(("bob", "carol"))}
    assert graph.edges[0, 1] == {"weight": 2.5}
    assert graph.graph["name"] == "people"


def test_json_int_labels_directed_multigraph(tmp_path):
    source = nx.MultiDiGraph([(3, 1), (1, 3), (1, 3), (2, 3)])
    path = write(tmp_path, "m.json", json.dumps(nx.node_link_data(source, edges="links")))
    graph = read_graph(path)
    assert type(graph) is nx.Graph
    assert labels(graph) == [1, 2, 3]
    assert labelled_edges(graph) == {frozenset((1, 3)), frozenset((2, 3))}


def test_graphml_self_loop(tmp_path):
    path = tmp_path / "loop.graphml"
    nx.write_graphml(nx.Graph([("a", "b"), ("b", "b")]), path)
    assert_error(
        path,
        ": expected two distinct vertices on every edge, found a self-loop on node 'b' "
        "(a graph with a self-loop cannot be coloured)",
    )


def test_json_self_loop(tmp_path):
    path = write(tmp_path, "loop.json", json.dumps(nx.node_link_data(nx.Graph([(1, 2), (2, 2)]))))
    assert_error(
        path,
        ": expected two distinct vertices on every edge, found a self-loop on node 2 "
        "(a graph with a self-loop cannot be coloured)",
    )


def test_graphml_malformed_xml(tmp_path):
    path = write(tmp_path, "bad.graphml", "<graphml>\n<graph>\n<node id='a'>\n</graph>\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(path)
    assert str(info.value).startswith(f"{path}:4: expected well-formed GraphML XML, found mismatched tag")


def test_graphml_not_a_graph(tmp_path):
    path = write(tmp_path, "empty.graphml", "<graphml></graphml>\n")
    assert_error(
        path,
        ": expected a valid GraphML graph, found NetworkXError('file not successfully read as graphml')",
    )


def test_json_malformed(tmp_path):
    path = write(tmp_path, "bad.json", '{"nodes": [1,\n 2')
    assert_error(path, ":2: expected valid JSON, found Expecting ',' delimiter")


def test_json_not_node_link(tmp_path):
    assert_error(
        write(tmp_path, "list.json", "[1, 2]"),
        ": expected a node-link JSON object, found list",
    )
    assert_error(
        write(tmp_path, "keys.json", '{"nodes": [], "arcs": []}'),
        ": expected a node-link JSON object with keys 'nodes' and 'edges' (or 'links'), "
        "found keys ['arcs', 'nodes']",
    )
    assert_error(
        write(tmp_path, "edge.json", '{"nodes": [{"id": 1}], "edges": [{"source": 1}]}'),
        ": expected a valid node-link graph, found KeyError('target')",
    )


# ---------------------------------------------------------------- dispatch


def test_format_override(tmp_path):
    path = write(tmp_path, "g.txt", "c comment\np edge 3 1\ne 1 3\n")
    graph = read_graph(path, format="dimacs")
    assert labels(graph) == [1, 2, 3]
    assert graph.number_of_edges() == 1
    # Without the override the .txt extension means an edge list, where 'p edge 3 1' has 4 tokens.
    assert_error(
        path,
        ":2: expected 1 or 2 vertex labels and an optional numeric weight, found 4 tokens: 'p edge 3 1'",
    )


def test_format_override_edgelist_on_col(tmp_path):
    graph = read_graph(write(tmp_path, "g.col", "1 2\n"), format="edgelist")
    assert labels(graph) == [1, 2]


def test_format_override_json_and_graphml(tmp_path):
    path = tmp_path / "g.dat"
    nx.write_graphml(nx.Graph([("x", "y")]), path)
    assert labels(read_graph(path, format="graphml")) == ["x", "y"]
    path = write(tmp_path, "g.data", json.dumps(nx.node_link_data(nx.Graph([("x", "y")]))))
    assert labels(read_graph(path, format="json")) == ["x", "y"]


def test_sniff_dimacs(tmp_path):
    graph = read_graph(write(tmp_path, "g.unknown", "c made by hand\n\np edge 2 1\ne 1 2\n"))
    assert labels(graph) == [1, 2]
    assert graph.graph["name"] == "g"


def test_sniff_edgelist(tmp_path):
    graph = read_graph(write(tmp_path, "g", "# comment\nu v\n"))
    assert labels(graph) == ["u", "v"]
    assert graph.graph["name"] == "g"


def test_unknown_format():
    with pytest.raises(InvalidParameterError) as info:
        read_graph(DATA / "myciel3.col", format="xml")
    assert str(info.value) == (
        "The 'format' parameter of read_graph must be one of "
        "'dimacs', 'edgelist', 'graphml', 'json' or None. Got 'xml' instead."
    )


def test_missing_file(tmp_path):
    path = tmp_path / "missing.col"
    with pytest.raises(FileNotFoundError) as info:
        read_graph(path)
    assert str(path) in str(info.value)


def test_missing_file_unknown_extension(tmp_path):
    path = tmp_path / "missing.xyz"
    with pytest.raises(FileNotFoundError) as info:
        read_graph(path)
    assert str(path) in str(info.value)


def test_binary_file(tmp_path):
    path = tmp_path / "bin.col"
    path.write_bytes(b"p edge 2 1\n\xff\xfe\n")
    assert_error(path, ": expected UTF-8 text, found byte 0xff at offset 11")


def test_str_path_accepted():
    graph = read_graph(str(DATA / "myciel3.col"))
    assert graph.number_of_nodes() == 11
