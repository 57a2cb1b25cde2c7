"""read_graph: format dispatch, sniffing and file errors (bbqmis.mis.graphio), with the shared helpers."""

import itertools
import json
import string
import tempfile
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbqmis.mis.errors import GraphFormatError, InvalidParameterError
from bbqmis.mis.graphio import read_graph
from bbqmis.mis.graphio._common import INT_RE, all_ints, format_error, from_networkx, relabel

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


def test_format_override_json_and_graphml(tmp_path, write, labels):
    path = tmp_path / "g.dat"
    nx.write_graphml(nx.Graph([("x", "y")]), path)
    assert labels(read_graph(path, format="graphml")) == ["x", "y"]
    path = write(tmp_path, "g.data", json.dumps(nx.node_link_data(nx.Graph([("x", "y")]))))
    assert labels(read_graph(path, format="json")) == ["x", "y"]


def test_sniff_dimacs(tmp_path, write, labels):
    graph = read_graph(write(tmp_path, "g.unknown", "c made by hand\n\np edge 2 1\ne 1 2\n"))
    assert labels(graph) == [1, 2]
    assert graph.graph["name"] == "g"


def test_sniff_edgelist(tmp_path, write, labels):
    graph = read_graph(write(tmp_path, "g", "# comment\nu v\n"))
    assert labels(graph) == ["u", "v"]
    assert graph.graph["name"] == "g"


def test_sniff_an_empty_file_as_an_empty_edge_list(tmp_path, write):
    graph = read_graph(write(tmp_path, "nothing.dat", "\n# only a comment\n"))
    assert graph.number_of_nodes() == 0 and graph.graph["name"] == "nothing"


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


def test_binary_file(tmp_path, assert_error):
    path = tmp_path / "bin.col"
    path.write_bytes(b"p edge 2 1\n\xff\xfe\n")
    assert_error(path, ": expected UTF-8 text, found byte 0xff at offset 11")


def test_str_path_accepted():
    graph = read_graph(str(DATA / "myciel3.col"))
    assert graph.number_of_nodes() == 11


# ---------------------------------------------------------------- round trip, every format

_LETTERS = string.ascii_letters + "_"


@st.composite
def labelled_graphs(draw):
    """A small graph whose labels are all ints or all letter strings, edges optionally weighted."""
    n = draw(st.integers(0, 8))
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


def write_edgelist(graph, path):
    edges = list(graph.edges(data=True))
    isolated = [v for v in graph if graph.degree(v) == 0]
    lines = [f"{u} {v}" + (f" {d['weight']!r}" if "weight" in d else "") for u, v, d in edges]
    path.write_text("\n".join(lines + [str(v) for v in isolated]) + "\n")
    return graph, list(dict.fromkeys([*(x for u, v, _ in edges for x in (u, v)), *isolated]))


def write_graphml(graph, path):
    nx.write_graphml(graph, path)
    return graph, list(graph)


def write_nodelink(graph, path):
    path.write_text(json.dumps(nx.node_link_data(graph, edges="edges")))
    return graph, list(graph)


WRITERS = {
    ".col": write_dimacs,
    ".txt": write_edgelist,
    ".graphml": write_graphml,
    ".json": write_nodelink,
}


@settings(max_examples=60, deadline=None)
@given(graph=labelled_graphs(), suffix=st.sampled_from(sorted(WRITERS)))
def test_written_graphs_read_back_isomorphic_with_the_same_labels(graph, suffix):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"g{suffix}"
        expected, file_order = WRITERS[suffix](graph, path)
        read = read_graph(path)
    n = expected.number_of_nodes()
    assert type(read) is nx.Graph and list(read) == list(range(n))
    labels = [read.nodes[i]["label"] for i in range(n)]
    # Nodes follow the sorted labels when all are integers, else the file's order.
    assert labels == (sorted(file_order) if all(type(x) is int for x in file_order) else file_order)
    assert nx.is_isomorphic(read, expected)
    back = nx.relabel_nodes(read, dict(enumerate(labels)))
    assert set(back) == set(expected)
    assert {frozenset(e) for e in back.edges} == {frozenset(e) for e in expected.edges}
    if suffix != ".col":  # DIMACS has no weights
        for u, v, data in expected.edges(data=True):
            assert back.edges[u, v] == ({"weight": data["weight"]} if "weight" in data else {})


# ---------------------------------------------------------------- shared helpers (_common)


def test_format_error_names_source_and_line():
    error = format_error("g.col", 7, "expected this, found that")
    assert isinstance(error, GraphFormatError) and isinstance(error, ValueError)
    assert str(error) == "g.col:7: expected this, found that"
    assert str(format_error("g.json", None, "bad")) == "g.json: bad"


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


def test_from_networkx_converts_canonical_integer_ids_only_when_asked():
    graph = nx.Graph([("10", "2"), ("2", "3")], name="ignored")
    graph.edges["10", "2"]["colour"] = "red"
    converted = from_networkx(graph, "src", int_ids=True)
    assert [converted.nodes[i]["label"] for i in converted] == [2, 3, 10]
    assert converted.edges[0, 2] == {}  # only 'weight' is kept
    kept = from_networkx(graph, "src", int_ids=False)
    assert [kept.nodes[i]["label"] for i in kept] == ["10", "2", "3"]
