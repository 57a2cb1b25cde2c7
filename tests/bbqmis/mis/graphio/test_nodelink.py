"""Node-link JSON files (bbqmis.mis.graphio.nodelink)."""

import json

import networkx as nx
import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import _common, nodelink, read_graph
from bbqmis.mis.graphio.nodelink import parse_nodelink, read_nodelink_file


def sample_graph():
    graph = nx.Graph()
    graph.add_edge("alice", "bob", weight=2.5, colour="red")
    graph.add_edge("bob", "carol")
    graph.add_node("dave")
    return graph


@pytest.mark.parametrize("key", ["links", "edges"])
def test_json_round_trip(tmp_path, key, write, labels, labelled_edges):
    data = nx.node_link_data(sample_graph(), edges=key)
    path = write(tmp_path, "people.json", json.dumps(data))
    graph = read_graph(path)
    assert labels(graph) == ["alice", "bob", "carol", "dave"]
    assert labelled_edges(graph) == {frozenset(("alice", "bob")), frozenset(("bob", "carol"))}
    assert graph.edges[0, 1] == {"weight": 2.5}
    assert graph.graph["name"] == "people"


def test_json_int_labels_directed_multigraph(tmp_path, write, labels, labelled_edges):
    source = nx.MultiDiGraph([(3, 1), (1, 3), (1, 3), (2, 3)])
    path = write(tmp_path, "m.json", json.dumps(nx.node_link_data(source, edges="links")))
    graph = read_graph(path)
    assert type(graph) is nx.Graph
    assert labels(graph) == [1, 2, 3]
    assert labelled_edges(graph) == {frozenset((1, 3)), frozenset((2, 3))}


def test_json_string_ids_that_look_like_integers_stay_strings(tmp_path, write, labels):
    # Unlike GraphML, JSON keeps the type of its ids: "2" and "10" are strings, in file order.
    data = nx.node_link_data(nx.Graph([("2", "10")]), edges="edges")
    graph = read_graph(write(tmp_path, "s.json", json.dumps(data)))
    assert labels(graph) == ["2", "10"]


def test_read_nodelink_file_names_the_given_source(tmp_path, write, labels):
    path = write(tmp_path, "g.json", json.dumps(nx.node_link_data(nx.Graph([(5, 4)]), edges="edges")))
    graph = read_nodelink_file(path, "given")
    assert labels(graph) == [4, 5] and graph.graph["name"] == "given"
    path = write(tmp_path, "bad.json", "{")
    with pytest.raises(GraphFormatError, match=r"^given:1: expected valid JSON"):
        read_nodelink_file(path, "given")


def test_json_self_loop(tmp_path, write, assert_error):
    path = write(tmp_path, "loop.json", json.dumps(nx.node_link_data(nx.Graph([(1, 2), (2, 2)]))))
    assert_error(
        path,
        ": expected two distinct vertices on every edge, found a self-loop on node 2 "
        "(a graph with a self-loop cannot be coloured)",
    )


def test_json_malformed(tmp_path, write, assert_error):
    path = write(tmp_path, "bad.json", '{"nodes": [1,\n 2')
    assert_error(path, ":2: expected valid JSON, found Expecting ',' delimiter")


def test_json_not_node_link(tmp_path, write, assert_error):
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
        ": expected 'edges'[0] to be an object with 'source' and 'target', "
        "found an object with keys ['source']",
    )


def test_parse_nodelink_is_pure_and_names_the_source(labels):
    graph = parse_nodelink('{"nodes": [{"id": "b"}, {"id": "a"}], "links": [{"source": "a", "target": "b"}]}')
    assert labels(graph) == ["b", "a"] and graph.graph["name"] == "<string>"
    with pytest.raises(GraphFormatError, match=r"^net\.json:2: expected valid JSON"):
        parse_nodelink('{"nodes": [],\n]', source="net.json")


def test_json_tuple_ids_from_networkx(tmp_path, write, labelled_edges):
    # networkx writes tuple nodes (grid graphs) as lists; they come back as tuples.
    data = nx.node_link_data(nx.grid_2d_graph(2, 2), edges="edges")
    graph = read_graph(write(tmp_path, "grid.json", json.dumps(data)))
    assert labelled_edges(graph) == {frozenset(e) for e in nx.grid_2d_graph(2, 2).edges}


def test_json_duplicate_nodes_and_edges_merged(labels):
    graph = parse_nodelink(
        '{"nodes": [{"id": 2}, {"id": 1}, {"id": 2}], "edges": [{"source": 1, "target": 2, "weight": 1},'
        ' {"source": 2, "target": 1, "weight": 3.5}]}'
    )
    assert labels(graph) == [1, 2] and graph.edges[0, 1] == {"weight": 3.5}


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("true", "true"),
        ("null", "null"),
        ('{"a": 1}', "an object with keys ['a']"),
        ("NaN", "number nan"),
        ("Infinity", "number inf"),
        ("[1, [2, [3, [4, [5, [6, [7, [8, [9]]]]]]]]]", "a list of 2 items"),
    ],
)
def test_json_bad_ids(value, found):
    with pytest.raises(GraphFormatError) as info:
        parse_nodelink(f'{{"nodes": [{{"id": 1}}, {{"id": {value}}}], "edges": []}}', source="g.json")
    assert str(info.value) == (
        "g.json: expected 'nodes'[1]['id'] to be a string, a number or a list of them (at most 8 deep), "
        f"found {found}"
    )


def test_json_bad_edges():
    nodes = '"nodes": [{"id": 1}, {"id": 2}]'
    with pytest.raises(GraphFormatError) as info:
        parse_nodelink(
            f'{{{nodes}, "links": [{{"source": 1, "target": 2}}, {{"source": true, "target": 2}}]}}'
        )
    assert str(info.value).startswith("<string>: expected 'links'[1]['source'] to be a string, a number")
    with pytest.raises(GraphFormatError) as info:
        parse_nodelink(f'{{{nodes}, "edges": [{{"source": 1, "target": 2, "weight": false}}]}}')
    assert str(info.value) == "<string>: expected 'edges'[0]['weight'] to be a number, found false"
    with pytest.raises(GraphFormatError) as info:
        parse_nodelink(f'{{{nodes}, "edges": {{"source": 1}}}}')
    assert str(info.value) == "<string>: expected 'edges' to be a list, found an object with keys ['source']"


def test_json_empty_only_with_allow_empty():
    with pytest.raises(GraphFormatError, match=r"pass allow_empty=True"):
        parse_nodelink('{"nodes": [], "links": []}')
    assert parse_nodelink('{"nodes": [], "links": []}', allow_empty=True).number_of_nodes() == 0


def test_json_max_vertices(monkeypatch):
    monkeypatch.setattr(_common, "MAX_VERTICES", 2)
    monkeypatch.setattr(nodelink, "MAX_VERTICES", 2)
    assert parse_nodelink('{"nodes": [{"id": 1}, {"id": 2}], "links": []}').number_of_nodes() == 2
    with pytest.raises(GraphFormatError) as info:
        parse_nodelink('{"nodes": [{"id": 1}, {"id": 2}, {"id": 3}], "links": []}', source="g.json")
    assert str(info.value) == "g.json: expected at most MAX_VERTICES=2 vertices, found 3 (entries in 'nodes')"
