"""The manager's search tree: queue, incumbent, seen residuals (bbqmis.coloring.tree.tree)."""

import math

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bbqmis.coloring.limits import Clock, Limits
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.samplers import ExactSampler, GreedySampler
from bbqmis.coloring.tree.expand import Expansion, expand
from bbqmis.coloring.tree.tree import STRATEGIES, Node, SearchState, from_bits, progress_snapshot, to_bits
from bbqmis.samples import new_stats


def state(graph=None, *, strategy="best-first", exhaustive=True, seed=0, sampler=None, before=0.0):
    return SearchState(
        nx.path_graph(5) if graph is None else graph,
        ExactSampler() if sampler is None else sampler,
        strategy=strategy,
        exhaustive=exhaustive,
        seed=seed,
        clock=Clock(Limits(), before=before),
    )


def node(name, depth, bound, complete=False):
    """A node whose classes are ``depth`` single vertices; ``name`` is kept in the residual's high bits."""
    return Node(tuple(1 << i for i in range(depth)), name << 10, bound, complete)


def expansion(children=(), *, generated=None, completion=None, all_children=True, pruned=0):
    children = [(frozenset(c), b) for c, b in children]
    generated = (
        frozenset(c for c, _ in children) if generated is None else frozenset(map(frozenset, generated))
    )
    next_offset = None if all_children else 0
    return Expansion(children, generated, next_offset, completion, pruned, new_stats(calls=1))


# -- bitsets -------------------------------------------------------------------------------
@given(st.sets(st.integers(0, 300)))
def test_bitsets_round_trip(vertices):
    bits = to_bits(vertices)
    assert from_bits(bits) == sorted(vertices)
    assert bits.bit_count() == len(vertices)


# -- queue ---------------------------------------------------------------------------------
NODES = {
    "a": (1, 3, False),
    "b": (0, 2, False),
    "c": (2, 3, False),
    "d": (2, 3, True),
    "e": (0, 2, False),
}


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        # Lowest bound first; deeper first on ties; a completion node after a plain one; then FIFO.
        ("best-first", ["b", "e", "c", "d", "a"]),
        # Deepest first; lower bound first on ties; then as above.
        ("depth-first", ["c", "d", "a", "b", "e"]),
    ],
)
def test_pop_order_follows_the_strategy(strategy, expected):
    search = state(strategy=strategy)
    names = {}
    for i, (name, (depth, bound, complete)) in enumerate(NODES.items()):
        item = node(i, depth, bound, complete)
        names[id(item)] = name
        search.push(item)
    assert len(search.open_nodes()) == len(NODES)
    assert [names[id(search.pop())] for _ in NODES] == expected
    assert search.heap == []


def test_go_depth_first_reorders_the_open_nodes():
    search = state()
    items = [node(i, depth, bound, complete) for i, (depth, bound, complete) in enumerate(NODES.values())]
    for item in items:
        search.push(item)
    search.go_depth_first()
    assert search.strategy == "depth-first" == STRATEGIES[1]
    popped = [search.pop() for _ in items]
    assert [(n.depth, n.bound, n.complete) for n in popped] == sorted(
        ((n.depth, n.bound, n.complete) for n in items), key=lambda k: (-k[0], k[1], k[2])
    )


# -- incumbent -----------------------------------------------------------------------------
def test_offer_keeps_the_better_incumbent_and_records_its_source():
    search = state(before=5.0)
    assert search.best == 0 and search.incumbent == ()
    search.offer((1, 2, 4, 8), "DSATUR")
    search.offer((3, 12, 16), "leaf")
    search.offer((1, 2, 28), "largest_first")  # not better: ignored
    search.offer((31,) * 4, "smallest_last")  # worse: ignored
    assert search.incumbent == (3, 12, 16) and search.best == 3
    assert [entry[1:] for entry in search.incumbents] == [[4, "DSATUR"], [3, "leaf"]]
    seconds = [entry[0] for entry in search.incumbents]
    assert 5.0 <= seconds[0] <= seconds[1]  # stamped with the run's clock, earlier runs included


