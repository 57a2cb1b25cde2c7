"""The 0/1 CSR adjacency of a simple graph (bbqmis.coloring.classical.matrices)."""

import networkx as nx
import numpy as np
import pytest

from bbqmis.coloring.classical.matrices import csr_adjacency


def reference(graph, nodes=None):
    return nx.to_scipy_sparse_array(graph, nodelist=nodes, weight=None, format="csr")


def assert_same_matrix(matrix, expected):
    """Same shape, dtype and stored entries, with sorted column indices in each row.

    networkx gives an edgeless graph float64 entries (none stored); ours are int64 always.
    """
    assert matrix.format == "csr" and matrix.shape == expected.shape
    assert matrix.dtype == np.int64 and (expected.nnz == 0 or expected.dtype == np.int64)
    assert matrix.has_sorted_indices
    expected.sort_indices()
    np.testing.assert_array_equal(matrix.indptr, expected.indptr)
    np.testing.assert_array_equal(matrix.indices, expected.indices)
    np.testing.assert_array_equal(matrix.data, expected.data)
    for row in range(matrix.shape[0]):
        columns = matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]]
        assert np.all(np.diff(columns) > 0)


def weighted_random_graph(seed, *, strings=False):
    """A random graph with random edge weights, vertices inserted in a shuffled order."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 40))
    source = nx.gnp_random_graph(n, float(rng.uniform(0.05, 0.8)), seed=seed)
    order = [int(v) for v in rng.permutation(n)]
    graph = nx.Graph()
    graph.add_nodes_from(f"v{v}" if strings else v for v in order)
    for u, v in source.edges:
        weight = float(rng.uniform(0.5, 9.5))
        graph.add_edge(f"v{u}" if strings else u, f"v{v}" if strings else v, weight=weight)
    return graph


@pytest.mark.timeout(30)
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("strings", [False, True], ids=["int-labels", "str-labels"])
def test_csr_adjacency_matches_networkx_on_random_weighted_graphs(seed, strings):
    graph = weighted_random_graph(seed, strings=strings)
    matrix = csr_adjacency(graph)
    assert_same_matrix(matrix, reference(graph))
    assert set(matrix.data.tolist()) <= {1}  # the weights are ignored
    assert matrix.nnz == 2 * graph.number_of_edges()


@pytest.mark.timeout(30)
@pytest.mark.parametrize("seed", range(8))
def test_csr_adjacency_follows_a_custom_node_order(seed):
    graph = weighted_random_graph(seed, strings=seed % 2 == 1)
    nodes = list(graph)
    np.random.default_rng(seed + 100).shuffle(nodes)
    matrix = csr_adjacency(graph, nodes)
    assert_same_matrix(matrix, reference(graph, nodes))
    dense = matrix.toarray()
    assert all(dense[i, j] == graph.has_edge(u, v) for i, u in enumerate(nodes) for j, v in enumerate(nodes))


@pytest.mark.timeout(30)
def test_csr_adjacency_keeps_isolated_vertices_as_empty_rows():
    graph = nx.disjoint_union_all([nx.cycle_graph(5), nx.empty_graph(4), nx.path_graph(3)])
    graph.add_node("alone")
    matrix = csr_adjacency(graph)
    assert_same_matrix(matrix, reference(graph))
    empty_rows = [v for i, v in enumerate(graph) if matrix.indptr[i] == matrix.indptr[i + 1]]
    assert empty_rows == [v for v in graph if graph.degree(v) == 0]


@pytest.mark.timeout(30)
def test_csr_adjacency_of_the_empty_graph_is_zero_by_zero():
    matrix = csr_adjacency(nx.Graph())
    assert matrix.format == "csr" and matrix.shape == (0, 0) and matrix.dtype == np.int64
    assert matrix.nnz == 0 and matrix.indptr.tolist() == [0]
    edgeless = csr_adjacency(nx.empty_graph(3))
    assert_same_matrix(edgeless, reference(nx.empty_graph(3)))


@pytest.mark.timeout(30)
def test_csr_adjacency_leaves_the_graph_unchanged():
    graph = weighted_random_graph(3)
    before = nx.node_link_data(graph, edges="edges")
    csr_adjacency(graph, list(reversed(list(graph))))
    assert nx.node_link_data(graph, edges="edges") == before


@pytest.mark.timeout(30)
def test_csr_adjacency_refuses_an_order_that_an_edge_leaves():
    graph = nx.path_graph(4)
    with pytest.raises(KeyError):
        csr_adjacency(graph, [0, 1, 2])  # the edge (2, 3) leaves the order
