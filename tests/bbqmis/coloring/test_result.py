"""ColoringResult, verify_coloring, color_classes and SearchError (bbqmis.coloring.result, .errors)."""

import json
import re

import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.errors import SearchError
from bbqmis.coloring.result import ColoringResult, color_classes, verify_coloring
from bbqmis.mis.errors import BBQMISError


# -- ColoringResult -----------------------------------------------------------------------
def test_to_json_has_exactly_the_documented_keys_and_string_labels():
    stats = {"nodes_explored": 3, "sampler": {"calls": 2.0}}
    result = ColoringResult({1: 0, (2, "b"): 1, "c": 0}, 2, 1, False, stopped="time_limit", stats=stats)
    data = result.to_json()
    assert list(data) == ["coloring", "num_colors", "lower_bound", "optimal", "stopped", "stats"]
    assert data["coloring"] == {"1": 0, "(2, 'b')": 1, "c": 0}
    assert (data["num_colors"], data["lower_bound"], data["optimal"]) == (2, 1, False)
    assert data["stopped"] == "time_limit" and data["stats"] == stats
    assert json.loads(json.dumps(data)) == data  # JSON-ready as is


def test_a_finished_run_has_stopped_none():
    assert ColoringResult({"a": 0}, 1, 1, True).to_json()["stopped"] is None


def test_stats_default_to_a_fresh_dict():
    first, second = ColoringResult({}, 0, 0, True), ColoringResult({}, 0, 0, True)
    first.stats["x"] = 1
    assert second.stats == {} and first.to_json()["stats"] == {"x": 1}


# -- verify_coloring --------------------------------------------------------------------
def test_a_proper_complete_colouring_passes(graphs):
    for graph in graphs(10, seed=41):
        for strategy in ("DSATUR", "largest_first", "random_sequential"):
            assert verify_coloring(graph, nx.greedy_color(graph, strategy=strategy)) is None


def test_extra_entries_outside_the_graph_are_ignored():
    verify_coloring(nx.path_graph(2), {0: 0, 1: 1, "elsewhere": 0})


def test_incomplete_colouring_names_a_missing_vertex_and_the_count():
    graph = nx.Graph([("a", "b"), ("b", "c"), ("c", "d")])
    with pytest.raises(SearchError) as info:
        verify_coloring(graph, {"a": 0, "c": 0})
    assert str(info.value) == "colouring misses 2 vertices, e.g. 'b'"


def test_improper_colouring_names_the_adjacent_vertices_and_the_colour():
    graph = nx.Graph([("a", "b"), ("b", "c")])
    with pytest.raises(SearchError) as info:
        verify_coloring(graph, {"a": 0, "b": 1, "c": 1})
    assert str(info.value) == "colouring is not proper: adjacent vertices 'b' and 'c' share colour 1"


def test_every_single_conflict_is_caught(graphs):
    rng = np.random.default_rng(42)
    for graph in graphs(10, seed=43):
        if graph.number_of_edges() == 0:
            continue
        coloring = nx.greedy_color(graph)
        u, v = list(graph.edges)[int(rng.integers(graph.number_of_edges()))]
        broken = {**coloring, v: coloring[u]}
        with pytest.raises(SearchError) as info:
            verify_coloring(graph, broken)
        found = re.fullmatch(
            r"colouring is not proper: adjacent vertices (\d+) and (\d+) share colour (\d+)", str(info.value)
        )
        assert found, str(info.value)
        a, b, color = map(int, found.groups())
        # The named pair is a real conflict: adjacent, one of them the recoloured vertex.
        assert graph.has_edge(a, b) and v in (a, b) and color == coloring[u] == broken[a] == broken[b]


# -- color_classes -----------------------------------------------------------------------
def test_color_classes_in_order_of_first_appearance():
    assert color_classes({"x": 2, "y": 0, "z": 2, "w": 1}) == (
        frozenset({"x", "z"}),
        frozenset({"y"}),
        frozenset({"w"}),
    )
    assert color_classes({}) == ()


def test_color_classes_partition_the_vertices_by_colour(graphs):
    for graph in graphs(10, seed=44):
        coloring = nx.greedy_color(graph, strategy="largest_first")
        classes = color_classes(coloring)
        assert len(classes) == len(set(coloring.values()))
        assert sum(map(len, classes)) == len(coloring) and frozenset().union(*classes) == set(coloring)
        for cls in classes:
            assert len({coloring[v] for v in cls}) == 1
            assert not any(graph.has_edge(u, v) for u in cls for v in cls)


# -- errors ------------------------------------------------------------------------------
def test_search_error_is_a_bbqmis_error():
    assert issubclass(SearchError, BBQMISError)
    assert not issubclass(SearchError, ValueError)  # not a bad-input error


def test_to_json_keeps_labels_apart_that_print_alike():
    result = ColoringResult({1: 0, "1": 1, 2: 2}, 3, 3, True)
    coloring = json.loads(json.dumps(result.to_json()))["coloring"]
    assert coloring == {"1": 0, "'1'": 1, "2": 2}


def test_repr_is_one_line_without_the_colouring():
    import networkx as nx

    from bbqmis.coloring import color_graph

    text = repr(color_graph(nx.cycle_graph(7), "exact"))
    assert text.startswith(
        "ColoringResult(num_colors=3, lower_bound=3, optimal=True, stopped=None, vertices=7"
    )
    assert "\n" not in text and "coloring" not in text
