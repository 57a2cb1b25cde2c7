"""Worker-side node expansion (bbqmis.coloring.tree.expand)."""

import hashlib
import math
import pickle
import time

import networkx as nx
import pytest

from bbqmis.coloring.samplers import ExactSampler, GreedySampler
from bbqmis.coloring.tree.expand import Expansion, Task, branch_vertex, expand, stable_rank

NO_INCUMBENT = 10**6  # no child is pruned


def make_task(graph, sampler, *, depth=0, incumbent=NO_INCUMBENT, complete=False, exhaustive=True, **kw):
    return Task(
        graph=graph,
        depth=depth,
        bound=kw.pop("bound", depth),
        incumbent=incumbent,
        complete=complete,
        exhaustive=exhaustive,
        skip=kw.pop("skip", frozenset()),
        offset=kw.pop("offset", 0),
        sampler=sampler,
        seed=kw.pop("seed", 0),
        **kw,
    )


def is_maximal_independent(graph, nodes) -> bool:
    independent = not any(graph.has_edge(u, v) for u in nodes for v in nodes if u != v)
    return independent and all(v in nodes or set(graph[v]) & nodes for v in graph)


def classes_through(graph, v) -> set[frozenset]:
    """Every maximal independent set of ``graph`` containing ``v``: ``{v} | S`` for S maximal in H - N[v]."""
    rest = graph.subgraph(set(graph) - set(graph[v]) - {v})
    if rest.number_of_nodes() == 0:
        return {frozenset({v})}
    return {frozenset(c) | {v} for c in nx.find_cliques(nx.complement(rest))}


def nonempty(graphs, count, seed, **kw):
    return [g for g in graphs(count, seed=seed, **kw) if g.number_of_nodes()]


# -- exhaustive branching ------------------------------------------------------------------
def test_exhaustive_sampler_generates_every_maximal_set_through_the_branching_vertex(graphs):
    for graph in nonempty(graphs, 12, seed=51):
        result = expand(make_task(graph, ExactSampler(), depth=2))
        v = branch_vertex(graph)
        assert isinstance(result, Expansion)
        assert result.next_offset is None and not result.timed_out
        # Every class is a child or pruned (the DSATUR completions lower the incumbent as they go).
        assert result.pruned + len(result.children) == len(classes_through(graph, v))
        assert {c for c, _ in result.children} <= classes_through(graph, v)
        for color_class, _ in result.children:
            assert v in color_class and is_maximal_independent(graph, color_class)


def test_child_bounds_lie_between_depth_plus_one_and_a_colouring_of_the_rest(graphs):
    for graph in nonempty(graphs, 12, seed=52):
        depth = 3
        for color_class, bound in expand(make_task(graph, ExactSampler(), depth=depth)).children:
            rest = graph.subgraph(set(graph) - color_class)
            assert bound >= depth + 1 + (rest.number_of_nodes() > 0) + (rest.number_of_edges() > 0)
            colors = len(set(nx.greedy_color(rest, strategy="DSATUR").values()))
            assert bound <= depth + 1 + colors  # a lower bound never exceeds a colouring


def test_completion_is_a_proper_colouring_of_the_rest_that_beats_the_incumbent(graphs):
    found = 0
    for graph in nonempty(graphs, 12, seed=53):
        depth, incumbent = 1, graph.number_of_nodes() + 2
        result = expand(make_task(graph, ExactSampler(), depth=depth, incumbent=incumbent))
        if result.completion is None:
            continue
        found += 1
        color_class, rest = result.completion
        assert color_class in {c for c, _ in result.children}
        assert set(rest) == set(graph) - color_class
        rest_graph = graph.subgraph(rest)
        assert all(rest[u] != rest[w] for u, w in rest_graph.edges)
        assert depth + 1 + len(set(rest.values())) < incumbent
    assert found  # an incumbent of n + 2 colours is always beaten


def test_pruning_keeps_only_children_below_the_incumbent(graphs):
    for graph in nonempty(graphs, 12, seed=54, max_nodes=9):
        everything = expand(make_task(graph, ExactSampler()))
        incumbent = min((bound for _, bound in everything.children), default=1) + 1
        result = expand(make_task(graph, ExactSampler(), incumbent=incumbent))
        assert result.generated == everything.generated
        assert all(bound < incumbent for _, bound in result.children)
        assert result.pruned + len(result.children) == len(result.generated)
        assert result.pruned >= sum(bound >= incumbent for _, bound in everything.children)


