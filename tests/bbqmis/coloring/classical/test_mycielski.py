import re
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.utils.errors import InvalidParameterError
from bbqmis import read_graph
from bbqmis.coloring.classical.mycielski import (
    MycielskiLevel,
    MycielskiWitness,
    check_witness,
    extend_clique,
    greedy_cliques,
    mycielski_bound,
    quotient_adjacency,
)

DATA = Path(__file__).resolve().parents[4] / "data" / "graphs"
SHARED = Path("/work/shared/graphs/dimacs")


def known_chi() -> dict[str, int]:
    """File name -> chromatic number, from the table of the bundled graphs' README."""
    rows = re.findall(r"^\| (\S+\.col) \| \d+ \| \d+ \| (\d+) \|", (DATA / "README.md").read_text(), re.M)
    return {name: int(chi) for name, chi in rows}


def bitsets(graph: nx.Graph) -> list[int]:
    return [sum(1 << u for u in graph.adj[v]) for v in range(graph.number_of_nodes())]


def chi(graph: nx.Graph) -> int:
    """Chromatic number by backtracking (small graphs)."""
    return min_extension(graph, {})


def min_extension(graph: nx.Graph, partial: dict[int, int]) -> int:
    """Fewest colours of a proper colouring that extends ``partial`` (whose colours are 0..)."""
    order = [v for v in graph if v not in partial]
    base = max(partial.values(), default=-1) + 1
    for k in range(max(base, 1 if graph else 0), graph.number_of_nodes() + base + 1):
        colors = dict(partial)
        if _extend(graph, order, colors, k):
            return k
    raise AssertionError("unreachable")


def _extend(graph: nx.Graph, order: list[int], colors: dict[int, int], k: int) -> bool:
    if not order:
        return True
    v, rest = order[0], order[1:]
    for c in range(k):
        if all(colors.get(u) != c for u in graph.adj[v]):
            colors[v] = c
            if _extend(graph, rest, colors, k):
                return True
            del colors[v]
    return False


small_graphs = st.integers(1, 9).flatmap(
    lambda n: st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n * (n - 1) // 2).map(
        lambda pairs: nx.Graph([(a, b) for a, b in pairs if a != b]) if pairs else nx.empty_graph(n)
    )
)


def relabelled(graph: nx.Graph) -> nx.Graph:
    return nx.convert_node_labels_to_integers(graph)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("k", range(3, 8))
def test_dimacs_myciel_graphs_get_their_chromatic_number(k):
    graph = read_graph(DATA / f"myciel{k}.col")
    witness = mycielski_bound(graph)
    assert witness.bound == k + 1
    assert len(witness.clique) == 2 and len(witness.levels) == k - 1
    assert check_witness(graph, witness) == k + 1


@pytest.mark.timeout(30)
@pytest.mark.parametrize("k", range(1, 8))
def test_networkx_mycielski_graphs_are_rebuilt_from_one_edge(k):
    graph = nx.mycielski_graph(k)  # chi = k
    witness = mycielski_bound(graph)
    assert witness.bound == k
    assert check_witness(graph, witness) == k


@pytest.mark.timeout(60)
@settings(max_examples=150, deadline=None)
@given(small_graphs)
def test_bound_never_exceeds_the_chromatic_number(graph):
    graph = relabelled(graph)
    exact = chi(graph)
    witness = mycielski_bound(graph)
    assert witness.bound <= exact
    assert check_witness(graph, witness) == witness.bound
    for clique in greedy_cliques(bitsets(graph)):
        assert extend_clique(bitsets(graph), clique).bound <= exact


@pytest.mark.timeout(60)
@settings(max_examples=100, deadline=None)
@given(small_graphs.map(relabelled), st.randoms(use_true_random=False))
def test_quotient_bound_never_exceeds_the_colours_of_an_extension(graph, rng):
    """A partial proper colouring's quotient bound is at most the colours any extension needs."""
    n = graph.number_of_nodes()
    partial: dict[int, int] = {}
    for v in rng.sample(range(n), rng.randint(0, n)):
        free = [c for c in range(n) if all(partial.get(u) != c for u in graph.adj[v])]
        partial[v] = rng.choice(free[:3])
    used = sorted(set(partial.values()))
    partial = {v: used.index(c) for v, c in partial.items()}  # colours 0..len(used)-1
    classes = [sum(1 << v for v, c in partial.items() if c == color) for color in range(len(used))]
    uncoloured = sum(1 << v for v in graph if v not in partial)
    quotient = quotient_adjacency(bitsets(graph), classes, uncoloured)
    clique = [n + c for c in range(len(classes))] or [v for v in graph][:1]
    assert extend_clique(quotient, clique).bound <= min_extension(graph, partial)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", sorted(known_chi()))
