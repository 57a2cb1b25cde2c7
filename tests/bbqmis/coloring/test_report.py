import networkx as nx

from bbqmis.coloring import color_graph
from bbqmis.coloring.report import format_result, progress_view


def test_the_progress_line_shows_the_search_fields_in_order_and_the_gap():
    snapshot = {
        "phase": "search",
        "component": 1,
        "components": 2,
        "nodes": 40,
        "open": 3,
        "incumbent": 5,
        "bound": 4,
        "elapsed": 1.0,
        "memory_gb": 0.1,
    }
    view = progress_view(snapshot)
    assert list(view) == ["phase", "component", "nodes", "open", "colours", "bound", "gap", "GB"]
    assert view["component"] == "1/2" and view["gap"] == "20%" and view["GB"] == 0.1


def test_a_phase_without_tree_or_bound_shows_only_what_it_knows():
    view = progress_view({"phase": "clique", "component": 1, "components": 1, "memory_gb": 0.2})
    assert view == {"phase": "clique", "component": "1/1", "GB": 0.2}
    view = progress_view(
        {"phase": "lp", "component": 1, "components": 1, "incumbent": 4, "bound": None, "memory_gb": 0}
    )
    assert view["gap"] is None


def test_the_summary_names_the_graph_its_bound_and_every_colour_class():
    graph = nx.cycle_graph(5)
    graph.graph["name"] = "C5"
    table = format_result(color_graph(graph, "exact"), graph, "exact", None).splitlines()
    assert table[0] == "graph        C5 (5 vertices, 5 edges)"
    assert table[2].startswith("lower bound  3 (root 3")
    assert table[6] == "pricing      no circuits"
    classes = [line.split()[2:] for line in table if line.startswith("colour ")]
    assert (
        sorted(v for members in classes for v in members) == ["0", "1", "2", "3", "4"] and len(classes) == 3
    )


def test_a_qaoa_run_reports_its_device_work():
    graph = nx.path_graph(3)
    result = color_graph(graph, "greedy")
    result.stats["sampler"] = {"circuits": 2, "shots": 2048, "quantum_seconds": 0.5}
    table = format_result(result, graph, "qaoa", "aer").splitlines()
    sampler = next(line for line in table if line.startswith("sampler"))
    assert "qaoa on aer: 2 circuits, 2048 shots, 0.500 quantum s, 0 fallbacks, 0 cut" in sampler
