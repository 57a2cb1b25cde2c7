import itertools
import math
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from bbqmis import InvalidParameterError
from bbqmis.coloring.master import ColumnPool, IndexedGraph, bit_indices, safe_ceil, solve_master
from bbqmis.coloring.pricing import (
    AnnealPricer,
    ExactPricer,
    GreedyPricer,
    LPBound,
    QAOAPricer,
    RandomPricer,
    edge_clique_cover,
    get_pricer,
    lp_bound,
)
from bbqmis.mis.graphio import read_graph

DATA = Path(__file__).resolve().parents[3] / "data" / "graphs"


def fractional_chromatic(graph: nx.Graph) -> float:
    """Independent check: the set-cover LP over ALL maximal independent sets."""
    if graph.number_of_nodes() == 0:
        return 0.0
    nodes = list(graph)
    index = {v: i for i, v in enumerate(nodes)}
    sets = list(nx.find_cliques(nx.complement(graph)))
    a = np.zeros((len(nodes), len(sets)))
    for j, s in enumerate(sets):
        a[[index[v] for v in s], j] = 1
    res = linprog(np.ones(len(sets)), A_ub=-a, b_ub=-np.ones(len(nodes)), bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


def chromatic_number(graph: nx.Graph) -> int:
    """Brute force: smallest k with a proper k-colouring (backtracking)."""
    nodes = sorted(graph, key=lambda v: -graph.degree(v))
    if not nodes:
        return 0

    def colorable(k: int) -> bool:
        colors: dict = {}

        def place(i: int) -> bool:
            if i == len(nodes):
                return True
            v = nodes[i]
            used = {colors[u] for u in graph[v] if u in colors}
            for c in range(min(k, max(colors.values(), default=-1) + 2)):
                if c not in used:
                    colors[v] = c
                    if place(i + 1):
                        return True
                    del colors[v]
            return False

        return place(0)

    return next(k for k in range(1, len(nodes) + 1) if colorable(k))


def brute_force_mwis(graph: IndexedGraph, weights: np.ndarray) -> float:
    best = 0.0
    for r in range(graph.n + 1):
        for subset in itertools.combinations(range(graph.n), r):
            mask = sum(1 << v for v in subset)
            if graph.is_independent(mask):
                best = max(best, float(weights[list(subset)].sum()))
    return best


def is_maximal_independent(graph: IndexedGraph, mask: int) -> bool:
    return graph.is_independent(mask) and graph.extend(mask) == mask


# -- safe rounding -----------------------------------------------------------------------


def test_safe_ceil():
    assert safe_ceil(4.0000001) == 4
    assert safe_ceil(4.2) == 5
    assert safe_ceil(3.9999999) == 4
    assert safe_ceil(4.0) == 4
    assert safe_ceil(4.00001) == 5
    assert safe_ceil(4.00001, tol=1e-4) == 4
    with pytest.raises(InvalidParameterError, match="tol"):
        safe_ceil(2.0, tol=-1.0)
    with pytest.raises(InvalidParameterError, match="x must be"):
        safe_ceil(math.inf)


# -- column pool and master ----------------------------------------------------------------


def test_pool_deduplicates_and_extends():
    pool = ColumnPool(nx.cycle_graph(6))
    assert pool.add([{0}, {0, 2}, {0, 2, 4}, {1, 4}]) == 2  # {0} and {0,2} extend to {0,2,4}
    assert pool.add([{2, 4}]) == 0
    assert all(is_maximal_independent(pool.graph, m) for m in pool.masks)
    assert {frozenset(s) for s in pool.sets()} == {frozenset({0, 2, 4}), frozenset({1, 4})}
    assert pool.matrix().shape == (6, 2)
    assert pool.add(["not a node", {7, 9}]) == 0  # labels outside the graph are dropped, empty extends
    with pytest.raises(InvalidParameterError, match="independent"):
        pool.add([{0, 1}])
    with pytest.raises(InvalidParameterError, match="masks"):
        pool.add_masks([1 << 6])


def test_pool_cover_and_labels():
    graph = nx.relabel_nodes(nx.path_graph(4), {0: "a", 1: "b", 2: "c", 3: "d"})
    pool = ColumnPool(graph, [{"a", "c"}])
    assert pool.cover() == 1
    assert {frozenset(s) for s in pool.sets()} == {frozenset("ac"), frozenset("bd")}
    with pytest.raises(InvalidParameterError, match="cover"):
        solve_master(ColumnPool(graph, [{"a", "c"}]))


def test_master_duals_c5():
    pool = ColumnPool(nx.cycle_graph(5), [{i, (i + 2) % 5} for i in range(5)])
    solution = solve_master(pool)
    assert solution.value == pytest.approx(2.5)
    assert solution.duals.shape == (5,)
    assert np.all(solution.duals >= 0)
    assert solution.duals.sum() == pytest.approx(solution.value)
    assert solution.x.shape == (5,)


def test_indexed_graph_validation():
    with pytest.raises(InvalidParameterError, match="symmetric"):
        IndexedGraph(np.array([[0, 1], [0, 0]]))
    with pytest.raises(InvalidParameterError, match="self-loop"):
        IndexedGraph(np.eye(2))
    with pytest.raises(InvalidParameterError, match="nodes"):
        IndexedGraph(np.zeros((2, 2)), nodes=["a", "a"])
    with pytest.raises(InvalidParameterError, match="graph must be"):
        IndexedGraph.coerce([[0, 1], [1, 0]])  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.floats(0.1, 0.9), st.integers(0, 2**31 - 1))