def test_bundled_dimacs_bounds_stay_at_or_below_the_known_chromatic_number(name):
    graph = read_graph(DATA / name)
    witness = mycielski_bound(graph)
    assert witness.bound <= known_chi()[name]
    assert check_witness(graph, witness) == witness.bound


@pytest.mark.timeout(60)
@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared DIMACS folder")
def test_shared_dimacs_graphs():
    expected = {"myciel3.col": 4, "myciel4.col": 5, "queen5_5.col": 5, "huck.col": 11, "anna.col": 11}
    for name, chromatic in expected.items():
        graph = read_graph(SHARED / name)
        witness = mycielski_bound(graph)
        assert check_witness(graph, witness) == witness.bound <= chromatic
        if name.startswith("myciel"):
            assert witness.bound == chromatic


@pytest.mark.timeout(10)
def test_witness_records_levels_vertices_and_edges():
    graph = nx.cycle_graph(5)
    witness = extend_clique(bitsets(graph), [0, 1])
    (level,) = witness.levels
    assert witness.clique == (0, 1) and witness.bound == 3
    assert level.w == 3 and dict(level.shadows) == {0: 2, 1: 4}
    assert level.vertices == (2, 3, 4)
    assert set(level.edges) == {(0, 4), (1, 2), (2, 3), (3, 4)}
    assert set(level.edges) <= {tuple(sorted(e)) for e in graph.edges}


@pytest.mark.timeout(10)
def test_target_stops_early_and_labels_are_kept():
    graph = nx.relabel_nodes(nx.mycielski_graph(6), {v: f"v{v}" for v in range(47)})
    witness = mycielski_bound(graph, target=4)
    assert witness.bound == 4
    assert all(isinstance(v, str) for v in witness.clique)
    assert check_witness(graph, witness) == 4


@pytest.mark.timeout(10)
def test_checker_rejects_planted_faults():
    graph = nx.mycielski_graph(4)
    witness = mycielski_bound(graph)
    level = witness.levels[0]
    v, u = level.shadows[0]
    wrong_shadow = next(x for x in graph if x != u and not graph.has_edge(x, level.w))
    bad_level = MycielskiLevel(level.w, ((v, wrong_shadow), *level.shadows[1:]), level.vertices, level.edges)
    with pytest.raises(InvalidParameterError, match="level 1"):
        check_witness(graph, MycielskiWitness(witness.clique, (bad_level, *witness.levels[1:])))
    with pytest.raises(InvalidParameterError, match="one shadow per vertex"):
        check_witness(graph, MycielskiWitness(witness.clique, (MycielskiLevel(level.w, (), (), ()),)))
    extra = MycielskiWitness(witness.clique, (*witness.levels, witness.levels[-1]))
    with pytest.raises(InvalidParameterError):
        check_witness(graph, extra)  # bound 5 > chi 4 cannot be witnessed
    with pytest.raises(InvalidParameterError, match="not adjacent"):
        check_witness(nx.path_graph(3), MycielskiWitness((0, 2), ()))


@pytest.mark.timeout(10)
def test_bad_input_is_named():
    with pytest.raises(InvalidParameterError, match="pairwise adjacent vertices: 0 and 2"):
        mycielski_bound(nx.path_graph(3), cliques=[[0, 2]], greedy=False)
    loop = nx.Graph([(0, 0), (0, 1)])
    with pytest.raises(InvalidParameterError, match="self-loop at 0"):
        mycielski_bound(loop)
    assert mycielski_bound(nx.Graph()).bound == 0
    assert mycielski_bound(nx.empty_graph(3)).bound == 1
