"""Atomic, checked JSON checkpoints of a search (bbqmis.coloring.tree.checkpoint)."""

import functools
import hashlib
import json
import tempfile
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bbqmis import read_graph
from bbqmis.coloring.errors import SearchError
from bbqmis.coloring.pipeline import color_graph
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.tree.checkpoint import CHECKPOINT_VERSION, Checkpoint, fingerprint

SETTINGS = {"method": "tree", "exhaustive": True, "sampler": "greedy", "strategy": "best-first", "seed": 0}


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
        f"{path}: checkpoint was written with seed=0, this run has seed=1; "
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
        ('{"version": 3, "gra', ": cannot read checkpoint: "),
        ('{"version": 2}', f": not a version-{CHECKPOINT_VERSION} checkpoint; remove it"),
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


# -- whole runs: settings, and corrupted checkpoints of real runs ------------------------------
def reversed_order(graph: nx.Graph) -> nx.Graph:
    """``graph`` with its vertices in reverse order: the Mycielskian bound, which follows the
    construction order of a Mycielski graph, then stays below chi, so that the tree searches."""
    result = nx.Graph()
    result.add_nodes_from((v, graph.nodes[v]) for v in reversed(list(graph)))
    result.add_edges_from(graph.edges)
    return result


MYCIEL4 = reversed_order(read_graph("data/graphs/myciel4.col"))  # chi = 5, root bound 4
#: myciel4 after a 30-cycle: the cycle is settled first (easy, in ``done``), myciel4 is searched.
UNION = nx.disjoint_union(nx.cycle_graph(30), nx.Graph(MYCIEL4.edges))
CHI = 5
RUN = {"sampler": "exact", "exact_share": 0.0}


def checksummed(document):
    """The document with its checksum recomputed, as an editor who knows the format would."""
    body = {key: value for key, value in document.items() if key != "checksum"}
    return {**body, "checksum": hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()}


def root_tree(document):
    """A fresh tree of myciel4: only the root is open and the incumbent gives every vertex its own colour.

    A legitimate state (nothing was pruned yet) whose incumbent is far above chi, so that a
    corruption that loses part of the tree would show as a wrong claim of optimality.
    """
    n = MYCIEL4.number_of_nodes()
    everything = format((1 << n) - 1, "x")
    tree = {
        "strategy": "best-first",
        "incumbent": [format(1 << v, "x") for v in range(n)],
        "incumbents": [[0.0, n, "trivial"]],
        "open": [
            {"classes": [], "residual": everything, "bound": 3, "complete": False, "skip": [], "offset": 0}
        ],
        "seen": [[everything, 0]],
        "stats": {},
        "sampler": {},
        "summary": {"open": 1, "bound": 3, "seen": 1},
    }
    return checksummed({**document, "search": {"component": 0, "tree": tree}})


@functools.cache
def real_checkpoints():
    """Real checkpoints (as bytes) of small runs, with their graph and whether the run was exact."""
    runs = {
        "open-list": (MYCIEL4, {"node_limit": 2}),
        "done-and-open-list": (UNION, {"node_limit": 2}),
        "finished": (MYCIEL4, {}),
        "heuristic": (MYCIEL4, {"node_limit": 2, "exhaustive": False}),
    }
    made = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, (graph, options) in runs.items():
            path = Path(folder) / f"{name}.ckpt"
            color_graph(graph, checkpoint=path, **RUN, **options)
            made[name] = (graph, options.get("exhaustive", True), path.read_bytes())
    document = json.loads(made["open-list"][2])
    assert document["search"]["tree"]["open"], "the node limit left no open node"
    assert json.loads(made["done-and-open-list"][2])["done"], "the cycle was not written as done"
    made["root"] = (MYCIEL4, True, json.dumps(root_tree(document)).encode())
    return made


@pytest.fixture
def bases():
    return real_checkpoints()


def resume(path, graph, exhaustive):
    """Resume the run of ``path``: the result, or the refusal's message."""
    try:
        return color_graph(graph, checkpoint=path, resume=True, exhaustive=exhaustive, time_limit=60, **RUN)
    except SearchError as exc:
        return str(exc)


def assert_refused_or_correct(path, graph, exhaustive):
    outcome = resume(path, graph, exhaustive)
    if isinstance(outcome, str):
        assert outcome.startswith(f"{path}: ") and "\n" not in outcome, outcome
        return
    labels = {v: graph.nodes[v].get("label", v) for v in graph}
    verify_coloring(graph, {v: outcome.coloring[labels[v]] for v in graph})  # proper and complete
    assert outcome.lower_bound <= CHI <= outcome.num_colors
    if outcome.optimal:
        assert outcome.num_colors == CHI


@pytest.mark.parametrize("name", ["open-list", "done-and-open-list", "finished", "heuristic", "root"])
def test_the_bases_resume_to_the_right_answer(bases, name, tmp_path):
    graph, exhaustive, data = bases[name]
    path = tmp_path / "run.ckpt"
    path.write_bytes(data)
    result = resume(path, graph, exhaustive)
    assert not isinstance(result, str), result
    assert result.num_colors == CHI and result.optimal is exhaustive


