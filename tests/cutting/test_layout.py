import re

import networkx as nx
import pytest

import cutting
from bbqmis.mis.errors import InvalidParameterError
from bbqmis.mis.problem import MISProblem
from cutting import FragmentTooWideError, NoSeparatorError, find_separators
from cutting.layout import (
    FragmentLayout,
    assign_fragments,
    fewest_cut_layout,
    pack_fragments,
    separator_layout,
)
from cutting.separators import Separation, separator_components


def separation(graph, separator):
    return Separation(frozenset(separator), separator_components(graph, separator))


def check_layout(problem, layout, separator):
    """The layout rules, checked edge by edge on a layout of ``separator``."""
    assert sorted(layout.segments) == sorted(separator)
    assert sorted(q for c in layout.components for q in c) == sorted(
        set(range(problem.num_nodes)) - separator
    )
    home = layout.home
    for u, v in problem.edges.tolist():
        if u in separator and v in separator:
            f = layout.edge_fragment[frozenset((u, v))]
            assert f in layout.segments[u] and f in layout.segments[v]
        elif u in separator or v in separator:
            s, other = (u, v) if u in separator else (v, u)
            assert home[other] in layout.segments[s]
        else:
            assert home[u] == home[v]
    visitors = [sum(f in fs for fs in layout.segments.values()) for f in range(len(layout.components))]
    assert layout.widths() == [len(c) + k for c, k in zip(layout.components, visitors, strict=True)]
    assert layout.num_cuts == sum(len(fs) - 1 for fs in layout.segments.values())
    assert all(fs == sorted(set(fs)) and fs for fs in layout.segments.values())


def test_path():
    problem = MISProblem(nx.path_graph(5))
    layout = assign_fragments(problem, separation(problem.graph, {2}))
    assert layout.components == [[0, 1], [3, 4]]
    assert layout.segments == {2: [0, 1]} and layout.edge_fragment == {}
    assert layout.home == {0: 0, 1: 0, 3: 1, 4: 1}
    assert layout.num_cuts == 1 and layout.widths() == [3, 3]


def test_edge_between_separator_qubits_goes_to_a_fragment_both_visit():
    problem = MISProblem(nx.path_graph(6))
    layout = assign_fragments(problem, separation(problem.graph, {2, 3}))
    # 2 visits fragment 0 and 3 visits fragment 1; their edge makes one of them visit the other
    assert layout.edge_fragment == {frozenset({2, 3}): 1}
    assert layout.segments == {2: [0, 1], 3: [1]} and layout.num_cuts == 1
    check_layout(problem, layout, {2, 3})


def test_separator_qubits_touching_no_component_get_their_own_fragment():
    triangle = MISProblem(nx.complete_graph(3))
    layout = assign_fragments(triangle, separation(triangle.graph, {0, 1, 2}))
    assert layout.components == [[]] and layout.segments == {0: [0], 1: [0], 2: [0]}
    assert layout.num_cuts == 0 and layout.widths() == [3]
    lonely = MISProblem(nx.disjoint_union(nx.path_graph(3), nx.empty_graph(1)))
    layout = assign_fragments(lonely, separation(lonely.graph, {3}))
    assert layout.components == [[0, 1, 2], []] and layout.segments == {3: [1]}


@pytest.mark.parametrize("seed", range(6))
def test_rules_hold_on_random_separations(seed):
    problem = MISProblem(nx.gnp_random_graph(12, 0.3, seed=seed))
    found = find_separators(problem.graph, 4)
    separator = {problem.nodes.index(v) for v in found.separator}
    check_layout(problem, assign_fragments(problem, found), separator)


def test_fewest_cut_layout_fits_and_beats_the_planted_separator():
    graph = cutting.kd_clustered_graph(3, 3, 1, 0.7, 0.5, seed=1)
    problem = MISProblem(graph)
    planted = {v for v, role in graph.nodes(data="role") if role == "separator"}
    reference = assign_fragments(problem, separation(graph, planted))
    layout = fewest_cut_layout(problem, 5)
    assert max(layout.widths()) <= 5
    assert layout.num_cuts <= reference.num_cuts
    assert fewest_cut_layout(problem, problem.num_nodes).num_cuts == 0


def test_fewest_cut_layout_refuses():
    problem = MISProblem(nx.complete_graph(3))
    message = (
        "no vertex separator splits the 3-vertex graph into fragments of at most 2 qubits "
        "(cut wires included)"
    )
    with pytest.raises(NoSeparatorError, match=f"^{re.escape(message)}$"):
        fewest_cut_layout(problem, 2)


def test_separator_layout_checks():
    problem = MISProblem(nx.path_graph(5))
    assert separator_layout(problem, [2], 3) == assign_fragments(problem, separation(problem.graph, {2}))
    with pytest.raises(InvalidParameterError, match=r"^separator node 'x' is not in the graph$"):
        separator_layout(problem, ["x"], 3)
    with pytest.raises(
        FragmentTooWideError,
        match=r"^a fragment needs 3 qubits \(2 vertices \+ 1 cut wires\), more than max_qubits=2$",
    ):
        separator_layout(problem, [2], 2)


def test_pack_fragments():
    # widths [3, 3, 1, 2]: fragments 0 and 1 are cut, 2 and 3 are not
    layout = FragmentLayout([[0, 1], [3, 4], [5], [6, 7]], {2: [0, 1]}, {})
    assert pack_fragments(layout, 5) == [0, 1, 1, 0]  # widest first, into the first with room
    assert pack_fragments(layout, 3) == [0, 1, 2, 2]  # no room left: a new partition
    uncut = FragmentLayout([[0, 1, 2], [3, 4]], {}, {})
    assert pack_fragments(uncut, 5) == [0, 0]
    assert pack_fragments(uncut, 4) == [0, 1]


@pytest.mark.parametrize("max_qubits", [4, 5, 7])
def test_packed_partitions_fit(max_qubits):
    graph = nx.disjoint_union_all([nx.path_graph(5), *(nx.path_graph(k) for k in (1, 2, 3, 2, 1))])
    problem = MISProblem(graph)
    layout = separator_layout(problem, [2], max_qubits)
    labels = pack_fragments(layout, max_qubits)
    widths = layout.widths()
    assert sorted(set(labels)) == list(range(max(labels) + 1))
    for label in set(labels):
        assert sum(w for w, lab in zip(widths, labels, strict=True) if lab == label) <= max_qubits
    assert labels[:2] == [0, 1]  # the cut fragments keep their own labels
