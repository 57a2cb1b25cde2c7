"""Audit fixes of the MIS library: bad graphs, weights, penalties, bits, angles and lines are refused."""

import math

import networkx as nx
import numpy as np
import pytest

from bbqmis import (
    InvalidParameterError,
    MISProblem,
    greedy_independent_set,
    maximum_independent_set,
    parse_dimacs,
    parse_edgelist,
    qaoa,
)
from bbqmis.mis.problem import MAX_COST, check_graph

LOOP = (
    "graph must have no self-loops (a vertex adjacent to itself is in no independent set), got one on node 0"
)


def message(call):
    with pytest.raises(InvalidParameterError) as info:
        call()
    return str(info.value)


# -- graphs ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda g: MISProblem(g),
        lambda g: greedy_independent_set(g),
        lambda g: maximum_independent_set(g),
        check_graph,
    ],
)
def test_a_self_loop_is_refused_not_dropped(call):
    assert message(lambda: call(nx.Graph([(0, 0), (0, 1)]))) == LOOP


@pytest.mark.parametrize(
    ("graph", "kind"),
    [
        (None, "NoneType"),
        ([1, 2], "list"),
        (nx.DiGraph([(0, 1)]), "DiGraph"),
        (nx.MultiGraph([(0, 1)]), "MultiGraph"),
    ],
)
def test_what_is_not_a_simple_undirected_graph_is_refused_by_name(graph, kind):
    expected = f"graph must be an undirected simple networkx.Graph, got {kind}"
    assert message(lambda: MISProblem(graph)) == expected
    assert message(lambda: maximum_independent_set(graph)) == expected
    assert message(lambda: greedy_independent_set(graph)) == expected


# -- weights and penalty --------------------------------------------------------------------
def test_weights_missing_a_node_are_refused():
    path = nx.path_graph(3)
    assert (
        message(lambda: MISProblem(path, weights={0: 1, 1: 1}))
        == "weights has no entry for node 2 (1 of 3 nodes missing)"
    )
    assert message(lambda: greedy_independent_set(path, weights={0: 1})) == (
        "weights has no entry for node 1 (2 of 3 nodes missing)"
    )


def test_non_numeric_weights_are_refused():
    assert message(lambda: MISProblem(nx.path_graph(3), weights=["a", "b", "c"])) == (
        "weights must be numbers, got ['a', 'b', 'c']"
    )


@pytest.mark.parametrize("penalty", [math.inf, math.nan, None, "3"])
def test_penalty_must_be_a_finite_number(penalty):
    assert message(lambda: MISProblem(nx.path_graph(3), penalty=penalty)) == (
        f"penalty must be a finite number, got {penalty!r}"
    )


def test_a_penalty_whose_costs_overflow_is_refused():
    assert message(lambda: MISProblem(nx.path_graph(3), penalty=1e308)) == (
        "penalty=1e+308 is too large: penalty * edges + sum(weights) = inf (2 edges) must be at most 1e+300, "
        "so that costs stay finite"
    )


def test_the_largest_accepted_penalty_gives_finite_energies():
    path = nx.path_graph(3)
    problem = MISProblem(path, penalty=(MAX_COST - 3) / 2)
    assert math.isfinite(qaoa.expectation(problem, 0.1, 0.2))
    assert np.isfinite(problem.cost(["111", "101"])).all()


def test_classical_references_accept_any_finite_weights():
    weights = [1e200, 1.0, 1e200]
    assert maximum_independent_set(nx.path_graph(3), weights) == {0, 2}
    assert greedy_independent_set(nx.path_graph(3), weights) == {0, 2}


# -- bits and nodes -------------------------------------------------------------------------
@pytest.mark.parametrize(("bits", "bad"), [([1, 2, 1], 2), ([0, 0.5, 1], 0.5), ([[0, 1, 0], [1, 1, -1]], -1)])
def test_bits_must_be_0_or_1(bits, bad):
    problem = MISProblem(nx.path_graph(3))
    assert message(lambda: problem.cost(bits)) == f"bits must hold only 0 and 1, got {bad!r}"
    assert message(lambda: problem.is_independent(bits)) == f"bits must hold only 0 and 1, got {bad!r}"


def test_bool_bits_are_still_accepted():
    assert MISProblem(nx.path_graph(3)).cost([True, False, True]) == -2.0


def test_to_bits_refuses_a_node_not_in_the_graph():
    problem = MISProblem(nx.path_graph(3))
    assert message(lambda: problem.to_bits([7])) == "nodes must be nodes of the graph, got 7"
    assert message(lambda: problem.to_bits(None)) == "nodes must be an iterable of graph nodes, got None"


# -- QAOA angles ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gamma", "beta", "expected"),
    [
        (math.nan, 0.2, "gamma must be a finite number, got nan"),
        (0.1, math.inf, "beta must be a finite number, got inf"),
        ([0.1, math.nan], 0.2, "gamma must hold finite numbers; gamma[1] is nan"),
        ("a", 0.2, "gamma must be a number or an array of numbers, got 'a'"),
    ],
)
def test_expectation_refuses_non_finite_angles(gamma, beta, expected):
    assert message(lambda: qaoa.expectation(MISProblem(nx.path_graph(3)), gamma, beta)) == expected


@pytest.mark.parametrize(
    ("angles", "expected"),
    [
        ((math.nan, 0.2), "gamma must be a finite number, got nan"),
        ((0.1, -math.inf), "beta must be a finite number, got -inf"),
        ((0.1,), "angles must be a pair (gamma, beta) or have attributes gamma and beta, got (0.1,)"),
        (0.1, "angles must be a pair (gamma, beta) or have attributes gamma and beta, got 0.1"),
    ],
)
def test_sample_refuses_bad_angles(angles, expected):
    assert message(lambda: qaoa.sample(MISProblem(nx.path_graph(3)), angles, shots=10)) == expected


# -- parsers --------------------------------------------------------------------------------
@pytest.mark.parametrize("parse", [parse_edgelist, parse_dimacs])
@pytest.mark.parametrize("text", ["1 2\n2 3\n", b"p edge 2 1\ne 1 2\n"])
def test_parsers_refuse_the_whole_text_as_lines(parse, text):
    with pytest.raises(TypeError) as info:
        parse(text)
    kind = type(text).__name__
    assert (
        str(info.value)
        == f"lines must be an iterable of lines, got one {kind}; pass text.splitlines() or an open file"
    )


def test_parsers_take_the_split_lines():
    assert sorted(parse_edgelist("1 2\n2 3\n".splitlines()).edges) == [(0, 1), (1, 2)]
    assert sorted(parse_dimacs("p edge 2 1\ne 1 2\n".splitlines()).edges) == [(0, 1)]
