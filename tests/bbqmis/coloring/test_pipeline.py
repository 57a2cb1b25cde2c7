import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import networkx as nx
import pytest

from bbqmis import InvalidParameterError, SearchError, color_graph, read_graph, verify_coloring
from bbqmis.coloring import phases
from bbqmis.coloring import pipeline as pipeline_module
from bbqmis.coloring.classical.mycielski import MycielskiWitness
from bbqmis.coloring.classical.reduce import easy_coloring
from bbqmis.coloring.component import SearchContext
from bbqmis.coloring.limits import Clock, Every, Limits, resident_memory_gb
from bbqmis.coloring.pipeline import color_component
from bbqmis.coloring.result import ColoringResult
from bbqmis.coloring.samplers import ExactSampler
from bbqmis.coloring.tree.executors import SerialExecutor

DATA = "data/graphs"


@pytest.fixture
def weak_bounds(monkeypatch):
    """No Mycielskian bound: these tests need cores whose bounds stay below chi.

    The Mycielskian bound proves the chromatic number of every Mycielski graph at the root
    (``test_the_mycielskian_bound_settles_mycielski_graphs_at_the_root``), so the tests
    that use those graphs to exercise SAT, the trees and the limits switch it off.
    """
    monkeypatch.setattr(
        phases, "mycielski_bound", lambda graph, cliques=(), **options: MycielskiWitness((), ())
    )


def check(graph: nx.Graph, result: ColoringResult, chi: int) -> None:
    labels = {v: graph.nodes[v].get("label", v) for v in graph}
    verify_coloring(graph, {v: result.coloring[labels[v]] for v in graph})
    assert len(set(result.coloring.values())) == result.num_colors
    assert result.lower_bound <= chi <= result.num_colors
    if result.optimal:
        assert result.num_colors == chi == result.lower_bound


KNOWN = [
    *((f"K{n}", nx.complete_graph(n), n) for n in range(1, 6)),
    ("C7", nx.cycle_graph(7), 3),
    ("C8", nx.cycle_graph(8), 2),
    ("bipartite", nx.bipartite.random_graph(6, 7, 0.5, seed=3), 2),
    *((f"mycielski{k}", nx.mycielski_graph(k), k) for k in range(2, 6)),
    ("petersen", nx.petersen_graph(), 3),
]


@pytest.mark.parametrize("sampler", ["exact", "greedy", "anneal"])
@pytest.mark.parametrize(("name", "graph", "chi"), KNOWN, ids=[k[0] for k in KNOWN])
def test_known_chromatic_numbers_are_proven(name, graph, chi, sampler):
    result = color_graph(graph, sampler=sampler, seed=0)
    check(graph, result, chi)
    assert result.optimal and result.num_colors == chi


def test_qaoa_sampler_proves_small_graphs():
    for graph, chi in [(nx.mycielski_graph(4), 4), (nx.cycle_graph(5), 3)]:
        result = color_graph(graph, sampler="qaoa", seed=1)
        check(graph, result, chi)
        assert result.optimal


def test_random_graphs_against_brute_force(graphs, chromatic_number):
    for graph in graphs(12, seed=21, max_nodes=8):
        chi = chromatic_number(graph)
        result = color_graph(graph, sampler="exact", seed=2)
        check(graph, result, chi)
        assert result.optimal and result.num_colors == chi


@pytest.mark.parametrize(
    ("name", "chi"), [("myciel3", 4), ("myciel4", 5), ("queen5_5", 5), ("huck", 11), ("anna", 11)]
)
def test_bundled_dimacs_graphs_are_proven_exactly(name, chi):
    graph = read_graph(f"{DATA}/{name}.col")
    result = color_graph(graph, sampler="exact", seed=0, time_limit=120)
    check(graph, result, chi)
    assert result.optimal and result.num_colors == chi
    # Keyed by the original DIMACS labels 1..n.
    assert sorted(result.coloring) == list(range(1, graph.number_of_nodes() + 1))


