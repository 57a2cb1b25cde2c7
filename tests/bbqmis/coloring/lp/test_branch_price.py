import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from backends.utils.errors import InvalidParameterError
from bbqmis import read_graph
from bbqmis.coloring.classical.dsatur_exact import exact_coloring
from bbqmis.coloring.cli import main
from bbqmis.coloring.errors import SearchError
from bbqmis.coloring.limits import Every
from bbqmis.coloring.lp.branch_price import branch_and_price, check_tree, pricers_for, replay
from bbqmis.coloring.lp.heuristic_pricers import QAOAPricer
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.samplers import get_sampler
from bbqmis.coloring.tree.snapshot import dump_price, restore_price

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"


@pytest.mark.parametrize("seed", range(2))
def test_agrees_with_exact_dsatur_on_random_graphs(seed):
    rng = np.random.default_rng(seed)
    for _ in range(4):
        graph = nx.gnp_random_graph(int(rng.integers(6, 13)), float(rng.uniform(0.2, 0.6)), seed=rng)
        chi = exact_coloring(nx.to_numpy_array(graph, dtype=bool, weight=None)).num_colors
        worst = {v: i for i, v in enumerate(graph)}  # every improvement must come from the search
        outcome = branch_and_price(graph, worst, seed=0)
        verify_coloring(graph, outcome.coloring)
        assert outcome.stopped is None and outcome.num_colors == outcome.lower_bound == chi


def test_branching_proves_what_the_lp_bound_alone_cannot():
    graph = nx.mycielski_graph(4)  # Groetzsch graph: fractional chromatic number 2.9, chi 4
    outcome = branch_and_price(graph, {v: i for i, v in enumerate(graph)}, seed=1)
    assert outcome.num_colors == outcome.lower_bound == 4 and outcome.nodes > 1
    assert outcome.improving_columns["anneal"] > 0


def test_a_deadline_stops_the_tree_with_the_best_colouring_and_the_root_bound():
    graph = read_graph(DATA / "myciel5.col")  # chi 6, LP bound 3: no proof by the LP tree
    start = time.perf_counter()
    outcome = branch_and_price(graph, nx.greedy_color(graph), deadline=start + 2.0, seed=0)
    assert time.perf_counter() - start < 2.0 + 2.0
    verify_coloring(graph, outcome.coloring)
    assert outcome.stopped == "time_limit" and outcome.lower_bound < 6 <= outcome.num_colors


def test_a_full_memory_is_a_stop_reason():
    graph = nx.mycielski_graph(4)
    outcome = branch_and_price(graph, {v: i for i, v in enumerate(graph)}, memory_full=lambda: True)
    assert outcome.stopped == "memory_limit" and outcome.nodes == 0
    verify_coloring(graph, outcome.coloring)


def test_a_node_limit_is_a_stop_reason():
    graph = nx.mycielski_graph(4)
    outcome = branch_and_price(graph, {v: i for i, v in enumerate(graph)}, node_limit=2, seed=0)
    assert outcome.stopped == "node_limit" and outcome.nodes == 2


def test_an_improper_initial_colouring_is_refused():
    with pytest.raises(InvalidParameterError, match=r"edge \(0, 1\) has colour 0 at both ends"):
        branch_and_price(nx.path_graph(3), {0: 0, 1: 0, 2: 1})


def test_pricing_follows_the_branching_sampler():
    qaoa = get_sampler("qaoa", shots=64)
    (pricer,) = pricers_for(qaoa)
    assert isinstance(pricer, QAOAPricer) and pricer.solver is qaoa.solver
    assert pricers_for(get_sampler("random")) == ("random",)