@pytest.mark.parametrize(
    ("change", "difference"),
    [
        ({"exhaustive": False}, "exhaustive=True, this run has exhaustive=False"),
        ({"sampler": "greedy"}, "sampler='ExactSampler', this run has sampler='GreedySampler'"),
        ({"strategy": "depth-first"}, "strategy='best-first', this run has strategy='depth-first'"),
        ({"seed": 3}, "seed=None, this run has seed=3"),
        ({"exact_share": 0.5}, "exact_share=0.0, this run has exact_share=0.5"),
    ],
)
def test_resuming_with_another_setting_is_refused(bases, tmp_path, change, difference):
    path = tmp_path / "run.ckpt"
    path.write_bytes(bases["open-list"][2])
    with pytest.raises(SearchError) as info:
        color_graph(MYCIEL4, checkpoint=path, resume=True, **{**RUN, **change})
    assert str(info.value) == (
        f"{path}: checkpoint was written with {difference}; resume with the same settings or remove it"
    )


def edit_document(name, edit):
    def apply(bases):
        graph, exhaustive, data = bases[name]
        document = json.loads(data)
        edit(document)
        return graph, exhaustive, checksummed(document)

    return apply


def first_open(document):
    return document["search"]["tree"]["open"]


@pytest.mark.parametrize(
    ("name", "edit", "reason"),
    [
        ("open-list", lambda d: d["search"]["tree"].update(open=[]), "does not match its summary"),
        ("root", lambda d: first_open(d)[0].update(bound=23), "does not match its summary"),
        ("root", lambda d: first_open(d)[0].update(bound=24), "must be an integer in [1, 23], found 24"),
        ("finished", lambda d: d["done"]["0"].update(lower_bound=4), "bound 4 below its 5 colours"),
        (
            "finished",
            lambda d: d["done"]["0"].update(lower_bound=6),
            "lower_bound must be an integer in [1, 5]",
        ),
        ("finished", lambda d: d["done"]["0"]["coloring"][0].__setitem__(1, 1), "share a colour"),
        ("finished", lambda d: d["done"]["0"]["coloring"].pop(), "does not cover exactly the component"),
        ("finished", lambda d: d["done"]["0"]["coloring"][0].__setitem__(0, 23), "vertex must be an integer"),
        ("finished", lambda d: d["done"]["0"].update(stopped="time_limit"), "cannot have stopped"),
        ("finished", lambda d: d["done"].update({"1": d["done"]["0"]}), "done names component '1'"),
        ("done-and-open-list", lambda d: d["search"].update(component=0), "both finished and in progress"),
        ("heuristic", lambda d: d.update(elapsed=-1), "elapsed must be a number >= 0"),
    ],
)
def test_an_edited_checkpoint_with_a_recomputed_checksum_is_refused(bases, tmp_path, name, edit, reason):
    graph, exhaustive, document = edit_document(name, edit)(bases)
    path = tmp_path / "run.ckpt"
    path.write_text(json.dumps(document))
    message = resume(path, graph, exhaustive)
    assert isinstance(message, str), "accepted"
    assert message.startswith(f"{path}: checkpoint is corrupt: ") and reason in message, message
    assert message.endswith("; remove it") and "\n" not in message


# Hypothesis: every corruption is refused with one line, or the resumed answer is still right.
BASE_NAMES = st.sampled_from(["open-list", "done-and-open-list", "finished", "heuristic", "root"])
PROPERTY = settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 30),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet="0123456789abcdefx-", max_size=8),
    st.builds(lambda bits: format(bits, "x"), st.integers(0, 2**23 - 1)),
    st.just([]),
    st.just({}),
)


def check_written(tmp_path, graph, exhaustive, data):
    path = tmp_path / "run.ckpt"
    path.write_bytes(data)
    assert_refused_or_correct(path, graph, exhaustive)


def assert_truncation_refused(tmp_path, name, keep):
    """The checkpoint ``name`` cut to its first ``keep`` bytes is refused in one line naming the file."""
    graph, exhaustive, data = real_checkpoints()[name]
    assert keep < len(data) and not data[keep:].isspace(), "not a truncation"
    path = tmp_path / "run.ckpt"
    path.write_bytes(data[:keep])
    outcome = resume(path, graph, exhaustive)
    assert isinstance(outcome, str), f"{name} cut to {keep} of {len(data)} bytes was resumed"
    assert outcome.startswith(f"{path}: cannot read checkpoint: ") and "\n" not in outcome, outcome


@PROPERTY
@given(name=BASE_NAMES, draw=st.data())
def test_a_truncated_checkpoint_is_refused(tmp_path, name, draw):
    size = len(real_checkpoints()[name][2])
    assert_truncation_refused(tmp_path, name, draw.draw(st.integers(0, size - 1), label="keep"))


