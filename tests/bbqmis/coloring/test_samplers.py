import pickle
import random

import networkx as nx
import numpy as np
import pytest

import bbqmis.coloring.samplers as samplers_module
import bbqmis.samples as samples_module
from bbqmis import InvalidParameterError
from bbqmis.coloring.samplers import (
    AnnealingSampler,
    ExactSampler,
    GreedySampler,
    MISSampler,
    QAOASampler,
    RandomSampler,
    Samples,
    get_sampler,
    iter_maximal_independent_sets,
    maximal_independent_sets,
)
from bbqmis.mis.problem import MISProblem


def first_fit_sets(graph, seed):
    """A plain-function sampler: distinct first-fit maximal independent sets in random orders."""
    rng = random.Random(seed)
    found = []
    for _ in range(4):
        order = list(graph)
        rng.shuffle(order)
        chosen = set()
        for v in order:
            if not chosen & set(graph[v]):
                chosen.add(v)
        if frozenset(chosen) not in found:
            found.append(frozenset(chosen))
    return found


#: (id, name or callable, options). QAOA stays tiny: few shots, components of <= 4 vertices.
SAMPLERS = [
    ("exact", "exact", {}),
    ("greedy", "greedy", {"num_sets": 8}),
    ("random", "random", {"shots": 64}),
    ("anneal", "anneal", {"shots": 16, "sweeps": 50}),
    ("qaoa-aer", "qaoa", {"backend": "aer", "shots": 32}),
    ("callable", first_fit_sets, {}),
]
IDS = [case[0] for case in SAMPLERS]


@pytest.fixture(params=SAMPLERS, ids=IDS)
def sampler(request):
    _, spec, options = request.param
    return get_sampler(spec, **options)


def is_independent(graph, nodes) -> bool:
    return not any(graph.has_edge(u, v) for u in nodes for v in nodes if u != v)


def is_maximal_independent(graph, nodes) -> bool:
    return is_independent(graph, nodes) and all(v in nodes or set(graph[v]) & nodes for v in graph)


def brute_force_maximal_sets(graph, bitstrings) -> set[frozenset]:
    """Every maximal independent set, by checking all 2**n subsets."""
    nodes = list(graph)
    n = len(nodes)
    adj = nx.to_numpy_array(graph, nodelist=nodes, dtype=int, weight=None)
    x = bitstrings(n).astype(int)
    independent = ((x @ adj) * x).sum(1) == 0
    dominated = ((x + x @ adj) > 0).all(1)
    return {frozenset(nodes[i] for i in np.flatnonzero(row)) for row in x[independent & dominated]}


def small_graphs(graphs, seed):
    """Random graphs (components <= 4 vertices, isolated vertices), fixed shapes, string labels."""
    cases = list(graphs(3, seed=seed, max_nodes=5))
    cases.append(nx.relabel_nodes(nx.cycle_graph(5), {i: f"v{i}" for i in range(5)}))
    star = nx.star_graph(3)
    star.add_node(9)
    cases.append(star)
    return cases


# -- contract: every sampler ----------------------------------------------------------
def test_sampler_returns_distinct_maximal_independent_sets(sampler, graphs):
    for graph in small_graphs(graphs, seed=31):
        result = sampler.sample(graph, seed=1)
        assert isinstance(result, Samples)
        assert result.sets, graph.edges
        assert all(isinstance(s, frozenset) for s in result.sets)
        assert len(set(result.sets)) == len(result.sets), result.sets
        for s in result.sets:
            assert is_maximal_independent(graph, s), (sorted(graph.edges), s)
        isolated = {v for v in graph if graph.degree(v) == 0}
        assert all(isolated <= s for s in result.sets)
        assert result.stats["calls"] == 1


def test_sampler_on_the_empty_graph(sampler):
    result = sampler.sample(nx.Graph(), seed=0)
    assert result.sets == [frozenset()]
    assert result.stats["calls"] == 1


