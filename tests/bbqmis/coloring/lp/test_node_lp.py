"""Tests of bbqmis.coloring.lp.node_lp: LP bounds at tree nodes over one shared column pool."""

import itertools
import time

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends.utils.errors import InvalidParameterError
from bbqmis.coloring import color_graph
from bbqmis.coloring.limits import Clock, Limits
from bbqmis.coloring.lp.lp_bound import lp_bound
from bbqmis.coloring.lp.master import bit_indices
from bbqmis.coloring.lp.node_lp import NodeLP
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.samplers import ExactSampler
from bbqmis.coloring.tree.executors import SerialExecutor
from bbqmis.coloring.tree.search import run_tree
from bbqmis.coloring.tree.tree import Node, SearchState, to_bits


def later(seconds=10.0):
    return time.perf_counter() + seconds


def is_maximal_independent(graph, mask):
    members = set(bit_indices(mask))
    independent = not any(graph.has_edge(u, v) for u, v in itertools.combinations(members, 2))
    return independent and all(any(graph.has_edge(v, u) for u in members) for v in set(graph) - members)


@pytest.mark.parametrize(
    ("graph", "chi_f_ceiling"),
    [(nx.cycle_graph(5), 3), (nx.petersen_graph(), 3), (nx.complete_graph(4), 4), (nx.path_graph(6), 2)],
)
def test_the_root_bound_is_the_ceiling_of_the_fractional_chromatic_number(graph, chi_f_ceiling):
    lp = NodeLP(graph, ("greedy",), seed=0)
    full = (1 << len(graph)) - 1
    assert lp.bound(full, 0, 0, chi_f_ceiling, elapsed=0.0, deadline=later()) == chi_f_ceiling


def test_a_node_bound_counts_the_colours_used_above_it():
    graph = nx.disjoint_union(nx.complete_graph(3), nx.cycle_graph(5))  # vertices 3..7 form C5
    lp = NodeLP(graph, ("greedy",), seed=0)
    residual = to_bits(range(3, 8))
    assert lp.bound(residual, 3, 3, 6, elapsed=0.0, deadline=later()) == 3 + 3


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    n=st.integers(3, 8),
    p=st.floats(0.2, 0.8),
    seed=st.integers(0, 10_000),
    keep=st.integers(1, 255),
)
def test_a_node_bound_never_exceeds_depth_plus_the_residual_chromatic_number(
    chromatic_number, n, p, seed, keep
):
    graph = nx.gnp_random_graph(n, p, seed=seed)
    residual = keep & ((1 << n) - 1) or 1
    chi = chromatic_number(graph.subgraph(bit_indices(residual)))
    lp = NodeLP(graph, ("greedy",), seed=seed)
    bound = lp.bound(residual, 2, 2, 2 + chi, elapsed=0.0, deadline=later())
    assert bound is not None and bound <= 2 + chi


def test_columns_priced_at_one_node_join_the_pool_as_maximal_sets_of_the_whole_graph():
    graph = nx.petersen_graph()
    lp = NodeLP(graph, ("greedy",), seed=0)
    assert len(lp.pool) == 0
    lp.bound(to_bits(range(1, 10)), 1, 1, 4, elapsed=0.0, deadline=later())
    assert len(lp.pool) > 0 and all(is_maximal_independent(graph, mask) for mask in lp.pool.masks)
    assert lp.stats["nodes"] == 1 and sum(lp.improving_columns.values()) >= 1


def test_classes_from_the_tree_seed_the_pool_once_each():
    graph = nx.cycle_graph(6)
    lp = NodeLP(graph, ("greedy",))
    lp.add_classes([to_bits({0, 2, 4}), to_bits({1, 3, 5}), to_bits({0, 2, 4})])
    assert lp.stats["columns_from_tree"] == 2 and len(lp.pool) == 2


