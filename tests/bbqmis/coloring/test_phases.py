import time

import networkx as nx
import pytest

from bbqmis.coloring import phases
from bbqmis.coloring.classical.mycielski import check_witness
from bbqmis.coloring.component import CoreState, SearchContext
from bbqmis.coloring.limits import Clock, Every, Limits
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.samplers import ExactSampler, GreedySampler
from bbqmis.coloring.tree.executors import SerialExecutor


def context(sampler=None, limits=None, **options):
    limits = limits or Limits(time_limit=60)
    reports = []
    ctx = SearchContext(
        sampler=sampler or ExactSampler(),
        executor=SerialExecutor(),
        limits=limits,
        clock=Clock(limits),
        strategy="best-first",
        exhaustive=True,
        seed=0,
        report=reports.append,
        save_tree=lambda tree: None,
        checkpoint_every=Every(3600.0),
        **options,
    )
    return ctx, reports


def greedy_state(graph, lower=2):
    return CoreState(graph, graph, [], [0, 1], nx.greedy_color(graph), "greedy", lower, {})


def test_reduce_phase_peels_around_the_clique_and_bounds_the_core():
    graph = nx.mycielski_graph(4)  # 11 vertices, no triangle, chi 4
    graph.add_edges_from([(0, 20), (20, 21)])  # a tail that peeling removes
    ctx, reports = context()
    state = phases.reduce_phase(graph, ctx)
    assert [r["phase"] for r in reports] == ["clique", "bounds"]
    assert set(state.peeled) == {20, 21} and set(state.core) == set(range(11))
    assert state.stats["root_bounds"]["clique"] == 2
    assert state.lower == state.stats["root_bounds"]["mycielski"] == 4  # the Groetzsch graph, rebuilt
    assert state.stats["mycielski"] == {**state.stats["mycielski"], "bound": 4, "clique": 2, "levels": 2}
    assert check_witness(state.core, state.mycielski) == 4
    assert state.stats["initial_colors"] == state.colors >= 4
    assert state.settled == ("bounds" if state.colors == 4 else None)
    verify_coloring(state.core, state.incumbent)


def test_reduce_phase_settles_a_core_whose_colouring_meets_the_clique():
    ctx, _ = context(global_lower=0)
    state = phases.reduce_phase(nx.complete_graph(5), ctx)
    assert state.lower == state.colors == 5 and state.settled == "bounds"


def test_reduce_phase_calls_a_core_dominated_by_another_component():
    ctx, _ = context(global_lower=10)
    state = phases.reduce_phase(nx.chvatal_graph(), ctx)  # chi 4, bounds 3
    assert state.lower < state.colors <= 10 and state.settled == "dominated"


def test_the_exact_deadline_is_the_exact_share_of_the_time_left_at_most_a_minute():
    ctx, _ = context(limits=Limits(time_limit=1000), exact_share=0.5)
    assert 59 < phases.exact_deadline(ctx) - time.perf_counter() <= 60
    ctx, _ = context(limits=Limits(time_limit=10), exact_share=0.5)
    assert 4 < phases.exact_deadline(ctx) - time.perf_counter() <= 5


def test_sat_phase_proves_the_chromatic_number_and_credits_sat():
    graph = nx.mycielski_graph(4)
    state = greedy_state(graph)
    before = state.colors
    ctx, reports = context()
    phases.sat_phase(state, ctx, time.perf_counter() + 30)
    assert reports == [{"phase": "sat", "incumbent": before, "bound": 2}]
    assert state.lower == state.colors == 4 and state.settled == "sat"
    assert state.stats["sat_first"]["optimal"]
    verify_coloring(graph, state.incumbent)


def test_sat_phase_is_skipped_when_the_encoding_is_too_large():
    state = greedy_state(nx.mycielski_graph(4))
    ctx, reports = context(max_sat_clauses=0)
    phases.sat_phase(state, ctx, time.perf_counter() + 30)
    assert reports == [] and "sat_first" not in state.stats and state.settled is None


def test_tabucol_phase_lowers_the_incumbent_to_the_bound():
    graph = nx.cycle_graph(8)
    state = CoreState(graph, graph, [], [0, 1], {v: v % 4 for v in graph}, "greedy", 2, {})
    ctx, reports = context()
    phases.tabucol_phase(state, ctx)
    assert reports == [{"phase": "local", "incumbent": 4, "bound": 2}]
    assert state.colors == state.stats["tabucol_colors"] == 2
    assert state.source == "tabucol" and state.settled == "bounds"
    verify_coloring(graph, state.incumbent)


def test_exact_phase_runs_dsatur_when_sat_is_too_large():
    graph = nx.mycielski_graph(4)
    state = greedy_state(graph)
    ctx, reports = context(max_sat_clauses=0)
    phases.exact_phase(state, ctx, time.perf_counter() + 30)
    assert reports[0]["phase"] == "exact"
    assert state.stats["exact"]["optimal"] and state.lower == state.colors == 4
    assert state.settled == "exact"


def test_exact_phase_does_nothing_on_a_core_too_large_for_dsatur_and_sat():
    graph = nx.gnp_random_graph(phases.EXACT_MAX_NODES + 1, 0.05, seed=0)
    state = greedy_state(graph)
    ctx, reports = context(max_sat_clauses=0)
    phases.exact_phase(state, ctx, time.perf_counter() + 30)
    assert reports == [] and "exact" not in state.stats and "sat" not in state.stats


def test_lp_phase_raises_the_bound_and_keeps_its_columns():
    graph = nx.mycielski_graph(4)  # fractional chromatic number 2.9
    state = greedy_state(graph, lower=2)
    ctx, reports = context(GreedySampler(), lp_share=0.5)
    phases.lp_phase(state, ctx)
    assert reports[0]["phase"] == "lp"
    assert state.lower == state.stats["lp"]["bound"] == 3 and state.settled is None
    assert state.columns and all(nx.is_empty(graph.subgraph(c)) for c in state.columns)
    assert "greedy" in state.pricer_stats and state.stats["lp"]["device"]["circuits"] == 0


@pytest.mark.parametrize("method", ["tree", "price"])
def test_the_trees_prove_what_the_bounds_could_not(method):
    graph = nx.mycielski_graph(4)
    state = greedy_state(graph)
    ctx, reports = context(GreedySampler() if method == "price" else None)
    run = phases.tree_phase if method == "tree" else phases.price_phase
    outcome = run(state, ctx, None)
    verify_coloring(graph, outcome.coloring)
    assert outcome.num_colors == outcome.lower_bound == 4 and outcome.stopped is None and outcome.searched
    assert outcome.stats["nodes_explored"] > 0
    assert {"search" if method == "tree" else "price"} <= {r["phase"] for r in reports}