def test_sampler_on_an_edgeless_graph(sampler):
    result = sampler.sample(nx.empty_graph(4), seed=0)
    assert result.sets == [frozenset(range(4))]


def test_sampler_same_seed_same_sets(sampler, graphs):
    for graph in list(graphs(2, seed=32, max_nodes=5)):
        assert sampler.sample(graph, seed=5).sets == sampler.sample(graph, seed=5).sets


def test_sampler_leaves_the_graph_unchanged(sampler):
    graph = nx.petersen_graph() if not isinstance(sampler, QAOASampler) else nx.path_graph(4)
    before = nx.to_dict_of_lists(graph)
    sampler.sample(graph, seed=0)
    assert nx.to_dict_of_lists(graph) == before


def test_sampler_is_an_mis_sampler_and_pickles(sampler):
    assert isinstance(sampler, MISSampler)
    assert sampler.exhaustive is isinstance(sampler, ExactSampler)
    if not hasattr(sampler, "function"):  # the callable adapter pickles only if its function does
        clone = pickle.loads(pickle.dumps(sampler))
        assert type(clone) is type(sampler)
        assert vars(clone) == vars(sampler)


# -- seeded samplers vary with the seed --------------------------------------------
@pytest.mark.parametrize(
    "name,options", [("random", {"shots": 4, "max_sets": 64}), ("greedy", {"num_sets": 2})]
)
def test_different_seeds_can_give_different_sets(name, options):
    sampler = get_sampler(name, **options)
    graph = nx.cycle_graph(9)
    assert len({tuple(sampler.sample(graph, seed=s).sets) for s in range(10)}) > 1


# -- ExactSampler / maximal_independent_sets -------------------------------------------
def test_exact_sampler_returns_every_maximal_independent_set(graphs, bitstrings):
    sampler = ExactSampler()
    for graph in graphs(40, seed=33, max_nodes=7):
        assert graph.number_of_nodes() <= 9
        result = sampler.sample(graph)
        assert result.complete is True
        assert len(set(result.sets)) == len(result.sets)
        assert set(result.sets) == brute_force_maximal_sets(graph, bitstrings)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 9])
def test_exact_sampler_on_cycles_counts_perrin_numbers(n):
    # The number of maximal independent sets of C_n is the Perrin number P(n).
    perrin = [3, 0, 2]
    while len(perrin) <= n:
        perrin.append(perrin[-2] + perrin[-3])
    assert len(ExactSampler().sample(nx.cycle_graph(n)).sets) == perrin[n]


def test_maximal_independent_sets_of_a_disjoint_union_is_the_product(graphs):
    generated = list(graphs(12, seed=34, max_nodes=6))
    for g, h in zip(generated[::2], generated[1::2], strict=True):
        union = nx.disjoint_union(g, h)
        shifted = nx.relabel_nodes(h, {v: v + len(g) for v in h})
        g_sets, g_complete = maximal_independent_sets(g)
        h_sets, h_complete = maximal_independent_sets(shifted)
        sets, complete = maximal_independent_sets(union)
        assert g_complete and h_complete and complete
        assert len(sets) == len(g_sets) * len(h_sets)
        assert set(sets) == {a | b for a in g_sets for b in h_sets}


def test_maximal_independent_sets_of_the_empty_graph():
    assert maximal_independent_sets(nx.Graph()) == ([frozenset()], True)
    assert maximal_independent_sets(nx.Graph(), limit=1) == ([frozenset()], True)


def test_maximal_independent_sets_is_deterministic(graphs):
    for graph in graphs(10, seed=35):
        assert maximal_independent_sets(graph) == maximal_independent_sets(graph.copy())


def test_exact_sampler_limit_boundary():
    graph = nx.cycle_graph(9)  # one component, P(9) = 12 maximal independent sets
    total = len(ExactSampler().sample(graph).sets)
    assert total == 12
    at = ExactSampler(limit=total).sample(graph)
    assert (len(at.sets), at.complete) == (total, True)
    below = ExactSampler(limit=total - 1).sample(graph)
    assert len(below.sets) <= total - 1
    assert below.complete is False


