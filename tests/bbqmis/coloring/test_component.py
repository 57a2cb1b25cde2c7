import networkx as nx
import pytest

from bbqmis.coloring.classical.sat import MAX_SAT_CLAUSES
from bbqmis.coloring.component import (
    SIZE_LIMIT,
    TREE_MAX_NODES,
    TREE_METHODS,
    ComponentOutcome,
    CoreState,
    SearchContext,
)
from bbqmis.coloring.limits import STOP_REASONS, Clock, Every, Limits
from bbqmis.coloring.pipeline import color_component
from bbqmis.coloring.samplers import ExactSampler
from bbqmis.coloring.tree.executors import SerialExecutor


def context():
    limits = Limits()
    return SearchContext(
        sampler=ExactSampler(),
        executor=SerialExecutor(),
        limits=limits,
        clock=Clock(limits),
        strategy="best-first",
        exhaustive=True,
        seed=0,
        report=lambda snapshot: None,
        save_tree=lambda tree: None,
        checkpoint_every=Every(3600.0),
    )


def test_outcomes_round_trip_through_json():
    graph = nx.mycielski_graph(4)
    ctx = context()
    outcome = color_component(graph, ctx)
    nodes = list(graph)
    back = ComponentOutcome.from_json(outcome.to_json({v: i for i, v in enumerate(nodes)}), nodes)
    assert back.coloring == outcome.coloring and back.lower_bound == outcome.lower_bound


def test_the_context_defaults_are_the_documented_shares_and_the_bbq_tree():
    ctx = context()
    assert (ctx.exact_share, ctx.lp_share, ctx.method, ctx.global_lower) == (0.3, 0.1, "bbq", 0)
    assert ctx.max_sat_clauses == MAX_SAT_CLAUSES and ctx.checkpoint_name == "checkpoint"


def test_only_tree_methods_count_as_searched():
    assert TREE_METHODS == ("search", "price")
    assert ComponentOutcome({}, 0, "search:time_limit").searched
    assert ComponentOutcome({}, 0, "price").searched and ComponentOutcome({}, 0, "price:node_limit").searched
    for how in ("bounds", "sat", "exact", "lp", "dominated", "easy:bipartite", "greedy:time_limit"):
        assert not ComponentOutcome({}, 0, how).searched, how


def test_the_size_limit_is_not_a_stop_reason():
    assert SIZE_LIMIT not in STOP_REASONS and TREE_MAX_NODES == 5000


def core_state(incumbent, lower, peeled=()):
    graph = nx.path_graph(5)
    core = graph.subgraph(range(3)).copy()
    return CoreState(graph, core, list(peeled), [0, 1], incumbent, "DSATUR", lower, {"peeled": len(peeled)})


@pytest.mark.parametrize(
    ("colors", "lower", "global_lower", "expected"),
    [(2, 2, 0, "sat"), (3, 2, 3, "dominated"), (3, 2, 2, None), (2, 3, 0, "sat")],
)
def test_a_core_is_settled_by_its_bound_or_by_another_component(colors, lower, global_lower, expected):
    state = core_state({0: 0, 1: 1, 2: colors - 1}, lower)
    state.settled = "stale"
    state.settle(global_lower, "sat")
    assert state.colors == colors and state.settled == expected


def test_the_outcome_colours_the_peeled_vertices_back_without_a_new_colour():
    state = core_state({0: 0, 1: 1, 2: 0}, 2, peeled=[3, 4])
    outcome = state.outcome("bounds")
    assert set(outcome.coloring) == {0, 1, 2, 3, 4} and outcome.num_colors == 2
    assert all(outcome.coloring[u] != outcome.coloring[v] for u, v in state.graph.edges)
    assert (outcome.lower_bound, outcome.how, outcome.stopped, outcome.stats) == (
        2,
        "bounds",
        None,
        {"peeled": 2},
    )
    stopped = state.outcome("greedy:time_limit", "time_limit")
    assert stopped.stopped == "time_limit" and stopped.coloring == outcome.coloring


def test_the_sparse_adjacency_is_the_cores_and_built_once():
    state = core_state({0: 0, 1: 1, 2: 0}, 2)
    assert state.sparse is state.sparse
    assert state.sparse.shape == (3, 3) and state.sparse.nnz == 4
