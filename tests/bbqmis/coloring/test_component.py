import networkx as nx
import pytest

from bbqmis.coloring import component as component_module
from bbqmis.coloring.component import ComponentOutcome, SearchContext, color_component
from bbqmis.coloring.executors import SerialExecutor
from bbqmis.coloring.limits import Clock, Every, Limits
from bbqmis.coloring.reduce import easy_coloring
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.samplers import ExactSampler


def context(limits=None, global_lower=0, exact_share=0.0, **options):
    limits = limits or Limits()
    reports = []
    return SearchContext(
        sampler=ExactSampler(),
        executor=SerialExecutor(),
        limits=limits,
        clock=Clock(limits),
        strategy="best-first",
        exhaustive=True,
        seed=0,
        report=reports.append,
        save_tree=lambda tree: None,
        checkpoint_every=Every(3600.0),
        global_lower=global_lower,
        exact_share=exact_share,
        **options,
    ), reports


def test_an_easy_component_needs_no_search():
    ctx, reports = context()
    outcome = color_component(nx.cycle_graph(7), ctx)
    assert outcome.how == "easy:odd-cycle" and outcome.num_colors == outcome.lower_bound == 3
    assert reports == []


def test_a_component_is_searched_to_optimality_with_its_pendant_vertices_peeled():
    graph = nx.mycielski_graph(4)
    graph.add_edges_from([(0, 100), (100, 101)])  # a path that peeling removes
    ctx, reports = context()
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.how.startswith("search") and outcome.num_colors == outcome.lower_bound == 4
    assert outcome.stats["peeled"] == 2
    assert {r["phase"] for r in reports} >= {"clique", "bounds", "search"}


def test_a_component_within_another_components_bound_is_only_coloured_greedily():
    ctx, _ = context(global_lower=5)
    outcome = color_component(nx.mycielski_graph(4), ctx)
    assert outcome.how == "dominated" and outcome.num_colors <= 5


def test_a_time_limit_stops_the_tree_and_says_so():
    ctx, _ = context(Limits(time_limit=0.0))
    outcome = color_component(nx.mycielski_graph(5), ctx)
    verify_coloring(nx.mycielski_graph(5), outcome.coloring)
    assert outcome.stopped == "time_limit" and outcome.lower_bound < outcome.num_colors


def test_outcomes_round_trip_through_json():
    graph = nx.mycielski_graph(4)
    ctx, _ = context()
    outcome = color_component(graph, ctx)
    nodes = list(graph)
    back = ComponentOutcome.from_json(outcome.to_json({v: i for i, v in enumerate(nodes)}), nodes)
    assert back.coloring == outcome.coloring and back.lower_bound == outcome.lower_bound


def test_sat_settles_a_core_and_says_so():
    graph = nx.mycielski_graph(6)  # 47 vertices, chi 6: beyond a minute of DSATUR or tree
    ctx, reports = context(exact_share=0.5)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.how == "sat" and outcome.num_colors == outcome.lower_bound == 6
    sat = outcome.stats.get("sat", outcome.stats.get("sat_first"))  # the first second, or the rest
    assert sat["optimal"] and "search" not in {r["phase"] for r in reports}


def test_sat_keeps_the_time_limit_and_the_best_colouring():
    graph = nx.mycielski_graph(7)  # 95 vertices, chi 7: no SAT proof within a second
    ctx, _ = context(Limits(time_limit=1.5), exact_share=1.0)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.stats["sat_first"]["stopped"] == "time_limit" and outcome.lower_bound < 7
    assert ctx.clock.elapsed() < 1.5 + 2.0


def test_exact_dsatur_settles_a_small_core_when_sat_is_off():
    ctx, reports = context(exact_share=0.5, max_sat_clauses=0)
    outcome = color_component(nx.mycielski_graph(5), ctx)
    assert outcome.how == "exact" and outcome.num_colors == outcome.lower_bound == 5
    assert outcome.stats["exact"]["optimal"] and "search" not in {r["phase"] for r in reports}


