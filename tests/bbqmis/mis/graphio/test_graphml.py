"""GraphML files (bbqmis.mis.graphio.graphml)."""

import networkx as nx
import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import read_graph
from bbqmis.mis.graphio.graphml import read_graphml_file


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