def test_nothing_survives_an_incumbent_of_depth_plus_one():
    graph = nx.cycle_graph(7)
    result = expand(make_task(graph, ExactSampler(), depth=2, incumbent=3))
    assert result.children == [] and result.completion is None
    assert result.pruned == len(result.generated) == len(classes_through(graph, branch_vertex(graph)))


def test_skipped_classes_are_generated_but_not_children():
    graph = nx.petersen_graph()
    every = expand(make_task(graph, ExactSampler()))
    skip = frozenset(sorted(every.generated, key=sorted)[:3])
    result = expand(make_task(graph, ExactSampler(), skip=skip))
    assert result.generated == every.generated
    assert {c for c, _ in result.children} <= set(every.generated) - skip
    assert result.pruned + len(result.children) == len(every.generated) - len(skip)


def test_a_sampler_on_a_small_residual_is_completed_by_eager_enumeration(graphs):
    for graph in nonempty(graphs, 8, seed=55):
        result = expand(make_task(graph, GreedySampler(num_sets=2), seed=4))
        v = branch_vertex(graph)
        assert result.next_offset is None and set(result.generated) == classes_through(graph, v)


def test_a_sampler_on_a_large_residual_leaves_the_rest_to_a_completion_node():
    graph = nx.disjoint_union(nx.star_graph(5), nx.path_graph(20))  # H - N[centre] is P20
    v = branch_vertex(graph)
    assert v == 0
    result = expand(make_task(graph, GreedySampler(num_sets=4), seed=1))
    assert result.next_offset == 0
    assert 0 < len(result.generated) <= 4
    assert set(result.generated) < classes_through(graph, v)
    # The completion node enumerates exactly the sets not generated yet.
    completion = expand(make_task(graph, GreedySampler(num_sets=4), complete=True, skip=result.generated))
    assert completion.next_offset is None
    missing = classes_through(graph, v) - set(result.generated)
    assert {c for c, _ in completion.children} <= missing
    assert completion.pruned + len(completion.children) == len(missing)


def test_heuristic_branching_uses_the_sampled_sets_of_the_whole_graph():
    graph = nx.cycle_graph(6)
    sampler = GreedySampler(num_sets=8)
    result = expand(make_task(graph, sampler, exhaustive=False, seed=2))
    assert result.next_offset is None
    assert set(result.generated) == set(sampler.sample(graph, seed=2).sets)
    assert all(is_maximal_independent(graph, c) for c in result.generated)


def test_a_passed_deadline_bounds_nothing_and_says_so():
    graph = nx.petersen_graph()
    result = expand(make_task(graph, ExactSampler(), deadline=time.time() - 1.0))
    assert result.timed_out and result.next_offset == 0
    assert result.children == [] and result.generated == frozenset() and result.completion is None


def test_task_pickles_and_expands_the_same_in_another_process_image():
    task = make_task(nx.petersen_graph(), GreedySampler(num_sets=3), depth=1, seed=7, deadline=math.inf)
    clone = pickle.loads(pickle.dumps(task))
    first, second = expand(task), expand(clone)
    assert first.children == second.children and first.generated == second.generated


# -- branching vertex ----------------------------------------------------------------------
def test_stable_rank_is_a_48_bit_blake2b_of_the_repr():
    for v in [0, 17, "a", (1, "b")]:
        expected = int.from_bytes(hashlib.blake2b(repr(v).encode(), digest_size=6).digest(), "big")
        assert stable_rank(v) == expected < 2**48


def test_branch_vertex_has_the_largest_degree_ties_broken_by_the_smallest_rank(graphs):
    for graph in nonempty(graphs, 12, seed=56):
        v = branch_vertex(graph)
        top = max(d for _, d in graph.degree)
        tied = [u for u in graph if graph.degree(u) == top]
        assert graph.degree(v) == top and v == min(tied, key=stable_rank)


@pytest.mark.parametrize("order", [range(6), reversed(range(6))], ids=["forward", "reverse"])
def test_branch_vertex_does_not_depend_on_node_order(order):
    graph = nx.Graph()
    graph.add_nodes_from(order)
    graph.add_edges_from(nx.cycle_graph(6).edges)
    assert branch_vertex(graph) == min(range(6), key=stable_rank)