def test_depth_first_strategy_gives_the_same_answer():
    graph = nx.mycielski_graph(5)
    result = color_graph(graph, sampler="exact", strategy="depth-first", seed=0)
    assert result.optimal and result.num_colors == 5


@pytest.mark.usefixtures("weak_bounds")
def test_node_limit_returns_best_colouring_without_claiming_optimality():
    graph = nx.mycielski_graph(6)  # chi = 6, bounds give 3 at the root
    result = color_graph(graph, sampler="exact", node_limit=3, seed=0, exact_share=0)
    check(graph, result, 6)
    assert not result.optimal
    assert result.stats["stop_reason"] == "node_limit"
    assert result.stats["nodes_explored"] == 3
    assert result.stats["open_nodes"] > 0


@pytest.mark.usefixtures("weak_bounds")
def test_time_limit_stops_the_search():
    graph = nx.mycielski_graph(7)  # 95 vertices, chi 7: neither SAT nor the tree proves it in a second
    result = color_graph(graph, sampler="exact", time_limit=1.0, seed=0)
    assert result.stats["stop_reason"] == "time_limit"
    assert result.stats["seconds"] < 10
    check(graph, result, 7)


@pytest.mark.usefixtures("weak_bounds")
def test_heuristic_mode_never_claims_what_it_cannot_prove():
    graph = nx.mycielski_graph(5)  # root lower bound 3 < chi = 5
    result = color_graph(graph, sampler="greedy", exhaustive=False, seed=0)
    check(graph, result, 5)
    # Its bound comes from the root's bounds and the LP, never from the unfinished tree.
    assert not result.optimal and result.stats["root_lower_bound"] <= result.lower_bound < 5
    assert result.stats["exhaustive"] is False


def test_bounds_met_at_the_root_needs_no_search():
    result = color_graph(nx.complete_graph(6), sampler="exact")
    assert result.optimal and result.stats["stop_reason"] == "bounds_met"
    assert result.stats["nodes_explored"] == 0


def test_result_json_has_exactly_the_documented_keys():
    graph = nx.relabel_nodes(nx.cycle_graph(5), {i: f"v{i}" for i in range(5)})
    result = color_graph(graph, sampler="exact")
    data = json.loads(json.dumps(result.to_json()))
    assert set(data) == {"coloring", "num_colors", "lower_bound", "optimal", "stopped", "stats"}
    assert set(data["coloring"]) == {f"v{i}" for i in range(5)}
    assert data["num_colors"] == 3 and data["optimal"] is True


def test_empty_graph():
    result = color_graph(nx.Graph(), sampler="exact")
    assert (result.num_colors, result.lower_bound, result.optimal, result.coloring) == (0, 0, True, {})


