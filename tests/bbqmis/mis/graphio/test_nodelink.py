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


def test_json_duplicate_edges_merged(labels):
    graph = parse_nodelink(
        '{"nodes": [{"id": 2}, {"id": 1}], "edges": [{"source": 1, "target": 2, "weight": 1},'
        ' {"source": 2, "target": 1, "weight": 3.5}]}'
    )
    assert labels(graph) == [1, 2] and graph.edges[0, 1] == {"weight": 3.5}


@pytest.mark.parametrize(
    ("ids", "found"),
    [
        ("2, 1, 2", "2 at 'nodes'[0] and 'nodes'[2]"),
        ('"a", "b", "c", "b"', "'b' at 'nodes'[1] and 'nodes'[3]"),
        ("1, 1.0", "1.0 at 'nodes'[0] and 'nodes'[1]"),  # equal ids: networkx would merge them too
        ("[0, 1], [1, 0], [0, 1]", "(0, 1) at 'nodes'[0] and 'nodes'[2]"),
    ],
    ids=["int", "str", "int-and-float", "list"],
)
def test_json_duplicate_node_refused(tmp_path, write, assert_error, ids, found):
    # Previously the second node was merged into the first without a word.
    nodes = [{"id": x} for x in json.loads(f"[{ids}]")]
    path = write(tmp_path, "dup.json", json.dumps({"nodes": nodes, "edges": []}))
    assert_error(path, f": expected unique node ids, found {found}")


@pytest.mark.parametrize("key", ["links", "edges"])
def test_json_edge_end_not_a_node_refused(tmp_path, write, assert_error, key):
    data = {
        "nodes": [{"id": "a"}, {"id": "b"}],
        key: [{"source": "a", "target": "b"}, {"source": "z", "target": "a"}],
    }
    path = write(tmp_path, "ends.json", json.dumps(data))
    assert_error(path, f": expected {key!r}[1]['source'] to be the id of a node, found 'z'")


def _weighted(graph_type, edges):
    graph = graph_type()
    graph.add_weighted_edges_from(edges)
    return graph


@pytest.mark.parametrize("key", ["links", "edges"])
@pytest.mark.parametrize(
    "source",
    [
        _weighted(nx.Graph, [(3, 1, 0.5), (1, 2, 2), (2, 3, -1.25)]),
        _weighted(nx.DiGraph, [("x", "y", 1.0), ("y", "z", 4.5), ("z", "x", 3.0)]),
        nx.DiGraph([(10, 2), (2, 10), (2, 7)]),
        nx.relabel_nodes(nx.cycle_graph(5), {i: f"v{i}" for i in range(5)}),
    ],
    ids=["int-weighted", "str-directed-weighted", "int-directed", "str-cycle"],
)
def test_json_written_by_networkx_still_reads_to_the_same_graph(tmp_path, write, key, source):
    path = write(tmp_path, "g.json", json.dumps(nx.node_link_data(source, edges=key)))
    graph = read_graph(path)
    labels = [graph.nodes[i]["label"] for i in graph]
    assert sorted(labels, key=str) == sorted(source, key=str)
    expected = nx.Graph(source.to_undirected()) if source.is_directed() else source
    assert {frozenset((labels[u], labels[v])): d for u, v, d in graph.edges(data=True)} == {
        frozenset((u, v)): ({"weight": d["weight"]} if "weight" in d else {})
        for u, v, d in expected.edges(data=True)
    }


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
