"""GraphML files (bbqmis.mis.graphio.graphml)."""

import networkx as nx
import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import _common, graphml, read_graph
from bbqmis.mis.graphio.graphml import parse_graphml, read_graphml_file

NS = '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">'


def sample_graph():
    graph = nx.Graph()
    graph.add_edge("alice", "bob", weight=2.5, colour="red")
    graph.add_edge("bob", "carol")
    graph.add_node("dave")
    return graph


def test_graphml_round_trip_str_labels(tmp_path, labels, labelled_edges):
    path = tmp_path / "people.graphml"
    nx.write_graphml(sample_graph(), path)
    graph = read_graph(path)
    assert labels(graph) == ["alice", "bob", "carol", "dave"]
    assert labelled_edges(graph) == {frozenset(("alice", "bob")), frozenset(("bob", "carol"))}
    assert graph.edges[0, 1] == {"weight": 2.5}
    assert graph.edges[1, 2] == {}
    assert graph.graph["name"] == "people"


def test_graphml_round_trip_int_labels_sorted(tmp_path, labels, labelled_edges):
    source = nx.Graph([(30, 10), (10, 20)])
    path = tmp_path / "ints.graphml"
    nx.write_graphml(source, path)
    graph = read_graph(path)
    assert labels(graph) == [10, 20, 30]
    assert labelled_edges(graph) == {frozenset((10, 30)), frozenset((10, 20))}


def test_graphml_directed_and_noncanonical_ids(tmp_path, labels):
    source = nx.DiGraph([("01", "1"), ("1", "01"), ("1", "2")])
    path = tmp_path / "d.graphml"
    nx.write_graphml(source, path)
    graph = read_graph(path)
    assert type(graph) is nx.Graph
    assert labels(graph) == ["01", "1", "2"]
    assert graph.number_of_edges() == 2


def test_graphml_multigraph_is_made_simple(tmp_path, labels, labelled_edges):
    path = tmp_path / "multi.graphml"
    nx.write_graphml(nx.MultiGraph([("a", "b"), ("a", "b"), ("b", "c")]), path)
    graph = read_graph(path)
    assert type(graph) is nx.Graph
    assert labels(graph) == ["a", "b", "c"]
    assert labelled_edges(graph) == {frozenset("ab"), frozenset("bc")}


def test_read_graphml_file_names_the_given_source(tmp_path, labels):
    path = tmp_path / "g.graphml"
    nx.write_graphml(nx.Graph([("x", "y")]), path)
    graph = read_graphml_file(path, "given")
    assert labels(graph) == ["x", "y"] and graph.graph["name"] == "given"
    nx.write_graphml(nx.Graph([("x", "x")]), path)
    with pytest.raises(GraphFormatError, match=r"^given: expected two distinct vertices on every edge"):
        read_graphml_file(path, "given")


def test_graphml_self_loop(tmp_path, assert_error):
    path = tmp_path / "loop.graphml"
    nx.write_graphml(nx.Graph([("a", "b"), ("b", "b")]), path)
    assert_error(
        path,
        ": expected two distinct vertices on every edge, found a self-loop on node 'b' "
        "(a graph with a self-loop cannot be coloured)",
    )


def test_graphml_malformed_xml(tmp_path, write):
    path = write(tmp_path, "bad.graphml", "<graphml>\n<graph>\n<node id='a'>\n</graph>\n")
    with pytest.raises(GraphFormatError) as info:
        read_graph(path)
    assert str(info.value).startswith(f"{path}:4: expected well-formed GraphML XML, found mismatched tag")


def test_graphml_not_a_graph(tmp_path, write, assert_error):
    path = write(tmp_path, "empty.graphml", "<graphml></graphml>\n")
    assert_error(
        path,
        ": expected a valid GraphML graph, found NetworkXError('file not successfully read as graphml')",
    )


def test_parse_graphml_is_pure(labels):
    graph = parse_graphml(NS + '<node id="b"/><node id="a"/><edge source="a" target="b"/></graph></graphml>')
    assert labels(graph) == ["b", "a"] and graph.number_of_edges() == 1 and graph.graph["name"] == "<string>"


def test_graphml_declared_latin1_encoding(tmp_path, labels):
    path = tmp_path / "latin.graphml"
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>' + NS + '<node id="caf\u00e9"/></graph></graphml>'
    path.write_bytes(text.encode("latin-1"))
    assert labels(read_graph(path)) == ["caf\u00e9"]


@pytest.mark.parametrize(
    "prolog",
    [
        '<!DOCTYPE graphml SYSTEM "file:///etc/passwd">',
        '<!DOCTYPE g [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>',
    ],
    ids=["external", "billion-laughs"],
)
def test_graphml_declarations_refused_before_parsing(prolog):
    with pytest.raises(GraphFormatError) as info:
        parse_graphml('<?xml version="1.0"?>' + prolog + NS + "</graph></graphml>", source="x.graphml")
    assert str(info.value) == "x.graphml: expected GraphML without a <!DOCTYPE> or <!ENTITY> declaration"


def test_graphml_odd_data_is_a_graph_format_error():
    key = '<key id="w" for="edge" attr.name="weight" attr.type="int"/>'
    text = NS.replace("<graph ", key + "<graph ") + (
        '<node id="a"/><node id="b"/><edge source="a" target="b"><data key="w">heavy</data></edge>'
        "</graph></graphml>"
    )
    with pytest.raises(GraphFormatError) as info:
        parse_graphml(text, source="w.graphml")
    assert str(info.value).startswith("w.graphml: expected a valid GraphML graph, found ValueError(")


def test_graphml_empty_only_with_allow_empty():
    with pytest.raises(GraphFormatError, match=r"pass allow_empty=True"):
        parse_graphml(NS + "</graph></graphml>")
    assert parse_graphml(NS + "</graph></graphml>", allow_empty=True).number_of_nodes() == 0


def test_graphml_max_vertices_before_parsing(monkeypatch):
    monkeypatch.setattr(_common, "MAX_VERTICES", 2)
    monkeypatch.setattr(graphml, "MAX_VERTICES", 2)
    assert parse_graphml(NS + '<node id="1"/><node id="2"/></graph></graphml>').number_of_nodes() == 2
    with pytest.raises(GraphFormatError) as info:
        parse_graphml(
            NS + '<node id="1"/><node id="2"/><node id="3"></node></graph></graphml>', source="g.graphml"
        )
    assert str(info.value) == "g.graphml: expected at most MAX_VERTICES=2 vertices, found 3 (<node> tags)"