def test_cli_method_price_proves_a_graph_and_says_so(tmp_path, backwards):
    out = tmp_path / "out.json"
    args = [
        backwards("myciel3"),
        "--method",
        "price",
        "--sampler",
        "anneal",
        "--exact-share",
        "0",
    ]
    assert main([*args, "--quiet", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["num_colors"] == 4 and result["optimal"]
    assert [s["how"] for s in result["stats"]["searched"]] == ["price"]
    assert result["stats"]["improving_columns"]["anneal"] > 0


def chromatic_number(graph):
    return exact_coloring(nx.to_numpy_array(graph, dtype=bool, weight=None)).num_colors


@pytest.mark.parametrize("stop_after", [1, 2, 3])
def test_a_stopped_search_resumes_to_the_same_tree_and_proof(stop_after):
    graph = nx.mycielski_graph(4)
    worst = {v: i for i, v in enumerate(graph)}
    whole = branch_and_price(graph, worst, seed=0)
    first = branch_and_price(graph, worst, node_limit=stop_after, seed=0)
    assert first.stopped == "node_limit" and first.tree.nodes == stop_after and first.tree.open
    saved = restore_price(json.loads(json.dumps(dump_price(first.tree, graph))), graph, "run.ckpt")
    assert (saved.best, saved.open, saved.nodes) == (first.tree.best, first.tree.open, first.tree.nodes)
    rest = branch_and_price(graph, worst, resume=saved, seed=0)
    verify_coloring(graph, rest.coloring)
    assert rest.stopped is None and rest.num_colors == rest.lower_bound == chromatic_number(graph)
    # the LP bounds are certified, so the resumed search bounds exactly the nodes the whole run does
    assert rest.nodes == whole.nodes > stop_after and not rest.tree.open


def test_the_state_is_handed_over_before_every_node_and_at_the_end():
    graph = nx.mycielski_graph(4)
    states = []
    outcome = branch_and_price(
        graph, nx.greedy_color(graph), seed=0, on_checkpoint=states.append, checkpoint_every=Every(0.0)
    )
    assert states[-1] == outcome.tree and states[-1].nodes == outcome.nodes
    assert [state.nodes for state in states[: outcome.nodes]] == list(range(outcome.nodes))
    for state in states:  # every saved open node is a real node: its path replays on the graph
        for path, (node, groups) in zip(state.open, check_tree(graph, state), strict=True):
            merges = sum(kind == "merge" for kind, _, _ in path)
            assert len(node) == len(graph) - merges and sorted(v for g in groups.values() for v in g) == list(
                graph
            )


def test_the_state_of_a_search_settled_before_its_root_resumes_to_the_same_answer():
    graph = nx.mycielski_graph(4)
    optimal = branch_and_price(graph, nx.greedy_color(graph), seed=0).coloring
    settled = branch_and_price(graph, optimal, lower=chromatic_number(graph), seed=0)
    assert settled.tree.nodes == 0 and settled.tree.open == []  # nothing to bound
    check_tree(graph, settled.tree)
    again = branch_and_price(graph, optimal, resume=settled.tree, seed=0)
    assert again.stopped is None and again.num_colors == again.lower_bound == chromatic_number(graph)


def test_a_root_cut_off_by_the_deadline_stays_the_root_on_resume():
    graph = nx.mycielski_graph(4)
    cut = branch_and_price(graph, nx.greedy_color(graph), deadline=time.perf_counter(), seed=0)
    assert cut.stopped == "time_limit" and cut.tree.open == [()]
    assert cut.nodes == 0  # nothing was bounded
    rest = branch_and_price(graph, nx.greedy_color(graph), resume=cut.tree, node_limit=1, seed=0)
    fresh = branch_and_price(graph, nx.greedy_color(graph), node_limit=1, seed=0)
    assert rest.tree.root_bound == fresh.tree.root_bound == rest.lower_bound  # the root's bound is kept


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ([("swap", 0, 2)], "neither 'merge' nor 'differ'"),
        ([("merge", 0, 2), ("merge", 0, 2)], "names a vertex the node lacks"),
        ([("merge", 0, 0)], "names one vertex twice"),
        ([("differ", 0, 2), ("merge", 0, 2)], "joins adjacent vertices"),
    ],
)
def test_a_path_that_cannot_be_taken_is_refused(path, reason):
    with pytest.raises(InvalidParameterError, match=reason):
        replay(nx.path_graph(4), path)


