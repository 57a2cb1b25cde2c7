"""Whitespace-separated edge lists (bbqmis.mis.graphio.edgelist)."""

import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import read_graph
from bbqmis.mis.graphio.edgelist import parse_edgelist


def test_edgelist_str_labels_first_appearance(labels, labelled_edges):
    graph = parse_edgelist(["b a", "a c", "# comment", "", "c b  # trailing comment"])
    assert labels(graph) == ["b", "a", "c"]
    assert labelled_edges(graph) == {frozenset("ab"), frozenset("ac"), frozenset("bc")}


def test_edgelist_int_labels_sorted(labels, labelled_edges):
    graph = parse_edgelist(["10 2", "2 -3", "7"])
    assert labels(graph) == [-3, 2, 7, 10]
    assert all(type(label) is int for label in labels(graph))
    assert labelled_edges(graph) == {frozenset((10, 2)), frozenset((2, -3))}
    assert sorted(graph.edges) == [(0, 1), (1, 3)]


def test_edgelist_mixed_labels_first_appearance(labels):
    graph = parse_edgelist(["5 x", "1 5"])
    assert labels(graph) == [5, "x", 1]


def test_edgelist_single_token_isolated_vertex():
    graph = parse_edgelist(["1 2", "3", "2"])
    assert graph.number_of_nodes() == 3
    assert graph.number_of_edges() == 1
    assert graph.degree[2] == 0
    assert graph.nodes[2]["label"] == 3


def test_edgelist_duplicates_merged_and_weights(labels):
    graph = parse_edgelist(["a b 1.5", "b a 2", "b c", "c d -1e-3"])
    assert graph.number_of_edges() == 3
    index = {label: i for i, label in enumerate(labels(graph))}
    assert graph.edges[index["a"], index["b"]] == {"weight": 2.0}
    assert graph.edges[index["b"], index["c"]] == {}
    assert graph.edges[index["c"], index["d"]]["weight"] == pytest.approx(-1e-3)


def test_edgelist_integer_spellings_name_one_vertex(labels):
    graph = parse_edgelist(["1 2", "01 +2", "002 3"])
    assert labels(graph) == [1, 2, 3]
    assert graph.number_of_edges() == 2


def test_edgelist_empty():
    graph = parse_edgelist(["# nothing"])
    assert graph.number_of_nodes() == 0


def test_parse_edgelist_source_names_graph_and_errors():
    assert parse_edgelist(["a b"], source="people").graph["name"] == "people"
    with pytest.raises(GraphFormatError, match=r"^people:1: expected a numeric edge weight"):
        parse_edgelist(["a b c"], source="people")


@pytest.mark.parametrize("suffix", [".txt", ".edges", ".edgelist", ".el", ".EL"])
def test_edgelist_extensions(tmp_path, suffix, write):
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
def test_edgelist_errors(tmp_path, text, message, write, assert_error):
    assert_error(write(tmp_path, "bad.txt", text), message)
