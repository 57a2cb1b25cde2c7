import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bbqmis.mis.adjacency import adjacency


@st.composite
def graphs(draw):
    n = draw(st.integers(0, 12))
    pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    chosen = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = [pair for pair, keep in zip(pairs, chosen, strict=True) if keep]
    # Any edge order and orientation: shuffle and flip.
    order = draw(st.permutations(range(len(edges))))
    flips = draw(st.lists(st.booleans(), min_size=len(edges), max_size=len(edges)))
    return n, [edges[i][::-1] if flip else edges[i] for i, flip in zip(order, flips, strict=True)]


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_incidence_and_triangles_match_networkx(case):
    n, edges = case
    a = adjacency(np.array(edges, dtype=int).reshape(-1, 2), n)
    graph = nx.Graph(edges)
    graph.add_nodes_from(range(n))
    for u in range(n):
        ids = a.incident[a.indptr[u] : a.indptr[u + 1]]
        ends = [set(edges[e]) for e in ids]
        assert all(u in end for end in ends)
        assert sorted(w for end in ends for w in end - {u}) == sorted(graph[u])
    expected = {(e, f) for e, (u, v) in enumerate(edges) for f in nx.common_neighbors(graph, u, v)}
    found = set()
    for e, eu, ev in zip(a.triangle_edge, a.triangle_u, a.triangle_v, strict=True):
        u, v = edges[e]
        (f,) = set(edges[eu]) - {u}
        assert set(edges[eu]) == {u, f} and set(edges[ev]) == {v, f}
        found.add((int(e), f))
    assert found == expected and len(found) == a.triangle_edge.size
    assert np.all(np.diff(a.triangle_edge) >= 0)


def test_triangle_of_a_clique():
    a = adjacency(np.array(list(nx.complete_graph(5).edges)), 5)
    # every one of the 10 edges lies on 3 triangles
    assert np.bincount(a.triangle_edge).tolist() == [3] * 10


@pytest.mark.parametrize("n", [0, 3])
def test_no_edges(n):
    a = adjacency(np.zeros((0, 2), dtype=int), n)
    assert a.indptr.tolist() == [0] * (n + 1)
    assert a.incident.size == a.triangle_edge.size == 0