def test_edge_clique_cover_covers_every_edge(n, p, seed):
    graph = IndexedGraph.from_graph(nx.gnp_random_graph(n, p, seed=seed))
    cliques = edge_clique_cover(graph)
    covered = set()
    for clique in cliques:
        assert all(graph.adjacency[u, v] for u, v in itertools.combinations(clique, 2))
        covered |= {frozenset(e) for e in itertools.combinations(clique, 2)}
    assert covered == {frozenset(map(int, e)) for e in zip(*np.nonzero(graph.adjacency), strict=True)}


# -- pricers -----------------------------------------------------------------------------


def test_exact_pricer_matches_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(25):
        n = int(rng.integers(1, 12))
        graph = IndexedGraph.from_graph(
            nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.8)), seed=int(rng.integers(99)))
        )
        weights = rng.uniform(0, 1, n) * (rng.random(n) < 0.8)  # some zero duals
        result = ExactPricer().price(graph, weights)
        assert result.optimal
        assert result.best == pytest.approx(brute_force_mwis(graph, weights), abs=1e-7)
        assert result.upper >= result.best - 1e-9
        assert result.upper == pytest.approx(result.best, abs=1e-6)
        assert all(is_maximal_independent(graph, m) for m in result.masks)


def test_exact_pricer_quick_mode_finds_a_heavy_set_or_none():
    rng = np.random.default_rng(8)
    for _ in range(25):
        n = int(rng.integers(2, 12))
        graph = IndexedGraph.from_graph(
            nx.gnp_random_graph(n, float(rng.uniform(0.1, 0.8)), seed=int(rng.integers(99)))
        )
        weights = rng.uniform(0, 0.6, n)
        best = brute_force_mwis(graph, weights)
        target = float(rng.uniform(0.5, 1.5))
        result = ExactPricer().price(graph, weights, target=target)
        assert not result.optimal and math.isinf(result.upper)
        if best >= target + 1e-5:
            assert result.best >= target - 1e-6
        elif best < target - 1e-5:
            assert result.best < target
        assert all(is_maximal_independent(graph, m) for m in result.masks)
    with pytest.raises(InvalidParameterError, match="target"):
        ExactPricer().price(nx.path_graph(2), [1.0, 1.0], target=0.0)


@pytest.mark.parametrize("name", ["greedy", "anneal", "random"])
def test_heuristic_pricers_return_maximal_sets(name, graphs):
    pricer = get_pricer(name)
    for graph in graphs(4, seed=3):
        indexed = IndexedGraph.from_graph(graph)
        duals = np.random.default_rng(0).uniform(0, 1, indexed.n)
        result = pricer.price(graph, duals, seed=1)
        assert result.masks and math.isinf(result.upper) and not result.optimal
        assert all(is_maximal_independent(indexed, m) for m in result.masks)
        expected = [duals[list(bit_indices(m))].sum() for m in result.masks]
        np.testing.assert_allclose(result.weights, expected)
        assert list(result.weights) == sorted(result.weights, reverse=True)
        assert result.best <= brute_force_mwis(indexed, duals) + 1e-9
        assert result.stats["calls"] == 1


def test_pricers_on_zero_duals_and_empty_graph():
    graph = nx.path_graph(4)
    for name in ["greedy", "anneal", "random", "exact"]:
        result = get_pricer(name).price(graph, np.zeros(4))
        assert result.best == 0.0
        assert all(IndexedGraph.from_graph(graph).extend(m) == m for m in result.masks)
        empty = get_pricer(name).price(nx.Graph(), np.zeros(0))
        assert empty.best == 0.0


