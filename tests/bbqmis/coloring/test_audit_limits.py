"""Audit fixes: resume keeps the checkpoint, node LPs on large cores, LP phase limits, memory limit."""

from __future__ import annotations

import json
import time
import tracemalloc

import networkx as nx
import numpy as np
import pytest

from backends.utils.errors import InvalidParameterError
from bbqmis.coloring import color_graph
from bbqmis.coloring.limits import STOP, Clock, Limits, StopRequest
from bbqmis.coloring.lp.lp_bound import lp_bound
from bbqmis.coloring.lp.master import IndexedGraph
from bbqmis.coloring.lp.node_lp import MAX_GRAPH_NODES, NodeLP
from bbqmis.coloring.lp.pricers import get_pricer
from bbqmis.coloring.lp.pricing import PricingResult
from bbqmis.coloring.result import verify_coloring
from bbqmis.samples import new_stats


def test_clock_counts_this_run_against_the_limit() -> None:
    clock = Clock(Limits(time_limit=4, stop=StopRequest()), before=6.2)
    assert not clock.expired()
    assert 3.9 < clock.time_left() <= 4
    assert clock.elapsed() >= 6.2


@pytest.mark.slow
def test_resume_keeps_the_checkpoint_colouring_bound_and_tree(tmp_path) -> None:
    graph = nx.gnp_random_graph(70, 0.5, seed=1)
    path = tmp_path / "run.ckpt"
    first = color_graph(graph, sampler="exact", time_limit=2, checkpoint=path, seed=0)
    assert first.stopped == "time_limit"
    assert json.loads(path.read_text())["search"] is not None
    # No time at all (the documented workflow's limit already spent): nothing may be lost.
    again = color_graph(graph, sampler="exact", time_limit=0, checkpoint=path, resume=True, seed=0)
    assert again.num_colors <= first.num_colors
    assert again.lower_bound >= first.lower_bound > 0
    assert json.loads(path.read_text())["search"] is not None
    # The same limit again is new time for this run, not a limit already spent.
    start = time.perf_counter()
    third = color_graph(graph, sampler="exact", time_limit=1, checkpoint=path, resume=True, seed=0)
    assert time.perf_counter() - start >= 0.9
    assert third.num_colors <= first.num_colors and third.lower_bound >= first.lower_bound
    assert third.stats["nodes_explored"] > again.stats["nodes_explored"]
    assert json.loads(path.read_text())["search"] is not None


def test_node_lp_refuses_a_large_graph_before_allocating() -> None:
    tracemalloc.start()
    try:
        with pytest.raises(InvalidParameterError, match="graph has 20000 vertices"):
            NodeLP(nx.path_graph(20_000), ("greedy",))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10e6
    assert NodeLP(nx.path_graph(MAX_GRAPH_NODES), ("greedy",)).graph.n == MAX_GRAPH_NODES


