"""Edge lists separated by whitespace or commas (bbqmis.mis.graphio.edgelist)."""

import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import _common, edgelist, read_graph
from bbqmis.mis.graphio.edgelist import parse_edgelist

_LABEL_RULE = (
    "expected vertex labels made of letters, digits, '_', '.', '+' or '-' and separated by whitespace "
    "or a comma, found"
)


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


def test_edgelist_empty_only_with_allow_empty():
    with pytest.raises(GraphFormatError) as info:
        parse_edgelist(["# nothing", "% nothing either", "  "], source="none.txt")
    assert str(info.value) == (
        "none.txt: expected at least one vertex, found no vertex (only blank lines and comments); "
        "pass allow_empty=True (command line: --allow-empty) to accept an empty graph"
    )
    assert parse_edgelist(["# nothing"], allow_empty=True).number_of_nodes() == 0


@pytest.mark.parametrize(
    "line",
    ["1 2", "1,2", "1, 2", "1 ,2", " 1 , 2 ", "1\t2", "1 \t 2", "1\t,\t2", "1,2 # comment", "1,2\r\n"],
)
def test_edgelist_separators(line, labelled_edges):
    graph = parse_edgelist([line, "3"])
    assert labelled_edges(graph) == {frozenset((1, 2))} and graph.number_of_nodes() == 3


def test_comma_separated_txt_is_read_as_edges_not_isolated_vertices(tmp_path, write, labelled_edges):
    # Reported: '1,2' lines in a .txt file were read as isolated vertices called '1,2'.
    graph = read_graph(write(tmp_path, "g.txt", "1,2\n2,3\n3,1\n"))
    assert graph.number_of_nodes() == 3
    assert labelled_edges(graph) == {frozenset((1, 2)), frozenset((2, 3)), frozenset((1, 3))}


def test_edgelist_comma_separated_weights():
    graph = parse_edgelist(["a,b,1.5", "b, c, -2"])
    assert graph.edges[0, 1] == {"weight": 1.5} and graph.edges[1, 2] == {"weight": -2.0}


def test_edgelist_percent_comment_lines():
    graph = parse_edgelist(["% sym unweighted", "  % indented", "1 2"])
    assert graph.number_of_edges() == 1


def test_edgelist_label_characters(labels):
    graph = parse_edgelist(["node_1 node.2", "x-y +z", "1.5 " + "9" * 64])
    assert labels(graph) == ["node_1", "node.2", "x-y", "+z", "1.5", int("9" * 64)]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1;2", f"{_LABEL_RULE} '1;2' in '1;2'"),
        ("1|2", f"{_LABEL_RULE} '1|2' in '1|2'"),
        ("a->b", f"{_LABEL_RULE} 'a->b' in 'a->b'"),
        ("1-2", f"{_LABEL_RULE} '1-2' in '1-2'"),
        ("1--2 3", f"{_LABEL_RULE} '1--2' in '1--2 3'"),
        ("a b, c", f"{_LABEL_RULE} 'a b' in 'a b, c'"),
        ("(1) 2", f"{_LABEL_RULE} '(1)' in '(1) 2'"),
        ("1,,2", "expected a value between every two commas, found '1,,2'"),
        (",1,2", "expected a value between every two commas, found ',1,2'"),
        (
            "1,2,3,4",
            "expected 1 or 2 vertex labels and an optional numeric weight, found 4 tokens: '1,2,3,4'",
        ),
        ("1,2,x", "expected a numeric edge weight as the third token, found 'x'"),
        ("1 2\x00", "expected text, found a NUL character at column 4 (a binary file?)"),
        (
            "1 " + "2" * 65,
            "expected an integer label of at most 64 digits, found '" + "2" * 60 + "'... (65 characters)",
        ),
        (
            "a " + "b;" * 40,
            f"{_LABEL_RULE} '"
            + "b;" * 30
            + "'... (80 characters) in 'a "
            + "b;" * 29
            + "'... (82 characters)",
        ),
    ],
    ids=[
        "semicolon",
        "bar",
        "arrow",
        "dash",
        "dashes",
        "space-in-field",
        "parentheses",
        "empty-field",
        "leading-comma",
        "four-fields",
        "bad-weight",
        "nul",
        "huge-integer",
        "long-line",
    ],
)
def test_edgelist_anything_else_is_an_error_naming_the_line(line, message):
    with pytest.raises(GraphFormatError) as info:
        parse_edgelist(["# first", "1 2", line], source="g.txt")
    assert str(info.value) == f"g.txt:3: {message}"


def test_edgelist_max_vertices(monkeypatch):
    monkeypatch.setattr(_common, "MAX_VERTICES", 3)
    monkeypatch.setattr(edgelist, "MAX_VERTICES", 3)
    assert parse_edgelist(["1 2", "3"]).number_of_nodes() == 3
    with pytest.raises(GraphFormatError) as info:
        parse_edgelist(["1 2", "3", "", "2 4"], source="g.txt")
    assert (
        str(info.value)
        == "g.txt:4: expected at most MAX_VERTICES=3 vertices, found 4 (distinct labels so far)"
    )


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