@pytest.mark.parametrize("name", ["open-list", "done-and-open-list", "finished", "heuristic", "root"])
@pytest.mark.parametrize("cut", ["everything", "all but the first byte", "half", "the last byte"])
def test_a_checkpoint_cut_at_its_ends_or_middle_is_refused(tmp_path, name, cut):
    size = len(real_checkpoints()[name][2])
    keep = {"everything": 0, "all but the first byte": 1, "half": size // 2, "the last byte": size - 1}[cut]
    assert_truncation_refused(tmp_path, name, keep)


@pytest.mark.parametrize("kept", ["", " ", " \n", " \n\t"])
def test_a_truncation_that_loses_only_trailing_whitespace_resumes(tmp_path, kept):
    # The checksum covers the document, not its layout: whitespace after it is no content.
    graph, exhaustive, data = real_checkpoints()["open-list"]
    padded = data + b" \n\t\n"
    path = tmp_path / "run.ckpt"
    path.write_bytes(padded[: len(data) + len(kept)])
    result = resume(path, graph, exhaustive)
    assert not isinstance(result, str), result
    assert result.num_colors == CHI and result.optimal


@PROPERTY
@given(
    name=BASE_NAMES,
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=4),
)
def test_flipped_bits_are_refused_or_harmless(tmp_path, name, flips):
    graph, exhaustive, data = real_checkpoints()[name]
    corrupted = bytearray(data)
    for where, bit in flips:
        corrupted[int(where * len(data))] ^= 1 << bit
    check_written(tmp_path, graph, exhaustive, bytes(corrupted))


def edit_field(data, document):
    """Walk down to a random field of ``document`` and change it; returns the path, for reports."""
    node, path = document, []
    for _ in range(data.draw(st.integers(0, 7), label="depth")):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        deeper = [key for key in keys if isinstance(node[key], dict | list) and node[key]]
        if not deeper:
            break
        key = data.draw(st.sampled_from(deeper), label="key")
        node, path = node[key], [*path, key]
    if not isinstance(node, dict | list) or not node:
        return path
    key = data.draw(
        st.sampled_from(list(node) if isinstance(node, dict) else list(range(len(node)))), label="field"
    )
    value = node[key]
    operation = data.draw(
        st.sampled_from(["replace", "delete", "nudge", "empty", "drop", "duplicate"]), label="op"
    )
    if operation == "delete":
        del node[key]
    elif operation == "nudge" and isinstance(value, int) and not isinstance(value, bool):
        node[key] = value + data.draw(st.integers(-3, 3).filter(bool), label="delta")
    elif operation == "empty" and isinstance(value, dict | list):
        value.clear()
    elif operation == "drop" and isinstance(value, list) and value:
        value.pop(data.draw(st.integers(0, len(value) - 1), label="index"))
    elif operation == "duplicate" and isinstance(value, list) and value:
        value.append(json.loads(json.dumps(value[0])))
    else:
        node[key] = data.draw(VALUES, label="value")
    return [*path, key, operation]


@PROPERTY
@given(name=BASE_NAMES, data=st.data())
def test_an_edited_field_fails_the_checksum(tmp_path, name, data):
    graph, exhaustive, original = real_checkpoints()[name]
    document = json.loads(original)
    edit_field(data, document)
    check_written(tmp_path, graph, exhaustive, json.dumps(document).encode())


@PROPERTY
@given(name=BASE_NAMES, data=st.data())
def test_an_edited_field_with_a_recomputed_checksum_is_refused_or_harmless(tmp_path, name, data):
    graph, exhaustive, original = real_checkpoints()[name]
    document = json.loads(original)
    edit_field(data, document)
    check_written(tmp_path, graph, exhaustive, json.dumps(checksummed(document)).encode())


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_checkpoint_that_is_not_a_regular_file_is_refused_without_reading(tmp_path, kind):
    import os

    path = tmp_path / "run.ckpt"
    if kind == "fifo":
        os.mkfifo(path)  # reading would block forever
    else:
        path.symlink_to("/dev/zero")  # reading would fill the memory
    with pytest.raises(SearchError, match=r"run\.ckpt: cannot read checkpoint: not a regular file$"):
        Checkpoint(path, nx.cycle_graph(5), SETTINGS).load()


@pytest.mark.parametrize(
    ("phase", "value"),
    [("node_lp", {"improving_columns": []}), ("node_lp", {"nodes": "many"}), ("lp", 3), ("price", [])],
)
def test_malformed_lp_counters_of_a_finished_component_are_refused(tmp_path, phase, value):
    graph, exhaustive, original = real_checkpoints()["finished"]
    document = json.loads(original)
    (outcome,) = document["done"].values()
    assert "node_lp" in outcome["stats"], "the finished run did not bound its tree nodes by LP"
    outcome["stats"][phase] = value
    path = tmp_path / "run.ckpt"
    path.write_bytes(json.dumps(checksummed(document)).encode())
    refusal = resume(path, graph, exhaustive)
    assert isinstance(refusal, str) and f"stats.{phase}" in refusal, refusal