@pytest.mark.parametrize("limit", [1, 2, 3, 5])
def test_exact_sampler_with_a_limit_returns_at_most_limit_maximal_sets(graphs, limit):
    for graph in graphs(15, seed=36, max_nodes=8):
        full = maximal_independent_sets(graph)[0]
        result = ExactSampler(limit=limit).sample(graph)
        assert len(result.sets) <= limit
        assert result.complete is (len(full) <= limit)
        assert len(set(result.sets)) == len(result.sets)
        for s in result.sets:
            assert s in full, (sorted(graph.edges), limit, s)


def test_exact_sampler_limit_on_a_later_component_keeps_sets_maximal():
    # Two triangles and an isolated vertex: 9 maximal sets, e.g. {0, 3, 6}.
    graph = nx.disjoint_union(nx.complete_graph(3), nx.complete_graph(3))
    graph.add_node(6)
    result = ExactSampler(limit=2).sample(graph)
    assert result.complete is False
    assert 1 <= len(result.sets) <= 2
    for s in result.sets:
        assert is_maximal_independent(graph, s), s


# -- QAOA specifics -------------------------------------------------------------------
def test_qaoa_sampler_counts_circuits_and_shots():
    graph = nx.disjoint_union(nx.path_graph(4), nx.cycle_graph(3))
    graph.add_node(7)
    result = QAOASampler(backend="aer", shots=32).sample(graph, seed=3)
    assert result.stats["circuits"] == 2  # one per component with an edge; the isolated vertex needs none
    assert result.stats["shots"] == 64
    assert result.stats["quantum_seconds"] > 0
    assert result.stats["fallbacks"] == 0
    assert all(is_maximal_independent(graph, s) and 7 in s for s in result.sets)


def test_qaoa_sampler_falls_back_for_a_component_wider_than_max_qubits():
    graph = nx.disjoint_union(nx.path_graph(3), nx.complete_graph(2))
    result = QAOASampler(backend="aer", shots=16, max_qubits=2, cut=False).sample(graph, seed=4)
    assert result.stats["fallbacks"] == 1
    assert result.stats["circuits"] == 1  # only K2 ran on the device
    assert result.stats["cut_problems"] == 0
    assert result.sets
    assert all(is_maximal_independent(graph, s) for s in result.sets)


# -- constructors and get_sampler ---------------------------------------------------
def test_get_sampler_by_name_passes_options():
    assert isinstance(get_sampler(), QAOASampler)
    assert get_sampler("exact", limit=7).limit == 7
    assert get_sampler("greedy", num_sets=3).num_sets == 3
    assert (get_sampler("random", shots=5).shots, get_sampler("anneal", sweeps=9).sweeps) == (5, 9)
    qaoa = get_sampler("qaoa", backend="aer", shots=8, max_qubits=3, cut=False)
    assert (qaoa.solver.backend, qaoa.shots, qaoa.solver.max_qubits, qaoa.solver.cut) == ("aer", 8, 3, False)


def test_get_sampler_returns_a_sampler_object_unchanged():
    sampler = ExactSampler(limit=3)
    assert get_sampler(sampler) is sampler


def test_get_sampler_wraps_a_callable():
    sampler = get_sampler(first_fit_sets)
    assert sampler.exhaustive is False
    result = sampler.sample(nx.path_graph(3), seed=0)
    assert set(result.sets) <= {frozenset({0, 2}), frozenset({1})}
    assert result.complete is False


def test_get_sampler_unknown_name():
    with pytest.raises(InvalidParameterError) as excinfo:
        get_sampler("quantum")
    assert (
        str(excinfo.value)
        == "sampler must be one of 'qaoa', 'exact', 'greedy', 'random', 'anneal'; got 'quantum'"
    )
    assert isinstance(excinfo.value, ValueError)