def test_pricer_validation():
    with pytest.raises(InvalidParameterError, match="duals"):
        ExactPricer().price(nx.path_graph(3), [1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="duals"):
        GreedyPricer().price(nx.path_graph(3), [1.0, -1.0, 1.0])
    with pytest.raises(InvalidParameterError, match="time_limit"):
        ExactPricer().price(nx.path_graph(3), [1.0, 1.0, 1.0], time_limit=-1)
    with pytest.raises(InvalidParameterError, match="penalty"):
        AnnealPricer(penalty=1.0)
    with pytest.raises(InvalidParameterError, match="shots"):
        RandomPricer(shots=0)
    with pytest.raises(InvalidParameterError, match="pricer must be one of"):
        get_pricer("quantum")
    with pytest.raises(InvalidParameterError, match="options"):
        get_pricer(ExactPricer(), mip_rel_gap=0.1)
    with pytest.raises(InvalidParameterError, match="solver"):
        QAOAPricer(solver="aer")  # type: ignore[arg-type]


# -- column generation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        (nx.cycle_graph(5), 2.5),
        (nx.petersen_graph(), 2.5),
        (nx.complete_graph(1), 1.0),
        (nx.complete_graph(4), 4.0),
        (nx.complete_graph(7), 7.0),
        (read_graph(DATA / "myciel3.col"), 2.9),
        (read_graph(DATA / "myciel4.col"), 2.9 + 1 / 2.9),  # chi_f(M(G)) = chi_f(G) + 1/chi_f(G)
    ],
)
def test_certified_value_is_fractional_chromatic_number(graph, expected):
    result = lp_bound(graph, seed=0)
    assert isinstance(result, LPBound)
    assert result.certified and result.status == "optimal"
    assert result.value == pytest.approx(expected, abs=1e-7)
    assert result.value == pytest.approx(fractional_chromatic(graph), abs=1e-7)
    assert result.bound == safe_ceil(expected)
    assert result.farley == pytest.approx(expected, abs=1e-6)
    assert all(is_maximal_independent(result.columns.graph, m) for m in result.columns.masks)


@pytest.mark.parametrize("pricers", [(), ("greedy",), ("random", "anneal")])
def test_bound_never_exceeds_chromatic_number(pricers, graphs):
    for graph in graphs(12, seed=11):
        result = lp_bound(graph, pricers=pricers, seed=1)
        assert result.certified
        assert result.value == pytest.approx(fractional_chromatic(graph), abs=1e-7)
        assert result.bound <= chromatic_number(graph)


def test_farley_bound_valid_when_cut_short(graphs):
    for graph in [read_graph(DATA / "myciel4.col"), *graphs(8, seed=5, max_nodes=12)]:
        chi_f, chi = fractional_chromatic(graph), chromatic_number(graph)
        for rounds in (1, 2, 3):
            result = lp_bound(graph, pricers=(), max_rounds=rounds, seed=0)  # exact pricing every round
            assert result.farley <= chi_f + 1e-7
            assert result.bound <= chi
            assert result.rounds <= rounds
            assert result.value >= chi_f - 1e-7  # the restricted master is an upper bound
            if not result.certified:
                assert result.status == "max_rounds"
                assert result.bound == safe_ceil(result.farley) if result.farley else result.bound == 0


@pytest.mark.parametrize("quick", [True, False])
def test_quick_and_settle(quick):
    graph = nx.gnp_random_graph(30, 0.3, seed=2)  # chi_f = 14/3
    chi_f = fractional_chromatic(graph)
    full = lp_bound(graph, pricers=(), quick=quick, seed=0)
    assert full.certified and full.value == pytest.approx(chi_f, abs=1e-7)
    exact = full.stats["exact"]
    if quick:  # every exact round starts quick; the certifying round also runs in full
        assert 1 <= exact["quick_calls"] < exact["calls"]
    else:
        assert exact["quick_calls"] == 0
    settled = lp_bound(graph, pricers=(), quick=quick, settle=True, seed=0)
    assert settled.status in ("settled", "optimal")
    assert settled.bound == safe_ceil(chi_f)
    assert settled.rounds <= full.rounds


def test_deadline():
    graph = read_graph(DATA / "myciel4.col")
    expired = lp_bound(graph, deadline=time.perf_counter() - 1.0)
    assert (expired.rounds, expired.bound, expired.certified, expired.status) == (0, 0, False, "deadline")
    assert len(expired.columns) > 0  # seeded with a colouring and a cover
    gnp = nx.gnp_random_graph(60, 0.15, seed=4)
    start = time.perf_counter()
    short = lp_bound(gnp, pricers=(), deadline=start + 0.3, seed=0)
    assert time.perf_counter() - start < 3.0
    if not short.certified:
        assert short.status == "deadline"
    assert short.bound <= chromatic_number(gnp)


