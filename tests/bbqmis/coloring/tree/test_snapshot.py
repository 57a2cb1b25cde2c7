"""Atomic, checked JSON checkpoints of a search (bbqmis.coloring.tree.checkpoint)."""

import json
import math

import networkx as nx
import pytest

from bbqmis.coloring.errors import SearchError
from bbqmis.coloring.limits import Clock, Limits
from bbqmis.coloring.samplers import GreedySampler
from bbqmis.coloring.tree.checkpoint import Checkpoint
from bbqmis.coloring.tree.expand import expand
from bbqmis.coloring.tree.snapshot import (
    check_snapshot,
    dump_price,
    dump_search,
    restore_price,
    restore_search,
)
from bbqmis.coloring.tree.tree import Node, SearchState

SETTINGS = {"method": "tree", "exhaustive": True, "sampler": "greedy", "strategy": "best-first", "seed": 0}


def new_state(graph, strategy="best-first"):
    return SearchState(
        graph,
        GreedySampler(num_sets=2),
        strategy=strategy,
        exhaustive=True,
        seed=0,
        clock=Clock(Limits()),
    )


def searched(graph, expansions, strategy="best-first"):
    """A search of ``graph`` after a few real expansions, with one node taken off as running."""
    search = new_state(graph, strategy)
    n = graph.number_of_nodes()
    search.offer(tuple(1 << v for v in graph), "trivial")
    search.seen[(1 << n) - 1] = 0
    search.push(Node((), (1 << n) - 1, 2))
    for _ in range(expansions):
        item = search.pop()
        search.absorb(item, expand(search.task(item, deadline=math.inf)))
    running = search.pop()
    return search, running


def node_key(node):
    return (node.classes, node.residual, node.bound, node.complete, tuple(sorted(node.skip)))


# -- the search tree --------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", ["best-first", "depth-first"])
def test_save_then_restore_into_a_fresh_search(tmp_path, strategy):
    graph = nx.mycielski_graph(5)
    search, running = searched(graph, expansions=3, strategy=strategy)
    assert search.heap and search.seen and search.incumbents
    path = tmp_path / "run.ckpt"
    Checkpoint(path, graph, SETTINGS).save({"tree": dump_search(search, [running])})

    fresh = new_state(graph)
    restore_search(fresh, Checkpoint(path, graph, SETTINGS).load()["tree"], str(path))
    assert fresh.incumbent == search.incumbent
    assert fresh.incumbents == search.incumbents
    # The running node comes back as an open one.
    assert sorted(map(node_key, fresh.open_nodes())) == sorted(map(node_key, [*search.open_nodes(), running]))
    assert fresh.seen == search.seen
    assert fresh.stats == search.stats and fresh.sampler_stats == search.sampler_stats
    assert fresh.strategy == strategy
    # The queue is rebuilt in the strategy's order (ties between equal keys may come out differently).
    search.push(running)

    def priority(item):
        return (item.bound, item.depth, item.complete)

    assert [priority(fresh.pop()) for _ in fresh.open_nodes()] == [
        priority(search.pop()) for _ in search.open_nodes()
    ]


def test_restoring_a_tree_of_another_graph_is_refused():
    small = nx.cycle_graph(5)
    search, running = searched(nx.mycielski_graph(5), expansions=1)
    with pytest.raises(SearchError, match=r"^ckpt: checkpoint is corrupt: .*; remove it$"):
        restore_search(new_state(small), dump_search(search, [running]), "ckpt")


def merge_incumbent_classes(data):
    """Two colour classes made one, with the history edited to match: an improper colouring."""
    first, second, *rest = data["incumbent"]
    data["incumbent"] = [format(int(first, 16) | int(second, 16), "x"), *rest]
    data["incumbents"][-1][1] -= 1


def overlap_class_and_residual(data):
    node = next(item for item in data["open"] if item["classes"])
    low = int(node["classes"][0], 16) & -int(node["classes"][0], 16)
    node["residual"] = format(int(node["residual"], 16) | low, "x")


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda data: data.pop("seen"), "missing field 'seen'"),
        (lambda data: data.update(incumbent=["1"]), "the incumbent has 1 colours, its history ends at 5"),
        (merge_incumbent_classes, "the incumbent is not a proper colouring"),
        (overlap_class_and_residual, "an open node's classes and residual do not partition the graph"),
        (lambda data: data["open"][0].update(bound="x"), "must be an integer in"),
        (
            lambda data: data.update(incumbent=[7]),
            "an incumbent class must be a hexadecimal vertex set, found 7",
        ),
        (lambda data: data["open"].pop(), "does not match its summary"),
        (lambda data: data.update(open=[]), "(0 nodes, lowest bound None) does not match its summary"),
        (lambda data: data["seen"].pop(), "seen residuals, the summary says"),
        (lambda data: data["seen"][0].__setitem__(1, 1), "cannot be reached at depth 1"),
        (
            lambda data: data["stats"].update(nodes_explored=-1),
            "stats['nodes_explored'] must be a number >= 0",
        ),
        (lambda data: data["incumbents"].append([0.5, 9, "x"]), "incumbents: colours do not fall"),
    ],
)
def test_a_corrupt_tree_is_refused_with_the_reason(edit, reason):
    graph = nx.mycielski_graph(5)
    search, running = searched(graph, expansions=2)
    data = json.loads(json.dumps(dump_search(search, [running])))
    edit(data)
    with pytest.raises(SearchError) as info:
        restore_search(new_state(graph), data, "ckpt")
    assert str(info.value).startswith("ckpt: checkpoint is corrupt: ") and reason in str(info.value)
    assert str(info.value).endswith("; remove it") and "\n" not in str(info.value)


# -- branch-and-price trees, and checks without a restore -------------------------------------
def test_a_price_tree_round_trips_through_json():
    from bbqmis.coloring.lp.branch_price import branch_and_price

    core = nx.mycielski_graph(4)
    tree = branch_and_price(core, nx.greedy_color(core), node_limit=1, seed=0).tree
    data = json.loads(json.dumps(dump_price(tree, core)))
    check_snapshot(data, core.number_of_nodes(), "price")
    back = restore_price(data, core, "ckpt")
    assert back.open == tree.open and back.nodes == tree.nodes == 1
    assert back.best == tree.best and back.root_bound == tree.root_bound


def test_a_price_tree_of_another_graph_is_refused():
    from bbqmis.coloring.lp.branch_price import branch_and_price

    core = nx.mycielski_graph(4)
    tree = branch_and_price(core, nx.greedy_color(core), node_limit=1, seed=0).tree
    with pytest.raises(SearchError, match="ckpt"):
        restore_price(dump_price(tree, core), nx.path_graph(11), "ckpt")


def test_check_snapshot_refuses_what_restore_would_refuse():
    graph = nx.mycielski_graph(5)
    search, running = searched(graph, expansions=1)
    data = json.loads(json.dumps(dump_search(search, [running])))
    check_snapshot(data, graph.number_of_nodes())
    with pytest.raises(ValueError, match="strategy"):
        check_snapshot({**data, "strategy": "sideways"}, graph.number_of_nodes())