@pytest.mark.parametrize("sampler", [ExactSampler(), first_fit_sets], ids=["object", "callable"])
def test_get_sampler_rejects_options_with_an_object(sampler):
    with pytest.raises(InvalidParameterError) as excinfo:
        get_sampler(sampler, limit=3)
    assert str(excinfo.value) == "sampler options can only be given with a sampler name"


def test_get_sampler_rejects_other_types():
    with pytest.raises(InvalidParameterError) as excinfo:
        get_sampler(42)
    assert str(excinfo.value) == "sampler must be a name, an MISSampler or a callable; got 42"


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: ExactSampler(limit=0), "limit must be a positive integer, got 0"),
        (lambda: GreedySampler(num_sets=1.5), "num_sets must be a positive integer, got 1.5"),
        (lambda: RandomSampler(shots=True), "shots must be a positive integer, got True"),
        (lambda: AnnealingSampler(max_sets=-1), "max_sets must be a positive integer, got -1"),
        (lambda: AnnealingSampler(sweeps=0), "sweeps must be a positive integer, got 0"),
        (lambda: QAOASampler(max_qubits=0), "max_qubits must be a positive integer, got 0"),
        (lambda: QAOASampler(sleep_factor=-1.0), "sleep_factor must be a finite number >= 0, got -1.0"),
        (
            lambda: QAOASampler(backend=None),
            "backend must be a spec such as 'aer' or a QuantumBackend, got None",
        ),
    ],
)
def test_sampler_constructors_check_their_parameters(make, message):
    with pytest.raises(InvalidParameterError) as excinfo:
        make()
    assert str(excinfo.value) == message


def test_bad_seed_is_rejected():
    with pytest.raises(InvalidParameterError) as excinfo:
        GreedySampler().sample(nx.path_graph(3), seed="x")
    assert str(excinfo.value) == "seed must be None, an int or a numpy Generator, got 'x'"


def test_callable_sampler_removes_duplicates():
    sampler = get_sampler(lambda graph, seed: [{0, 2}, {0, 2}, {1}])
    assert sampler.sample(nx.path_graph(3)).sets == [frozenset({0, 2}), frozenset({1})]


# -- max_elements: a cap on the vertices held by the sets of one call ----------------------
def shortest_prefix_holding(stream, max_elements):
    """The sets an enumeration keeps when it stops once ``max_elements`` vertices are held."""
    kept, held = [], 0
    for independent in stream:
        if held >= max_elements:
            break
        kept.append(independent)
        held += len(independent)
    return kept