def test_a_corrupt_price_checkpoint_is_refused_with_its_name():
    graph = nx.mycielski_graph(4)
    data = dump_price(branch_and_price(graph, nx.greedy_color(graph), node_limit=1, seed=0).tree, graph)
    u, v = (list(graph).index(w) for w in next(iter(graph.edges)))
    clash = [data["best"][u] if i == v else color for i, color in enumerate(data["best"])]
    for change, reason in [
        ({"best": clash}, "best is not a proper colouring"),
        ({"root_bound": 99}, "root_bound must be an integer"),
        ({"open": data["open"][:1]}, "its summary says 2"),
        ({"open": [[["merge", 0, 99]], *data["open"][1:]]}, "a step's vertex must be an integer"),
        ({"open": data["open"] * 2, "summary": {"open": 4}}, "not those of a depth-first search"),
        ({"open": [[], data["open"][1]]}, "the root is open alone or not at all"),
        ({"open": [data["open"][1], data["open"][1] + [["differ", 1, 2]]]}, "below another open node"),
        ({"device": {"bogus": 1.0}}, "negative or unknown"),
        ({"improving_columns": {"anneal": 0.5}}, "improving_columns"),
        ({"improving_columns": []}, "improving_columns must be an object"),
    ]:
        with pytest.raises(SearchError, match=f"run.ckpt: checkpoint is corrupt: .*{reason}"):
            restore_price({**data, **change}, graph, "run.ckpt")


def joined_odd_cycles(folder, *lengths):
    """The path of a DIMACS file of the join of odd cycles of these lengths (each vertex of a cycle
    adjacent to every vertex of the others): chi is 3 per cycle and the LP bound lower, so the price
    tree branches (seed 1: 37 nodes, about a second, for 7, 7, 5; about 190 for 7, 7, 7)."""
    graph = nx.Graph()
    for length in lengths:
        cycle = nx.cycle_graph(range(len(graph), len(graph) + length))
        graph.add_edges_from([(u, v) for u in cycle for v in graph] + list(cycle.edges))
    path = folder / f"joined-{'-'.join(map(str, lengths))}.col"
    edges = "".join(f"e {u + 1} {v + 1}\n" for u, v in graph.edges)
    path.write_text(f"p edge {len(graph)} {graph.number_of_edges()}\n{edges}")
    return path


def test_cli_a_price_run_stopped_by_a_limit_resumes(tmp_path):
    checkpoint, out = tmp_path / "run.ckpt", tmp_path / "out.json"
    graph = joined_odd_cycles(tmp_path, 7, 7, 5)
    args = [
        str(graph),
        "--method",
        "price",
        "--sampler",
        "anneal",
        "--exact-share",
        "0",
    ]
    args += ["--seed", "1", "--checkpoint", str(checkpoint), "--quiet"]
    assert main([*args, "--node-limit", "2", "--json", str(out)]) == 0
    stopped = json.loads(out.read_text())
    tree = json.loads(checkpoint.read_text())["search"]["tree"]
    assert not stopped["optimal"] and stopped["stats"]["stop_reason"] == "node_limit"
    assert stopped["stats"]["nodes_explored"] == tree["nodes"] == 2
    assert stopped["stats"]["open_nodes"] == len(tree["open"]) > 0
    assert main([*args, "--resume", "--json", str(out)]) == 0
    resumed = json.loads(out.read_text())
    assert resumed["num_colors"] == chromatic_number(read_graph(graph)) == 9 and resumed["optimal"]
    assert resumed["stats"]["nodes_explored"] > 2


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_cli_a_killed_price_run_resumes_without_losing_its_tree(tmp_path):
    checkpoint, out = tmp_path / "run.ckpt", tmp_path / "out.json"
    graph = joined_odd_cycles(tmp_path, 7, 7, 7)
    args = [
        str(graph),
        "--method",
        "price",
        "--sampler",
        "anneal",
        "--exact-share",
        "0",
    ]
    args += ["--seed", "1", "--checkpoint", str(checkpoint), "--checkpoint-interval", "0.1", "--quiet"]
    process = subprocess.Popen(
        [sys.executable, "-m", "bbqmis", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline, tree = time.monotonic() + 120, None
    while time.monotonic() < deadline:
        if checkpoint.exists():
            search = json.loads(checkpoint.read_text())["search"]
            tree = search and search["tree"]
            if tree and tree["nodes"] >= 5:
                break
        assert process.poll() is None, "the run finished before it could be killed; slow it down"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert tree is not None and tree["open"], "no checkpoint with open nodes was written"
    resumed = subprocess.run(
        [sys.executable, "-m", "bbqmis", *args, "--resume", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert resumed.returncode == 0, resumed.stderr
    data = json.loads(out.read_text())
    assert data["num_colors"] == chromatic_number(read_graph(graph)) == 9 and data["optimal"]
    assert data["stats"]["nodes_explored"] > tree["nodes"]