# -- tasks ---------------------------------------------------------------------------------
def test_task_carries_the_residual_graph_and_a_seed_derived_from_it():
    graph = nx.cycle_graph(6)
    search = state(graph, sampler=GreedySampler(), seed=3)
    search.offer((0b000101, 0b001010, 0b110000), "test")
    item = Node((0b000101,), 0b111010, 2, skip=frozenset({0b001010}))
    task = search.task(item, deadline=123.0)
    assert sorted(task.graph) == [1, 3, 4, 5] and sorted(task.graph.edges) == [(3, 4), (4, 5)]
    assert task.graph is not graph and task.graph.number_of_nodes() < graph.number_of_nodes()
    assert (task.depth, task.incumbent, task.deadline) == (1, 3, 123.0)
    assert task.exhaustive is True and task.complete is False  # greedy sampler, plain node
    assert task.skip == frozenset({frozenset({1, 3})})
    assert task.seed == search.task(Node((0b010101,), 0b111010, 5), 0.0).seed  # depends on the residual only
    assert task.seed != search.task(Node((0b000011,), 0b111100, 2), 0.0).seed
    assert task.seed != state(graph, sampler=GreedySampler(), seed=4).task(item, 0.0).seed
    assert 0 <= task.seed < 2**63


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["edgeless", "sparse"])
def test_task_of_a_residual_of_more_than_15000_vertices(kind):
    # The residual's int has over 4300 decimal digits: Python refuses to print it in decimal.
    n = 15_000
    graph = nx.empty_graph(n) if kind == "edgeless" else nx.gnm_random_graph(n, 2 * n, seed=4)
    search = state(graph, sampler=GreedySampler(), seed=11)
    everything = to_bits(range(n))
    assert everything.bit_length() * math.log10(2) > 4300
    task = search.task(Node((), everything, 1), deadline=5.0)
    assert task.graph.number_of_nodes() == n and set(task.graph) == set(graph)
    assert task.graph.number_of_edges() == graph.number_of_edges()
    again = search.task(Node((0b1,), everything, 3), deadline=9.0)
    assert again.seed == task.seed and 0 <= task.seed < 2**63  # the same residual, the same seed
    fewer = to_bits(range(1, n))
    other = search.task(Node((0b1,), fewer, 1), deadline=5.0)
    assert other.seed != task.seed and sorted(other.graph) == list(range(1, n))
    assert state(graph, sampler=GreedySampler(), seed=12).task(Node((), everything, 1), 5.0).seed != task.seed


def test_task_is_complete_for_a_completion_node_or_an_exhaustive_sampler():
    graph = nx.cycle_graph(4)
    assert state(graph, sampler=GreedySampler()).task(Node((), 15, 2, True), 0.0).complete
    assert state(graph, sampler=ExactSampler()).task(Node((), 15, 2), 0.0).complete


# -- absorbing expansions ------------------------------------------------------------------
def test_absorb_queues_children_prunes_counts_duplicates_and_takes_the_completion():
    search = state(nx.path_graph(5))
    search.offer((1, 2, 4, 8, 16), "trivial")  # 5 colours
    root = Node((), 0b11111, 2)
    search.seen[0b01101] = 1  # residual {0, 2, 3} of child {1, 4}: already queued at depth 1
    result = expansion(
        [({0, 2, 4}, 2), ({1, 3}, 4), ({1, 4}, 2)],
        completion=(frozenset({0, 2, 4}), {1: 0, 3: 1}),
        all_children=False,
        pruned=2,
    )
    search.absorb(root, result)
    # The completion {0, 2, 4} + {1} + {3} (3 colours) is taken first ...
    assert search.incumbent == (0b10101, 0b00010, 0b01000)
    assert search.incumbents[-1][1:] == [3, "dsatur-completion"]
    # ... so child {1, 3} with bound 4 is pruned, {1, 4} is a duplicate and {0, 2, 4} is queued.
    assert search.stats["nodes_explored"] == 1 and search.stats["completions"] == 0
    assert search.stats["nodes_pruned"] == 2 + 1
    assert search.stats["duplicates"] == 1
    assert search.sampler_stats["calls"] == 1
    assert search.seen[0b01010] == 1
    # Not every child was generated: a completion node with the parent's bound skips those that were.
    completion = Node((), 0b11111, 2, True, frozenset({0b10101, 0b01010, 0b10010}))
    assert sorted(search.open_nodes(), key=lambda n: n.complete) == [Node((0b10101,), 0b01010, 2), completion]


def test_a_second_completion_node_skips_the_classes_of_both_expansions():
    search = state(nx.path_graph(5))
    search.offer((1, 2, 4, 8, 16), "trivial")
    first = Node((), 0b11111, 2, True, frozenset({0b10101}))
    search.absorb(first, expansion([], generated=[{1, 3}], all_children=False))
    assert search.stats["completions"] == 1
    assert search.open_nodes() == [Node((), 0b11111, 2, True, frozenset({0b10101, 0b01010}))]