@pytest.mark.timeout(60)
def test_maximal_independent_sets_stop_once_max_elements_vertices_are_held(graphs):
    for graph in [*graphs(12, seed=41, max_nodes=9), nx.cycle_graph(9), nx.petersen_graph()]:
        every = list(iter_maximal_independent_sets(graph))
        total = sum(map(len, every))
        for cap in sorted({1, 2, 3, total // 2 or 1, total - 1 or 1, total, total + 1}):
            sets, complete = maximal_independent_sets(graph, max_elements=cap)
            expected = shortest_prefix_holding(every, cap)
            assert set(sets) == set(expected) and len(sets) == len(expected)
            assert all(is_maximal_independent(graph, s) for s in sets)
            held = sum(map(len, sets))
            assert complete is (len(sets) == len(every))  # incomplete only when a set was left out
            if not complete:
                # Stopped after the first set that reached the cap: without it, fewer were held.
                assert held >= cap > held - len(expected[-1])
            if cap >= total:
                assert complete and set(sets) == set(every)


@pytest.mark.timeout(30)
def test_maximal_independent_sets_cap_boundary_on_a_cycle():
    graph = nx.cycle_graph(9)  # P(9) = 12 maximal independent sets
    every = list(iter_maximal_independent_sets(graph))
    total = sum(map(len, every))
    assert maximal_independent_sets(graph, max_elements=total)[1] is True
    assert maximal_independent_sets(graph, max_elements=total + 10)[1] is True
    held_before_last = total - len(every[-1])
    sets, complete = maximal_independent_sets(graph, max_elements=held_before_last)
    assert (len(sets), complete) == (len(every) - 1, False)  # the last set was left out
    just_above = maximal_independent_sets(graph, max_elements=held_before_last + 1)
    assert just_above == maximal_independent_sets(graph)  # the last set is taken: nothing left out


@pytest.mark.timeout(30)
def test_maximal_independent_sets_of_the_empty_graph_with_a_cap():
    assert maximal_independent_sets(nx.Graph(), max_elements=1) == ([frozenset()], True)


@pytest.mark.timeout(30)
def test_maximal_independent_sets_with_both_caps_stops_at_the_first_reached():
    graph = nx.cycle_graph(9)
    by_count, complete = maximal_independent_sets(graph, limit=2, max_elements=10**6)
    assert (len(by_count), complete) == (2, False)
    by_elements, complete = maximal_independent_sets(graph, limit=10**6, max_elements=4)
    every = list(iter_maximal_independent_sets(graph))
    assert set(by_elements) == set(shortest_prefix_holding(every, 4)) and complete is False


@pytest.mark.timeout(30)
def test_exact_sampler_with_max_elements_reports_an_incomplete_sample():
    graph = nx.cycle_graph(9)
    full = ExactSampler().sample(graph)
    total = sum(map(len, full.sets))
    assert full.complete is True and ExactSampler().max_elements >= total
    last = list(iter_maximal_independent_sets(graph))[-1]
    capped = ExactSampler(max_elements=total - len(last)).sample(graph)  # every set but the last
    assert capped.complete is False and set(capped.sets) == set(full.sets) - {last}
    # A cap below the total that the last set reaches leaves nothing out.
    assert ExactSampler(max_elements=total - len(last) + 1).sample(graph).complete is True
    at = ExactSampler(max_elements=total).sample(graph)
    assert at.complete is True and set(at.sets) == set(full.sets)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("value", [0, -1, 1.5, True, "3"])
def test_exact_sampler_refuses_a_bad_max_elements(value):
    with pytest.raises(InvalidParameterError) as excinfo:
        ExactSampler(max_elements=value)
    assert str(excinfo.value) == f"max_elements must be a positive integer, got {value!r}"
    assert isinstance(excinfo.value, ValueError)


def test_annealing_takes_fewer_reads_on_a_graph_too_large_for_its_work_bound(monkeypatch):
    graph = nx.cycle_graph(30)
    size = graph.number_of_nodes() + graph.number_of_edges()
    monkeypatch.setattr(samples_module, "ANNEALING_WORK", 10 * size * 5)  # 5 reads of 10 sweeps
    samples = AnnealingSampler(shots=64, sweeps=10).sample(graph, seed=0)
    problem = MISProblem(graph)
    assert 1 <= len(samples.sets) <= 5  # one set per read at most
    assert all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)


def test_only_the_most_frequent_bitstrings_are_repaired_on_a_large_component(monkeypatch):
    graph = nx.cycle_graph(30)
    size = graph.number_of_nodes() + graph.number_of_edges()
    repaired = []
    original = MISProblem.repair

    def counting(self, bits, seed=None):
        repaired.append(1)
        return original(self, bits, seed=seed)

    monkeypatch.setattr(MISProblem, "repair", counting)
    monkeypatch.setattr(samplers_module, "REPAIR_WORK", size * 10)  # ten repairs
    samples = RandomSampler(shots=256, max_sets=4).sample(graph, seed=0)
    assert len(repaired) == 10  # of 256 distinct random bitstrings
    problem = MISProblem(graph)
    assert 1 <= len(samples.sets) <= 4
    assert all(problem.is_maximal(problem.to_bits(s)) for s in samples.sets)
    repaired.clear()
    monkeypatch.setattr(samplers_module, "REPAIR_WORK", 1)  # never fewer than max_sets
    RandomSampler(shots=256, max_sets=4).sample(graph, seed=0)
    assert len(repaired) == 4
