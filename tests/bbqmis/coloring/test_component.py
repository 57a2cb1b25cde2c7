import networkx as nx

from bbqmis.coloring.component import ComponentOutcome, SearchContext, color_component
from bbqmis.coloring.executors import SerialExecutor
from bbqmis.coloring.limits import Clock, Every, Limits
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