def test_heuristics_only_give_no_bound():
    result = lp_bound(read_graph(DATA / "myciel4.col"), pricers=("anneal",), exact=False, seed=0)
    assert not result.certified and result.status == "exhausted"
    assert result.bound == 0 and result.farley == 0.0
    assert "exact" not in result.stats
    assert result.value >= 2.9 + 1 / 2.9 - 1e-7


def test_stats_and_column_reuse():
    graph = read_graph(DATA / "myciel4.col")
    first = lp_bound(graph, pricers=("greedy", "anneal"), seed=2)
    stats = first.stats
    assert set(stats) == {"master", "greedy", "anneal", "exact"}
    assert stats["master"]["calls"] == first.rounds
    added = sum(stats[name]["improving_columns"] for name in ("greedy", "anneal", "exact"))
    assert len(first.columns) == stats["master"]["initial_columns"] + added
    assert stats["exact"]["calls"] >= 1 and stats["greedy"]["calls"] == first.rounds
    again = lp_bound(graph, first.columns, seed=3)
    assert again.certified and again.rounds == 1
    assert again.value == pytest.approx(first.value)
    # A parent's pool seeds a residual subgraph: columns are restricted and re-extended.
    sub = graph.subgraph(list(graph)[:15]).copy()
    child = lp_bound(sub, first.columns, seed=4)
    assert child.certified and child.value == pytest.approx(fractional_chromatic(sub), abs=1e-7)
    assert all(is_maximal_independent(child.columns.graph, m) for m in child.columns.masks)


def test_sampled_sets_seed_the_master():
    graph = nx.petersen_graph()
    sets = list(nx.find_cliques(nx.complement(graph)))
    result = lp_bound(graph, sets, pricers=("anneal",), seed=0)
    assert result.certified and result.rounds == 1
    assert result.stats["anneal"]["improving_columns"] == 0


def test_adjacency_input_and_empty_graph():
    adjacency = nx.to_numpy_array(nx.cycle_graph(5), dtype=bool)
    assert lp_bound(adjacency, seed=0).value == pytest.approx(2.5)
    empty = lp_bound(nx.Graph())
    assert (empty.value, empty.bound, empty.certified) == (0.0, 0, True)
    isolated = lp_bound(nx.empty_graph(3))
    assert (isolated.value, isolated.bound) == (pytest.approx(1.0), 1)


def test_lp_bound_validation():
    graph = nx.cycle_graph(5)
    with pytest.raises(InvalidParameterError, match="max_rounds"):
        lp_bound(graph, max_rounds=0)
    with pytest.raises(InvalidParameterError, match="pricers"):
        lp_bound(graph, pricers="anneal")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="exact"):
        lp_bound(graph, exact=GreedyPricer())
    with pytest.raises(InvalidParameterError, match="deadline"):
        lp_bound(graph, deadline=math.nan)
    with pytest.raises(InvalidParameterError, match="independent"):
        lp_bound(graph, [{0, 1}])
    with pytest.raises(InvalidParameterError, match="self-loop"):
        lp_bound(nx.Graph([(0, 0)]))


# -- the quantum pricer ------------------------------------------------------------------


def test_qaoa_pricer_on_aer():
    graph = read_graph(DATA / "myciel4.col")  # 23 vertices
    pricer = QAOAPricer("aer", shots=256, max_qubits=10)
    duals = np.random.default_rng(1).uniform(0.1, 1.0, 23)
    result = pricer.price(graph, duals, seed=5)
    indexed = IndexedGraph.from_graph(graph)
    assert result.masks and all(is_maximal_independent(indexed, m) for m in result.masks)
    # Only the 10 largest duals were sampled: one uncut circuit, no fallback.
    assert result.stats["circuits"] == 1 and result.stats["shots"] == 256
    assert result.stats["fallbacks"] == 0 and result.stats["cut_problems"] == 0

    bound = lp_bound(read_graph(DATA / "myciel3.col"), pricers=(pricer,), seed=3)
    assert bound.certified and bound.value == pytest.approx(2.9)
    qaoa = bound.stats["qaoa"]
    assert qaoa["calls"] == bound.rounds and qaoa["circuits"] == bound.rounds
    assert qaoa["improving_columns"] >= 1  # the quantum pricer contributed columns
    assert qaoa["quantum_seconds"] > 0
