import json
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from backends.errors import InvalidParameterError
from bbqmis import read_graph
from bbqmis.coloring.branch_price import branch_and_price, pricers_for
from bbqmis.coloring.cli import main
from bbqmis.coloring.dsatur_exact import exact_coloring
from bbqmis.coloring.pricing import QAOAPricer
from bbqmis.coloring.result import verify_coloring
from bbqmis.coloring.samplers import get_sampler

DATA = Path(__file__).resolve().parents[3] / "data" / "graphs"


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


def test_cli_method_price_proves_a_graph_and_says_so(tmp_path):
    out = tmp_path / "out.json"
    args = [str(DATA / "myciel3.col"), "--method", "price", "--sampler", "anneal", "--exact-share", "0"]
    assert main([*args, "--quiet", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["num_colors"] == 4 and result["optimal"]
    assert [s["how"] for s in result["stats"]["searched"]] == ["price"]
    assert result["stats"]["improving_columns"]["anneal"] > 0