@pytest.mark.parametrize(
    ("cycle", "how", "stopped"),
    [(4_900, "search", "time_limit"), (20_000, "heuristic", "size_limit")],
)
def test_large_sparse_core_without_a_dense_adjacency(cycle: int, how: str, stopped: str) -> None:
    # The Grötzsch graph (chi 4, no triangle) on a long cycle: a core whose bounds (3) do
    # not meet its colouring (4). Up to TREE_MAX_NODES the tree runs (with LP on); above,
    # the core keeps the heuristics' colouring with "size_limit". Its vertices come in reverse
    # order, so that the Mycielskian bound (4 in the construction order) stays at 3.
    graph = nx.Graph()
    graph.add_nodes_from(range(10, -1, -1))
    graph.add_edges_from(nx.mycielski_graph(4).edges)
    graph = nx.union(graph, nx.cycle_graph(range(100, 100 + cycle)))
    graph.add_edge(0, 100)
    tracemalloc.start()
    try:
        result = color_graph(graph, sampler="greedy", time_limit=1.5, exact_share=0, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.num_colors == 4
    verify_coloring(graph, result.coloring)
    assert [entry["how"].split(":")[0] for entry in result.stats["searched"]] == [how]
    assert result.stopped == stopped
    assert peak < 150e6  # a dense 20,011 x 20,011 adjacency alone is 400 MB


class _Recording:
    """A heuristic pricer that records its time limits, takes ``seconds`` per call and finds nothing."""

    certifies = False

    def __init__(self, name: str, seconds: float = 0.0, on_call=None) -> None:
        self.name, self.seconds, self.on_call, self.limits = name, seconds, on_call, []

    def price(self, graph, duals, seed=None, *, time_limit=None) -> PricingResult:
        self.limits.append(time_limit)
        time.sleep(self.seconds)
        if self.on_call is not None:
            self.on_call()
        return PricingResult([], np.zeros(0), np.inf, False, new_stats(calls=1, seconds=self.seconds))


def test_lp_bound_gives_heuristic_pricers_the_time_left() -> None:
    pricer = _Recording("slow", seconds=0.3)
    graph = IndexedGraph.from_graph(nx.gnp_random_graph(40, 0.5, seed=2))
    start = time.perf_counter()
    result = lp_bound(graph, pricers=[pricer], deadline=start + 0.5, quick=False, settle=True, seed=0)
    assert 0 < pricer.limits[0] <= 0.5
    assert len(pricer.limits) == 1  # a second 0.3 s call would not fit in the 0.2 s left
    assert time.perf_counter() - start < 1.0
    assert result.stats["slow"]["calls"] == 1


def test_stop_request_ends_the_lp_phase_at_once() -> None:
    stop = StopRequest()
    pricer = _Recording("stopper", seconds=0.05, on_call=lambda: stop.set("SIGTERM"))
    graph = IndexedGraph.from_graph(nx.gnp_random_graph(60, 0.5, seed=3))
    start = time.perf_counter()
    result = lp_bound(
        graph, pricers=[pricer], deadline=start + 60, quick=False, settle=True, stop=stop.is_set
    )
    assert time.perf_counter() - start < 1.0
    assert result.status == "stopped"
    assert result.stats["exact"]["calls"] == 0


class _StopsTheRun:
    """A pricer that prices as ``pricer`` does, then requests a stop as the signal handler would."""

    certifies = False

    def __init__(self, pricer) -> None:
        self.pricer, self.name, self.stopped_at, self.calls = pricer, pricer.name, None, 0

    def price(self, graph, duals, seed=None, *, time_limit=None) -> PricingResult:
        self.calls += 1
        result = self.pricer.price(graph, duals, seed, time_limit=time_limit)
        if self.stopped_at is None:
            STOP.set("SIGTERM")
            self.stopped_at = time.perf_counter()
        return result


def test_stop_request_during_the_root_lp_ends_the_run_promptly(monkeypatch) -> None:
    graph = nx.gnp_random_graph(70, 0.5, seed=1)
    # The request comes from inside the root LP, after its first pricing: no timer guesses when it runs.
    stopper = _StopsTheRun(get_pricer("anneal"))
    monkeypatch.setattr("bbqmis.coloring.phases.pricers_for", lambda sampler: (stopper,))
    STOP.clear()
    try:
        result = color_graph(graph, sampler="exact", time_limit=600, exact_share=0, lp_share=1, seed=0)
    finally:
        STOP.clear()
    assert stopper.stopped_at is not None, "the root LP never priced"
    assert time.perf_counter() - stopper.stopped_at < 2.5
    assert stopper.calls == 1  # the LP checks the request between pricings: it priced no more
    assert result.stopped == "interrupted"


def test_memory_limit_stops_the_phases_before_the_tree() -> None:
    graph = nx.gnp_random_graph(70, 0.5, seed=1)
    start = time.perf_counter()
    result = color_graph(graph, sampler="exact", time_limit=20, memory_limit=0.01, seed=0)
    assert time.perf_counter() - start < 2.0
    assert result.stopped == "memory_limit"
    assert result.num_colors <= 13