def test_no_bound_when_the_residual_is_too_large_or_the_time_share_is_spent():
    graph = nx.petersen_graph()
    full = (1 << 10) - 1
    assert NodeLP(graph, ("greedy",), max_nodes=9).bound(full, 0, 0, 4, elapsed=0.0, deadline=later()) is None
    lp = NodeLP(graph, ("greedy",), share=0.0)
    lp.stats["seconds"] = 1.0  # more than the grace, and a zero share
    assert lp.bound(full, 0, 0, 4, elapsed=100.0, deadline=later()) is None
    assert NodeLP(graph, ("greedy",)).bound(full, 0, 0, 4, elapsed=0.0, deadline=time.perf_counter()) is None


def test_bad_parameters_are_named():
    with pytest.raises(InvalidParameterError, match="share"):
        NodeLP(nx.path_graph(3), ("greedy",), share=1.5)
    with pytest.raises(InvalidParameterError, match="max_nodes"):
        NodeLP(nx.path_graph(3), ("greedy",), max_nodes=0)


def test_lp_bound_stops_after_one_master_when_the_target_is_out_of_reach():
    result = lp_bound(nx.petersen_graph(), pricers=("greedy",), target=4, settle=True, quick=False, seed=0)
    assert result.status == "short" and result.rounds == 1 and result.bound <= 3


def test_the_tree_prunes_a_node_whose_lp_bound_meets_the_incumbent():
    graph = nx.cycle_graph(5)  # chi 3, chi_f 2.5: a bound of 2 at the root, 3 by LP
    limits = Limits()
    node_lp = NodeLP(graph, ("greedy",), seed=0)
    search = SearchState(
        graph,
        ExactSampler(),
        strategy="best-first",
        exhaustive=True,
        seed=0,
        clock=Clock(limits),
        node_lp=node_lp,
    )
    search.offer((to_bits({0, 2}), to_bits({1, 3}), to_bits({4})), "greedy")
    search.push(Node((), (1 << 5) - 1, 2))
    outcome = run_tree(search, SerialExecutor(), limits, 2)
    assert search.stats["nodes_explored"] == 0 and search.stats["lp_pruned"] == 1
    assert outcome.stop_reason == "exhausted" and outcome.lower_bound == 3 and node_lp.stats["raised"] == 1


@pytest.mark.timeout(120)
def test_color_graph_bounds_tree_nodes_by_lp_and_stays_exact():
    # chi 5; its vertices reversed, so that the Mycielskian bound (which follows the construction
    # order and would settle it at the root) stays at 3 and the tree searches
    myciel = nx.mycielski_graph(5)
    reversed_graph = nx.Graph()
    reversed_graph.add_nodes_from(reversed(list(myciel)))
    reversed_graph.add_edges_from(myciel.edges)
    graph = nx.convert_node_labels_to_integers(reversed_graph)
    result = color_graph(graph, "exact", exact_share=0.0, seed=0)
    verify_coloring(graph, result.coloring)
    assert result.num_colors == 5 and result.optimal
    node_lp = result.stats["node_lp"]
    assert node_lp["nodes"] >= 1 and node_lp["columns_from_tree"] >= 1
    assert result.stats["nodes_explored"] >= 1


def test_lp_share_zero_turns_node_lps_off():
    graph = nx.convert_node_labels_to_integers(nx.mycielski_graph(4))
    result = color_graph(graph, "exact", exact_share=0.0, lp_share=0.0, seed=0)
    assert result.num_colors == 4 and result.optimal and result.stats["node_lp"]["nodes"] == 0


def test_a_pricer_slower_than_the_node_time_box_is_left_out_and_timed_when_used():
    graph = nx.petersen_graph()
    full = (1 << 10) - 1
    slow = NodeLP(graph, ("anneal",), seed=0, pricer_stats={"anneal": {"calls": 1, "seconds": 60.0}})
    assert slow.bound(full, 0, 0, 3, elapsed=100.0, deadline=later()) == 3  # the exact pricer alone
    assert "anneal" not in slow.improving_columns and slow.pricer_time["anneal"] == [60.0, 1.0]
    fast = NodeLP(graph, ("anneal",), seed=0)
    assert fast.bound(full, 0, 0, 3, elapsed=100.0, deadline=later()) == 3
    assert fast.pricer_time["anneal"][1] >= 1 and fast.improving_columns["anneal"] >= 1
