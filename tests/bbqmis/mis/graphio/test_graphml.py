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


# ---------------------------------------------------------------- what networkx would read silently wrong


def _document(*lines):
    """A GraphML document of ``lines``, one per line after the <graphml> line."""
    return "\n".join(['<graphml xmlns="http://graphml.graphdrawing.org/xmlns">', *lines, "</graphml>"])


def test_graphml_second_graph_refused(tmp_path, write, assert_error):
    path = write(
        tmp_path,
        "two.graphml",
        _document(
            '<graph id="g1" edgedefault="undirected"><node id="a"/><node id="b"/></graph>',
            '<graph id="g2" edgedefault="undirected"><node id="c"/></graph>',
        ),
    )
    assert_error(
        path,
        ":3: expected one <graph> element (only one graph per file is read), found a second <graph id='g2'>",
    )


def test_graphml_second_graph_without_namespace_or_id_refused():
    # networkx reads a bare <graphml> as GraphML, so the check must too.
    text = (
        '<graphml>\n<graph edgedefault="undirected"><node id="a"/></graph>\n'
        '<graph edgedefault="undirected"><node id="b"/></graph>\n</graphml>'
    )
    with pytest.raises(GraphFormatError) as info:
        parse_graphml(text, source="bare.graphml")
    assert str(info.value) == (
        "bare.graphml:3: expected one <graph> element (only one graph per file is read), "
        "found a second <graph>"
    )


def test_graphml_graph_nested_in_a_node_refused(tmp_path, write, assert_error):
    # yEd writes a group node this way; networkx would drop or flatten the inner graph.
    path = write(
        tmp_path,
        "group.graphml",
        _document(
            '<graph edgedefault="undirected">',
            '<node id="outer"/>',
            '<node id="group7">',
            '<graph id="group7:" edgedefault="undirected"><node id="inner"/></graph>',
            "</node>",
            '<edge source="outer" target="group7"/>',
            "</graph>",
        ),
    )
    assert_error(
        path,
        ":5: expected a single flat <graph> (nested graphs are not read), found a <graph> nested inside "
        "node 'group7'",
    )


def test_graphml_graph_nested_in_an_edge_refused():
    text = _document(
        '<graph edgedefault="undirected"><node id="a"/><node id="b"/>',
        '<edge source="a" target="b"><graph edgedefault="undirected"/></edge></graph>',
    )
    with pytest.raises(GraphFormatError) as info:
        parse_graphml(text, source="e.graphml")
    assert str(info.value) == (
        "e.graphml:3: expected a single flat <graph> (nested graphs are not read), found a <graph> nested "
        "inside edge 'a' -> 'b'"
    )


@pytest.mark.parametrize(
    ("tail", "head", "which", "missing"), [("3", "7", "target", "7"), ("x", "3", "source", "x")]
)
def test_graphml_edge_end_without_a_node_refused(tmp_path, write, assert_error, tail, head, which, missing):
    path = write(
        tmp_path,
        "ends.graphml",
        _document(
            '<graph edgedefault="undirected">',
            '<node id="3"/>',
            f'<edge source="{tail}" target="{head}"/>',
            "</graph>",
        ),
    )
    assert_error(
        path,
        f":4: expected the {which} of edge '{tail}' -> '{head}' to be the id of a <node>, found "
        f"'{missing}', which has no <node> element",
    )


def test_graphml_edge_end_named_only_in_a_later_graph_is_refused():
    # The second graph is refused first: its nodes never count for the first graph's edges.
    text = _document(
        '<graph edgedefault="undirected"><node id="a"/><edge source="a" target="b"/></graph>',
        '<graph edgedefault="undirected"><node id="b"/></graph>',
    )
    with pytest.raises(GraphFormatError, match=r"^g\.graphml:3: expected one <graph> element"):
        parse_graphml(text, source="g.graphml")


