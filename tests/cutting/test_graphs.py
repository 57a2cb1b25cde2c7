import networkx as nx
import pytest

from bbqmis.mis.errors import InvalidParameterError
from cutting import find_separators, kd_clustered_graph


@pytest.mark.parametrize("k, size, d", [(2, 4, 1), (3, 3, 2), (4, 5, 1)])
def test_structure(k, size, d):
    g = kd_clustered_graph(k, size, d, 0.5, 0.4, seed=3)
    assert g.number_of_nodes() == k * size + (k - 1) * d
    separators = {v for v, role in g.nodes(data="role") if role == "separator"}
    assert len(separators) == (k - 1) * d
    rest = g.subgraph(set(g) - separators)
    components = list(nx.connected_components(rest))
    assert len(components) == k and all(len(c) == size for c in components)
    assert nx.is_connected(g)
    assert all({g.nodes[v]["block"] for v in c} == {g.nodes[next(iter(c))]["block"]} for c in components)
    separation = find_separators(g, size)
    assert len(separation.separator) <= (k - 1) * d
    assert max(map(len, separation.components)) <= size


def test_seeded():
    a, b = (kd_clustered_graph(3, 4, 1, 0.5, 0.5, seed=9) for _ in range(2))
    assert nx.utils.graphs_equal(a, b)
    assert not nx.utils.graphs_equal(a, kd_clustered_graph(3, 4, 1, 0.5, 0.5, seed=10))


def test_bad_probability():
    with pytest.raises(InvalidParameterError, match=r"^p_inter must be a probability in \[0, 1\], got 1.5$"):
        kd_clustered_graph(2, 3, 1, 0.5, 1.5)