def test_absorb_pushes_children_records_seen_and_offers_leaves():
    search = state(nx.path_graph(5))
    search.offer((1, 2, 4, 8, 16), "trivial")  # 5 colours
    parent = Node((0b10101,), 0b01010, 2)
    search.seen[0b01000] = 3  # seen deeper before: a shallower visit is queued again
    search.absorb(parent, expansion([({1}, 3), ({3}, 3)]))
    pushed = sorted(search.open_nodes(), key=lambda n: n.residual)
    assert pushed == [Node((0b10101, 0b01000), 0b00010, 3), Node((0b10101, 0b00010), 0b01000, 3)]
    assert search.seen == {0b01000: 2, 0b00010: 2}
    leaf = Node((0b10101,), 0b01010, 2)
    search.absorb(leaf, expansion([({1, 3}, 2)]))
    assert search.incumbent == (0b10101, 0b01010)
    assert search.incumbents[-1][1:] == [2, "leaf"]
    assert search.stats["nodes_explored"] == 2 and search.stats["duplicates"] == 0


def test_absorb_counts_the_nodes_each_source_of_classes_created():
    search = state(nx.path_graph(5))
    search.offer((1, 2, 4, 8, 16), "trivial")
    parent = Node((0b10101,), 0b01010, 2)
    result = expansion([({1}, 3), ({3}, 3)])
    result.sampled = frozenset([frozenset({1})])
    search.absorb(parent, result)
    assert search.stats["nodes_from_sampler"] == 1 and search.stats["nodes_from_enumeration"] == 1


def test_absorb_counts_completion_nodes_and_continues_an_unfinished_enumeration():
    search = state(nx.path_graph(3))
    search.offer((1, 2, 4), "trivial")
    search.absorb(Node((), 0b111, 2, True), expansion([]))
    assert search.stats["completions"] == 1
    assert search.open_nodes() == []  # every child generated: no further completion node
    unfinished = Expansion([], frozenset(), 2000, None, 0, new_stats())
    search.absorb(Node((), 0b111, 2, True, frozenset(), 0), unfinished)
    [follow] = search.open_nodes()
    assert follow.complete and follow.offset == 2000 and follow.bound == 2


def test_heuristic_search_pushes_no_completion_node():
    search = state(nx.path_graph(3), exhaustive=False)
    search.offer((1, 2, 4), "trivial")
    search.absorb(Node((), 0b111, 2), expansion([], all_children=False))
    assert search.open_nodes() == []


@pytest.mark.parametrize("sampler", [ExactSampler(), GreedySampler(num_sets=2)], ids=["exact", "greedy"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_full_search_by_hand_finds_the_chromatic_number(graphs, sampler, strategy):
    for graph in graphs(4, seed=61, max_nodes=7):
        graph = nx.convert_node_labels_to_integers(graph)
        search = state(graph, sampler=sampler, strategy=strategy)
        n = graph.number_of_nodes()
        search.offer(tuple(1 << v for v in graph), "trivial")
        search.push(Node((), (1 << n) - 1, 1))
        while search.heap:
            item = search.pop()
            if item.bound < search.best:
                search.absorb(item, expand(search.task(item, deadline=float("inf"))))
        coloring = {v: c for c, bits in enumerate(search.incumbent) for v in from_bits(bits)}
        verify_coloring(graph, coloring)
        chi = next(k for k in range(1, n + 1) if _colourable(graph, k))
        assert search.best == chi


def _colourable(graph, k):
    """Whether ``graph`` has a proper ``k``-colouring (backtracking, small graphs)."""
    order = sorted(graph, key=graph.degree, reverse=True)
    colors = {}

    def place(i):
        if i == len(order):
            return True
        v = order[i]
        for c in range(k):
            if all(colors.get(u) != c for u in graph[v]):
                colors[v] = c
                if place(i + 1):
                    return True
                del colors[v]
        return False

    return place(0)


# -- bounds and progress --------------------------------------------------------------------
def test_frontier_bound_is_the_least_of_incumbent_open_and_running_bounds():
    search = state()
    search.offer((1, 2, 4, 8, 16), "trivial")
    assert search.frontier_bound([]) == 5
    search.push(node(0, 1, 4))
    search.push(node(1, 1, 3))
    assert search.frontier_bound([]) == 3
    assert search.frontier_bound([node(2, 2, 2)]) == 2


def test_progress_snapshot_reports_nodes_open_incumbent_bound_elapsed():
    search = state(before=1.5)
    search.offer((1, 2, 4, 8, 16), "trivial")
    search.push(node(0, 1, 4))
    search.stats["nodes_explored"] = 7
    snapshot = progress_snapshot(search, [node(1, 1, 3)])
    assert set(snapshot) == {"nodes", "open", "incumbent", "bound", "elapsed"}
    assert (snapshot["nodes"], snapshot["open"], snapshot["incumbent"], snapshot["bound"]) == (7, 2, 5, 3)
    assert snapshot["elapsed"] >= 1.5
    heuristic = state(exhaustive=False)
    heuristic.offer((1, 2), "x")
    assert progress_snapshot(heuristic, [])["bound"] is None