def test_graphml_edges_may_come_before_their_nodes(labels, labelled_edges):
    graph = parse_graphml(
        _document(
            '<graph edgedefault="undirected">',
            '<edge source="b" target="a"/>',
            '<node id="b"/>',
            '<node id="a"/>',
            "</graph>",
        )
    )
    assert labels(graph) == ["b", "a"] and labelled_edges(graph) == {frozenset("ab")}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '<node id="a"/>\n<edge target="a"/>',
            ":3: expected every <edge> to have a source and a target, "
            "found edge None -> 'a' without a source",
        ),
        ('<node id="a"/>\n<node/>', ":3: expected every <node> to have an id, found a <node> without one"),
        (
            '<node id="a"/><node id="b"/>\n<node id="a"/>',
            ":3: expected every <node> id to be unique, found node 'a' again",
        ),
    ],
    ids=["edge-without-source", "node-without-id", "duplicate-node"],
)
def test_graphml_node_and_edge_attributes_checked(tmp_path, write, assert_error, body, message):
    # networkx would read a missing id, source or target as a node named 'None'.
    path = write(tmp_path, "attrs.graphml", NS + "\n" + body + "</graph></graphml>")
    assert_error(path, message)


def test_graphml_declaration_hidden_by_utf16_refused():
    # The byte test before parsing cannot see "<!DOCTYPE" in UTF-16; the structure pass can.
    text = (
        '<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE g [<!ENTITY a "zz">]>\n'
        + NS
        + '<node id="&a;"/></graph></graphml>'
    )
    with pytest.raises(GraphFormatError) as info:
        parse_graphml(text.encode("utf-16"), source="u.graphml")
    assert str(info.value) == "u.graphml:2: expected GraphML without a <!DOCTYPE> or <!ENTITY> declaration"


def test_graphml_foreign_elements_are_left_alone(labels):
    # yEd puts its own elements in <data>; only GraphML elements are checked.
    yed = 'xmlns:y="http://www.yworks.com/xml/graphml"'
    graph = parse_graphml(
        f'<graphml xmlns="http://graphml.graphdrawing.org/xmlns" {yed}>'
        '<key id="d0" for="node" yfiles.type="nodegraphics"/><graph edgedefault="undirected">'
        '<node id="a"><data key="d0"><y:ShapeNode><y:graph/><y:node/></y:ShapeNode></data></node>'
        '<node id="b"/><edge source="a" target="b"/></graph></graphml>'
    )
    assert labels(graph) == ["a", "b"] and graph.number_of_edges() == 1


def _expected(source):
    """``source`` as the readers return it: labels, undirected labelled edges and their weights."""
    undirected = nx.Graph(source.to_undirected()) if source.is_directed() else nx.Graph(source)
    return sorted(map(str, undirected)), {
        frozenset(map(str, (u, v))): ({"weight": d["weight"]} if "weight" in d else {})
        for u, v, d in undirected.edges(data=True)
    }


def _read_back(graph):
    labels = [graph.nodes[i]["label"] for i in graph]
    named = {frozenset(str(labels[i]) for i in e): graph.edges[e] for e in graph.edges}
    return sorted(map(str, labels)), named


def _weighted(graph_type, edges):
    graph = graph_type()
    graph.add_weighted_edges_from(edges)
    return graph


@pytest.mark.parametrize(
    "source",
    [
        _weighted(nx.Graph, [(3, 1, 0.5), (1, 2, 2.0), (2, 3, -1.25)]),
        _weighted(nx.DiGraph, [("x", "y", 1.0), ("y", "z", 4.5), ("z", "x", 3.0)]),
        nx.DiGraph([(10, 2), (2, 10), (2, 7)]),
        nx.convert_node_labels_to_integers(nx.petersen_graph(), first_label=100),
        nx.relabel_nodes(nx.cycle_graph(5), {i: f"v{i}" for i in range(5)}),
    ],
    ids=["int-weighted", "str-directed-weighted", "int-directed", "int-petersen", "str-cycle"],
)
def test_graphml_written_by_networkx_still_reads_to_the_same_graph(tmp_path, source):
    path = tmp_path / "g.graphml"
    nx.write_graphml(source, path)
    graph = read_graph(path)
    assert _read_back(graph) == _expected(source)
    ints = all(isinstance(v, int) for v in source)
    assert all(isinstance(graph.nodes[i]["label"], int if ints else str) for i in graph)
