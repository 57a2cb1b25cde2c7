"""The Mycielskian bound inside exact DSATUR: at the root and on the quotient graph of every node."""

import time

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.utils.errors import InvalidParameterError
from bbqmis import read_graph
from bbqmis.coloring.classical.dsatur_exact import _bitsets, exact_coloring
from bbqmis.coloring.classical.dsatur_search import dsatur_search

DATA = "data/graphs"


def adjacency(graph: nx.Graph) -> np.ndarray:
    return nx.to_numpy_array(graph, dtype=bool, weight=None)


def assert_proper(adj: np.ndarray, colors: np.ndarray) -> None:
    assert not (adj & (colors[:, None] == colors[None, :])).any()


def perturbed(graph: nx.Graph, data: st.DataObject) -> nx.Graph:
    """``graph`` relabelled at random, with a few edges removed and a few added."""
    n = graph.number_of_nodes()
    order = data.draw(st.permutations(range(n)))
    mapping = dict(zip(graph, order, strict=True))
    result = nx.Graph()
    result.add_nodes_from(range(n))
    edges = [(mapping[a], mapping[b]) for a, b in graph.edges]
    drop = data.draw(st.sets(st.integers(0, len(edges) - 1), max_size=3))
    result.add_edges_from(e for i, e in enumerate(edges) if i not in drop)
    extra = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3))
    result.add_edges_from((a, b) for a, b in extra if a != b)
    return result


@pytest.mark.timeout(120)
@settings(max_examples=60, deadline=None)
@given(st.sampled_from([nx.mycielski_graph(4), nx.mycielski_graph(5), nx.chvatal_graph()]), st.data())
def test_the_bound_changes_no_chromatic_number(base, data):
    """With the bound at every node (share 1), exact DSATUR proves what it proves without it."""
    adj = adjacency(perturbed(base, data))
    plain = exact_coloring(adj, mycielski_share=0)
    bounded = exact_coloring(adj, mycielski_share=1.0)
    assert plain.optimal and bounded.optimal
    assert bounded.num_colors == plain.num_colors == bounded.lower_bound
    assert_proper(adj, bounded.colors)


@pytest.mark.timeout(60)
@settings(max_examples=80, deadline=None)
@given(st.integers(2, 10).flatmap(lambda n: st.lists(st.booleans(), min_size=n * n, max_size=n * n)))
def test_random_graphs_keep_their_chromatic_number(bits):
    n = int(len(bits) ** 0.5)
    upper = np.triu(np.array(bits, dtype=bool).reshape(n, n), 1)
    adj = upper | upper.T
    plain = exact_coloring(adj, mycielski_share=0)
    bounded = exact_coloring(adj, mycielski_share=1.0)
    assert bounded.optimal and bounded.num_colors == plain.num_colors
    assert_proper(adj, bounded.colors)


@pytest.mark.timeout(60)
def test_the_quotient_bound_prunes_the_first_node_of_myciel5():
    adj = _bitsets(adjacency(read_graph(f"{DATA}/myciel5.col")))  # chi 6, clique number 2
    plain = dsatur_search(adj, 6, 2, None, None)  # is there a 5-colouring?
    bounded = dsatur_search(adj, 6, 2, None, None, mycielski_share=1.0)
    assert plain[:3] == bounded[:3] == (None, 6, True)
    assert plain[3] > 10_000 and bounded[3] < 10


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "chi"), [("myciel5", 6), ("myciel6", 7), ("1-FullIns_4", 5)])
def test_the_root_bound_settles_graphs_of_mycielskian_structure(name, chi):
    adj = adjacency(read_graph(f"{DATA}/{name}.col"))
    start = time.perf_counter()
    result = exact_coloring(adj)
    assert result.optimal and result.num_colors == result.lower_bound == chi
    assert time.perf_counter() - start < 10
    assert_proper(adj, result.colors)


@pytest.mark.timeout(10)
def test_a_bad_share_is_named():
    with pytest.raises(InvalidParameterError, match="mycielski_share"):
        exact_coloring(adjacency(nx.cycle_graph(5)), mycielski_share=-0.5)