def test_the_lp_bound_closes_the_gap_that_the_clique_leaves():
    from bbqmis import read_graph

    graph = read_graph("data/graphs/queen6_6.col")  # clique 6, chi 7 = ceil of the fractional bound
    ctx, reports = context()
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.how in ("lp", "bounds") and outcome.num_colors == outcome.lower_bound == 7
    assert outcome.stats["lp"]["bound"] == 7 and "search" not in {r["phase"] for r in reports}


# -- cores too large for the tree, and no time for more than a colouring ----------------------
#: Non-easy graphs whose bounds stay below the colours without a tree (the LP phase is off:
#: its bound would settle the random graph).
NOT_SETTLED = {
    "mycielski5": lambda: nx.mycielski_graph(5),
    "mycielski6": lambda: nx.mycielski_graph(6),
    "gnp30": lambda: nx.gnp_random_graph(30, 0.5, seed=0),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(NOT_SETTLED))
def test_a_core_larger_than_the_tree_limit_keeps_the_heuristic_colouring(name, monkeypatch):
    graph = NOT_SETTLED[name]()
    assert easy_coloring(graph) is None
    monkeypatch.setattr(component_module, "TREE_MAX_NODES", 5)
    ctx, reports = context(lp_share=0.0)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert set(outcome.coloring) == set(graph)
    assert outcome.how == "heuristic:size_limit" and outcome.stopped == "size_limit"
    assert not outcome.searched and "search" not in {r["phase"] for r in reports}
    assert graph.number_of_nodes() - outcome.stats["peeled"] > 5  # the core is over the limit
    assert outcome.stats["root_bounds"]["clique"] <= outcome.lower_bound < outcome.num_colors


@pytest.mark.timeout(120)
def test_the_tree_limit_is_the_largest_core_that_is_searched(monkeypatch):
    graph = nx.mycielski_graph(5)  # 23 vertices, no pendant vertex: the core is the graph
    limits = Limits(node_limit=30)  # a short tree: only whether it starts matters
    monkeypatch.setattr(component_module, "TREE_MAX_NODES", graph.number_of_nodes())
    at, _ = context(limits, lp_share=0.0)
    searched = color_component(graph, at)
    assert searched.searched and searched.stats["peeled"] == 0
    verify_coloring(graph, searched.coloring)
    monkeypatch.setattr(component_module, "TREE_MAX_NODES", graph.number_of_nodes() - 1)
    below, _ = context(limits, lp_share=0.0)
    assert color_component(graph, below).how == "heuristic:size_limit"


@pytest.mark.timeout(120)
def test_a_size_limited_component_does_not_end_the_search_of_the_others(monkeypatch):
    from bbqmis import color_graph

    big, small = nx.mycielski_graph(5), nx.mycielski_graph(4)  # 23 and 11 vertices
    graph = nx.disjoint_union(big, small)
    monkeypatch.setattr(component_module, "TREE_MAX_NODES", 15)  # between the two cores
    result = color_graph(graph, "exact", exact_share=0.0, lp_share=0.0, seed=0)
    verify_coloring(graph, result.coloring)
    assert set(result.coloring) == set(graph)
    assert result.stopped == "size_limit" == result.stats["stop_reason"] and not result.optimal
    first, second = result.stats["searched"]
    assert first["how"] == "heuristic:size_limit"
    assert second["how"] != "skipped" and second["how"].partition(":")[0] == "search"
    small_vertices = range(big.number_of_nodes(), graph.number_of_nodes())
    assert len({result.coloring[v] for v in small_vertices}) == second["colors"] == second["lower_bound"]
    assert result.lower_bound >= second["lower_bound"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(NOT_SETTLED))
def test_an_expired_clock_ends_the_component_with_its_greedy_colouring(name):
    graph = NOT_SETTLED[name]()
    ctx, reports = context(Limits(time_limit=0.0), lp_share=0.0)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert set(outcome.coloring) == set(graph)
    assert outcome.how == "greedy:time_limit" and outcome.stopped == "time_limit"
    assert outcome.lower_bound <= outcome.num_colors == outcome.stats["initial_colors"]
    assert {r["phase"] for r in reports} == {"clique", "bounds"}  # nothing after the first colourings
