"""Atomic, checked JSON checkpoints of a search (bbqmis.coloring.checkpoint)."""

import json
import math

import networkx as nx
import pytest

from bbqmis.coloring.checkpoint import (
    CHECKPOINT_VERSION,
    Checkpoint,
    dump_search,
    fingerprint,
    restore_search,
)
from bbqmis.coloring.errors import SearchError
from bbqmis.coloring.expand import expand
from bbqmis.coloring.limits import Clock, Limits
from bbqmis.coloring.samplers import GreedySampler
from bbqmis.coloring.tree import Node, SearchState

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


# -- the file -------------------------------------------------------------------------------
def test_save_then_load_returns_the_state_and_the_settings(tmp_path):
    graph = nx.petersen_graph()
    store = Checkpoint(tmp_path / "run.ckpt", graph, SETTINGS)
    assert not store.exists()
    store.save({"components": [[0, 1]], "note": "x"})
    assert store.exists()
    loaded = Checkpoint(tmp_path / "run.ckpt", graph, dict(SETTINGS)).load()
    assert loaded == {"settings": SETTINGS, "components": [[0, 1]], "note": "x"}
    document = json.loads((tmp_path / "run.ckpt").read_text())
    assert document["version"] == CHECKPOINT_VERSION and document["graph"] == fingerprint(graph)
    assert len(document["checksum"]) == 64


def test_the_write_is_atomic_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "run.ckpt"
    store = Checkpoint(path, nx.cycle_graph(5), SETTINGS)
    for step in range(3):
        store.save({"step": step})
        assert sorted(p.name for p in tmp_path.iterdir()) == ["run.ckpt"]
        assert store.load()["step"] == step


def test_a_failed_write_keeps_the_previous_checkpoint(tmp_path):
    path = tmp_path / "run.ckpt"
    store = Checkpoint(path, nx.cycle_graph(5), SETTINGS)
    store.save({"step": 1})
    with pytest.raises(TypeError):
        store.save({"step": object()})  # not JSON: fails half-way through the temporary file
    assert store.load()["step"] == 1


def test_a_checkpoint_of_another_graph_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    Checkpoint(path, nx.mycielski_graph(4), SETTINGS).save({})
    with pytest.raises(SearchError) as info:
        Checkpoint(path, nx.cycle_graph(5), SETTINGS).load()
    assert str(info.value) == f"{path}: checkpoint belongs to another graph; remove it or drop --resume"


def test_a_checkpoint_with_other_settings_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    graph = nx.cycle_graph(5)
    Checkpoint(path, graph, SETTINGS).save({})
    other = {**SETTINGS, "seed": 1}
    with pytest.raises(SearchError) as info:
        Checkpoint(path, graph, other).load()
    assert str(info.value) == (
        f"{path}: checkpoint was written with settings {SETTINGS}, not {other}; "
        "resume with the same settings or remove it"
    )


def test_an_edited_checkpoint_fails_its_checksum(tmp_path):
    path = tmp_path / "run.ckpt"
    graph = nx.cycle_graph(5)
    Checkpoint(path, graph, SETTINGS).save({"incumbent": ["1f"]})
    document = json.loads(path.read_text())
    document["incumbent"] = ["1"]
    path.write_text(json.dumps(document))
    with pytest.raises(SearchError) as info:
        Checkpoint(path, graph, SETTINGS).load()
    assert str(info.value) == f"{path}: checkpoint fails its checksum (truncated or edited); remove it"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"version": 2, "gra', ": cannot read checkpoint: "),
        ('{"version": 1}', f": not a version-{CHECKPOINT_VERSION} checkpoint; remove it"),
        ("[1, 2]", f": not a version-{CHECKPOINT_VERSION} checkpoint; remove it"),
    ],
)
def test_unreadable_or_old_checkpoints_are_refused(tmp_path, text, message):
    path = tmp_path / "run.ckpt"
    path.write_text(text)
    with pytest.raises(SearchError) as info:
        Checkpoint(path, nx.cycle_graph(5), SETTINGS).load()
    assert str(info.value).startswith(f"{path}{message}")


def test_a_missing_checkpoint_cannot_be_read(tmp_path):
    with pytest.raises(SearchError, match="cannot read checkpoint"):
        Checkpoint(tmp_path / "none.ckpt", nx.cycle_graph(5), SETTINGS).load()


def test_fingerprint_depends_on_the_edges_by_position():
    graph = nx.petersen_graph()
    assert fingerprint(graph) == fingerprint(nx.relabel_nodes(graph, {v: f"v{v}" for v in graph}))
    assert fingerprint(graph) != fingerprint(nx.cycle_graph(10))
    assert fingerprint(nx.path_graph(3)) != fingerprint(nx.Graph([(0, 1), (0, 2)]))


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
    with pytest.raises(SearchError, match=r"^ckpt: checkpoint is corrupt: "):
        restore_search(new_state(small), dump_search(search, [running]), "ckpt")


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda data: data.pop("seen"), "'seen'"),
        (lambda data: data.update(incumbent=["1"]), "the incumbent does not colour every vertex exactly"),
        (
            lambda data: data["open"][0].update(residual="0"),
            "an open node's classes and residual do not partition the graph",
        ),
        (lambda data: data["open"][0].update(bound="x"), "invalid literal"),
        (lambda data: data.update(incumbent=[7]), "expected a hexadecimal string, found 7"),
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