@pytest.mark.parametrize(
    ("graph", "kwargs", "message"),
    [
        (nx.DiGraph([(0, 1)]), {}, "graph must be an undirected simple networkx.Graph"),
        (nx.Graph([(0, 0)]), {}, "graph has a self-loop at 0: it cannot be coloured"),
        (
            nx.path_graph(3),
            {"strategy": "random"},
            "strategy must be one of 'best-first', 'depth-first'; got 'random'",
        ),
        (nx.path_graph(3), {"node_limit": 0}, "node_limit must be a positive integer, got 0"),
        (nx.path_graph(3), {"sampler": "magic"}, "sampler must be one of"),
    ],
)
def test_bad_input_is_rejected(graph, kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        color_graph(graph, **{"sampler": "exact", **kwargs})


@pytest.mark.usefixtures("weak_bounds")
def test_checkpoint_and_resume_continue_the_search(tmp_path):
    graph = nx.mycielski_graph(5)
    path = tmp_path / "search.ckpt"
    first = color_graph(graph, sampler="exact", node_limit=2, checkpoint=path, seed=0, exact_share=0)
    tree = json.loads(path.read_text())["search"]["tree"]
    assert tree["stats"]["nodes_explored"] == 2 and tree["open"]
    resumed = color_graph(graph, sampler="exact", checkpoint=path, resume=True, seed=0, exact_share=0)
    assert resumed.optimal and resumed.num_colors == 5
    assert resumed.stats["nodes_explored"] > first.stats["nodes_explored"]
    assert resumed.stats["incumbents"][: len(first.stats["incumbents"])] == first.stats["incumbents"]


def test_resume_refuses_a_checkpoint_of_another_graph(tmp_path):
    path = tmp_path / "search.ckpt"
    color_graph(nx.mycielski_graph(4), sampler="exact", node_limit=1, checkpoint=path)
    with pytest.raises(SearchError, match="checkpoint belongs to another graph"):
        color_graph(nx.cycle_graph(5), sampler="exact", checkpoint=path, resume=True)


@pytest.mark.slow
def test_process_pool_gives_the_same_number_of_colours():
    graph = read_graph(f"{DATA}/myciel4.col")
    serial = color_graph(graph, sampler="exact", seed=0)
    with ProcessPoolExecutor(max_workers=2) as pool:
        parallel = color_graph(graph, sampler="exact", executor=pool, seed=0)
    check(graph, parallel, 5)
    assert parallel.optimal and parallel.num_colors == serial.num_colors == 5


# -- limits hold in every phase, on real graphs (issue: time limit, memory, components) -----
@pytest.mark.slow
@pytest.mark.parametrize(
    ("graph", "exhaustive"),
    [(nx.gnp_random_graph(150, 0.9, seed=1), True), (nx.gnp_random_graph(200, 0.5, seed=1), False)],
    ids=["gnp150-0.9-exact", "gnp200-0.5-heuristic"],
)
def test_a_time_limit_holds_within_two_seconds_and_keeps_the_best_colouring(graph, exhaustive):
    start = time.perf_counter()
    result = color_graph(graph, sampler="exact", time_limit=5.0, exhaustive=exhaustive, seed=0)
    assert time.perf_counter() - start <= 5.0 + 2.0
    verify_coloring(graph, result.coloring)
    assert result.stopped == "time_limit" and not result.optimal
    assert result.lower_bound < result.num_colors and result.stats["stop_reason"] == "time_limit"


@pytest.mark.slow
def test_the_tree_on_dsjc125_1_stays_within_its_memory_limit():
    graph = read_graph(Path(DATA) / "DSJC125.1.col")
    limit = resident_memory_gb() + 0.25
    # The root is expanded within 2 s and the next node is not done after 20 s: a run of 5 s ends
    # in the state that one of 20 s ended in (one node explored, one open).
    result = color_graph(graph, sampler="exact", exact_share=0, memory_limit=limit, time_limit=5, seed=0)
    verify_coloring(graph, {v: result.coloring[graph.nodes[v]["label"]] for v in graph})
    assert resident_memory_gb() <= limit
    assert result.optimal or result.stopped in ("time_limit", "memory_limit")
    assert result.stats["nodes_explored"] >= 1  # the tree searched


@pytest.mark.slow
def test_dsjc125_1_is_proven_five_colourable_and_no_less():
    graph = read_graph(Path(DATA) / "DSJC125.1.col")
    result = color_graph(graph, sampler="exact", time_limit=120, seed=0)
    assert result.optimal and result.num_colors == 5 and result.stopped is None


@pytest.mark.timeout(60)
def test_components_are_coloured_apart_and_an_edgeless_graph_needs_no_search():
    graph = nx.disjoint_union_all([nx.mycielski_graph(5), nx.mycielski_graph(4), nx.cycle_graph(7)])
    result = color_graph(graph, sampler="exact", seed=0)
    assert result.optimal and result.num_colors == 5 and result.stats["components"] == 3
    edgeless = color_graph(nx.empty_graph(20_000), sampler="exact")
    assert edgeless.optimal and edgeless.num_colors == 1 and edgeless.stats["nodes_explored"] == 0


def test_the_time_limit_holds_between_many_components_and_easy_ones_stay_exact():
    graph = nx.disjoint_union_all([nx.mycielski_graph(4)] * 300 + [nx.complete_graph(3)])
    result = color_graph(graph, "greedy", time_limit=0.0)
    verify_coloring(graph, result.coloring)
    assert result.stopped == "time_limit" and not result.optimal and result.stats["seconds"] < 5.0
    assert result.lower_bound == 3  # the triangle is settled at no cost, limit or not


def test_components_skipped_for_the_time_limit_still_prove_what_an_edge_proves():
    graph = nx.disjoint_union_all([nx.mycielski_graph(4), nx.mycielski_graph(5)])
    result = color_graph(graph, "greedy", time_limit=0.0)
    verify_coloring(graph, result.coloring)
    assert result.stats["searched"] == []  # nothing searched: both skipped
    assert result.stopped == "time_limit" and result.lower_bound == 2 < result.num_colors
    # their greedy colourings and bounds are the run's first colouring and root bound
    assert result.stats["initial_colors"] == result.num_colors
    assert result.stats["root_lower_bound"] == result.lower_bound == 2


def test_a_run_stopped_before_its_last_components_resumes_from_its_checkpoint(tmp_path):
    parts = [nx.mycielski_graph(5), nx.mycielski_graph(4), nx.mycielski_graph(4)]
    graph = nx.disjoint_union_all(parts)
    checkpoint = tmp_path / "run.ckpt"
    first = color_graph(graph, "exact", time_limit=0.0, checkpoint=checkpoint)
    assert first.stopped == "time_limit"
    resumed = color_graph(graph, "exact", checkpoint=checkpoint, resume=True)
    verify_coloring(graph, resumed.coloring)
    assert resumed.optimal and resumed.num_colors == 5


@pytest.mark.parametrize("method", ["bbq", "price"])
def test_the_graph_is_left_as_it_was(method):
    # A connected graph is its own component (not copied), and a core without peeled
    # vertices is that graph: no phase may change it.
    graph = nx.mycielski_graph(5)
    nx.set_node_attributes(graph, {v: f"v{v}" for v in graph}, "label")
    before = (list(graph.nodes(data=True)), sorted(graph.edges(data=True)), dict(graph.graph))
    result = color_graph(graph, "exact", method=method, seed=0)
    assert result.optimal and result.num_colors == 5
    assert (list(graph.nodes(data=True)), sorted(graph.edges(data=True)), dict(graph.graph)) == before


# -- color_component: one component's phases in order ----------------------------------------


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


@pytest.mark.usefixtures("weak_bounds")
def test_a_component_is_searched_to_optimality_with_its_pendant_vertices_peeled():
    graph = nx.mycielski_graph(4)
    graph.add_edges_from([(0, 100), (100, 101)])  # a path that peeling removes
    ctx, reports = context()
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.how.startswith("search") and outcome.num_colors == outcome.lower_bound == 4
    assert outcome.stats["peeled"] == 2
    assert {r["phase"] for r in reports} >= {"clique", "bounds", "search"}


@pytest.mark.usefixtures("weak_bounds")
def test_a_component_within_another_components_bound_is_only_coloured_greedily():
    ctx, _ = context(global_lower=5)
    outcome = color_component(nx.mycielski_graph(4), ctx)
    assert outcome.how == "dominated" and outcome.num_colors <= 5


def test_a_time_limit_stops_the_tree_and_says_so():
    ctx, _ = context(Limits(time_limit=0.0))
    outcome = color_component(nx.mycielski_graph(5), ctx)
    verify_coloring(nx.mycielski_graph(5), outcome.coloring)
    assert outcome.stopped == "time_limit" and outcome.lower_bound < outcome.num_colors


@pytest.mark.usefixtures("weak_bounds")
def test_sat_settles_a_core_and_says_so():
    graph = nx.mycielski_graph(6)  # 47 vertices, chi 6: beyond a minute of DSATUR or tree
    ctx, reports = context(exact_share=0.5)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.how == "sat" and outcome.num_colors == outcome.lower_bound == 6
    sat = outcome.stats.get("sat", outcome.stats.get("sat_first"))  # the first second, or the rest
    assert sat["optimal"] and "search" not in {r["phase"] for r in reports}


@pytest.mark.usefixtures("weak_bounds")
def test_sat_keeps_the_time_limit_and_the_best_colouring():
    graph = nx.mycielski_graph(7)  # 95 vertices, chi 7: no SAT proof within a second
    ctx, _ = context(Limits(time_limit=1.5), exact_share=1.0)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert outcome.stats["sat_first"]["stopped"] == "time_limit" and outcome.lower_bound < 7
    assert ctx.clock.elapsed() < 1.5 + 2.0


@pytest.mark.usefixtures("weak_bounds")
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
@pytest.mark.usefixtures("weak_bounds")
def test_a_core_larger_than_the_tree_limit_keeps_the_heuristic_colouring(name, monkeypatch):
    graph = NOT_SETTLED[name]()
    assert easy_coloring(graph) is None
    monkeypatch.setattr(pipeline_module, "TREE_MAX_NODES", 5)
    ctx, reports = context(lp_share=0.0)
    outcome = color_component(graph, ctx)
    verify_coloring(graph, outcome.coloring)
    assert set(outcome.coloring) == set(graph)
    assert outcome.how == "heuristic:size_limit" and outcome.stopped == "size_limit"
    assert not outcome.searched and "search" not in {r["phase"] for r in reports}
    assert graph.number_of_nodes() - outcome.stats["peeled"] > 5  # the core is over the limit
    assert outcome.stats["root_bounds"]["clique"] <= outcome.lower_bound < outcome.num_colors


@pytest.mark.timeout(120)
@pytest.mark.usefixtures("weak_bounds")
def test_the_tree_limit_is_the_largest_core_that_is_searched(monkeypatch):
    graph = nx.mycielski_graph(5)  # 23 vertices, no pendant vertex: the core is the graph
    limits = Limits(node_limit=30)  # a short tree: only whether it starts matters
    monkeypatch.setattr(pipeline_module, "TREE_MAX_NODES", graph.number_of_nodes())
    at, _ = context(limits, lp_share=0.0)
    searched = color_component(graph, at)
    assert searched.searched and searched.stats["peeled"] == 0
    verify_coloring(graph, searched.coloring)
    monkeypatch.setattr(pipeline_module, "TREE_MAX_NODES", graph.number_of_nodes() - 1)
    below, _ = context(limits, lp_share=0.0)
    assert color_component(graph, below).how == "heuristic:size_limit"


@pytest.mark.timeout(120)
@pytest.mark.usefixtures("weak_bounds")
def test_a_size_limited_component_does_not_end_the_search_of_the_others(monkeypatch):
    from bbqmis import color_graph

    big, small = nx.mycielski_graph(5), nx.mycielski_graph(4)  # 23 and 11 vertices
    graph = nx.disjoint_union(big, small)
    monkeypatch.setattr(pipeline_module, "TREE_MAX_NODES", 15)  # between the two cores
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


@pytest.mark.timeout(60)
@pytest.mark.parametrize("k", [5, 6, 7])
def test_the_mycielskian_bound_settles_mycielski_graphs_at_the_root(k):
    graph = read_graph(f"{DATA}/myciel{k}.col")  # chi k + 1, clique number 2
    result = color_graph(graph, sampler="exact", seed=0, time_limit=60)
    check(graph, result, k + 1)
    assert result.optimal and result.num_colors == k + 1
    assert result.stats["stop_reason"] == "bounds_met" and result.stats["nodes_explored"] == 0


@pytest.mark.timeout(120)
def test_without_the_mycielskian_bound_the_tree_proves_a_mycielski_graph():
    graph = read_graph(f"{DATA}/myciel4.col")  # chi 5, clique number 2
    settings = {"sampler": "exact", "seed": 0, "time_limit": 60, "exact_share": 0.0, "lp_share": 0.0}
    bound = color_graph(graph, **settings)
    tree = color_graph(graph, **settings, mycielski=False)
    for result in (bound, tree):
        check(graph, result, 5)
        assert result.optimal
    assert bound.stats["nodes_explored"] == 0 and tree.stats["nodes_explored"] > 0
    assert tree.stats["root_lower_bound"] < bound.stats["root_lower_bound"] == 5
