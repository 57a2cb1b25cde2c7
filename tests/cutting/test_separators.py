from itertools import combinations

import networkx as nx
import pytest

from cutting import NoSeparatorError, find_separators
from cutting.separators import separator_components


def brute_force_size(g, max_component):
    for size in range(g.number_of_nodes() + 1):
        for subset in combinations(g, size):
            rest = g.subgraph(set(g) - set(subset))
            if max(map(len, nx.connected_components(rest)), default=0) <= max_component:
                return size


def test_path():
    assert find_separators(nx.path_graph(5), 2) == (frozenset({2}), [frozenset({0, 1}), frozenset({3, 4})])


def test_fits_without_separator():
    assert find_separators(nx.cycle_graph(4), 4) == (frozenset(), [frozenset(range(4))])


@pytest.mark.parametrize(
    "graph, bound, size",
    [
        (nx.petersen_graph(), 3, 4),
        (nx.grid_2d_graph(3, 4), 4, 4),
        (nx.star_graph(5), 1, 1),
        (nx.complete_graph(5), 2, 3),
    ],
)
def test_exact_known(graph, bound, size):
    separator, components = find_separators(graph, bound, method="exact")
    assert len(separator) == size == brute_force_size(graph, bound)
    assert max(map(len, components)) <= bound
    assert set().union(separator, *components) == set(graph)


@pytest.mark.parametrize("seed", range(4))
def test_exact_is_smallest_and_greedy_valid(seed):
    g = nx.gnp_random_graph(11, 0.3, seed=seed)
    exact = find_separators(g, 3)
    greedy = find_separators(g, 3, method="greedy")
    assert len(exact.separator) == brute_force_size(g, 3) <= len(greedy.separator)
    for separator, components in (exact, greedy):
        rest = g.subgraph(set(g) - separator)
        assert sorted(map(sorted, nx.connected_components(rest))) == sorted(map(sorted, components))
        assert max(map(len, components), default=0) <= 3
    # greedy is minimal: no vertex can be put back
    for v in greedy.separator:
        rest = g.subgraph(set(g) - (greedy.separator - {v}))
        assert max(map(len, nx.connected_components(rest))) > 3


def test_none_within_bound():
    message = (
        "no separator of at most 1 vertices leaves components of at most 2 vertices in this 9-vertex graph"
    )
    with pytest.raises(NoSeparatorError, match=f"^{message}$"):
        find_separators(nx.path_graph(9), 2, max_size=1)
    greedy = (
        "the greedy heuristic needs 3 separator vertices to leave components of at most 2 vertices, "
        "more than max_size=1"
    )
    with pytest.raises(NoSeparatorError, match=f"^{greedy}$"):
        find_separators(nx.path_graph(9), 2, max_size=1, method="greedy")


def test_separator_components_order_and_agreement():
    g = nx.Graph([("c", "b"), ("b", "s"), ("s", "a"), ("a", "d")])  # node order: c, b, s, a, d
    assert separator_components(g, {"s"}) == [frozenset({"b", "c"}), frozenset({"a", "d"})]
    assert separator_components(g, {"b", "missing"}) == [frozenset({"c"}), frozenset({"a", "d", "s"})]
    assert separator_components(g, set(g)) == []
    found = find_separators(nx.gnp_random_graph(10, 0.3, seed=1), 3)
    assert separator_components(nx.gnp_random_graph(10, 0.3, seed=1), found.separator) == found.components
