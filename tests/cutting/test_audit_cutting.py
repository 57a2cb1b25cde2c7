"""Audit fixes of circuit cutting: bad problems and angles are refused with the parameter named."""

import math
from types import SimpleNamespace

import networkx as nx
import pytest

from backends.utils.errors import InvalidParameterError
from bbqmis.mis import MISProblem
from cutting import cut_qaoa, expectation, run_subexperiments, sample

NOT_ANGLES = "angles must be a pair (gamma, beta) or have attributes gamma and beta"


@pytest.fixture(scope="module")
def plan():
    return cut_qaoa(MISProblem(nx.path_graph(5)), 3)


def test_cut_qaoa_needs_a_qaoa_problem_and_names_what_is_missing():
    with pytest.raises(InvalidParameterError) as info:
        cut_qaoa(nx.path_graph(5), 3)
    assert str(info.value) == (
        "problem must be a QAOAProblem such as MISProblem(graph), got Graph, "
        "which has no num_nodes, ising, qaoa_circuit"
    )


def test_cut_qaoa_refuses_an_empty_problem():
    with pytest.raises(InvalidParameterError) as info:
        cut_qaoa(MISProblem(nx.Graph()), 4)
    assert str(info.value) == "problem must have at least one vertex, got an empty graph"


def test_cut_qaoa_still_plans_a_single_vertex():
    graph = nx.Graph()
    graph.add_node("only")
    assert cut_qaoa(MISProblem(graph), 4).num_cuts == 0


@pytest.mark.parametrize(
    ("gamma", "beta", "expected"),
    [
        (math.nan, 0.2, "gamma must be a finite number, got nan"),
        (0.4, math.inf, "beta must be a finite number, got inf"),
    ],
)
def test_expectation_refuses_non_finite_angles(plan, gamma, beta, expected):
    with pytest.raises(InvalidParameterError) as info:
        expectation(plan, gamma, beta, "aer", shots=10)
    assert str(info.value) == expected


@pytest.mark.parametrize(
    ("angles", "expected"),
    [
        ((0.4,), f"{NOT_ANGLES}, got (0.4,)"),
        ((0.4, 0.2, 0.1), f"{NOT_ANGLES}, got (0.4, 0.2, 0.1)"),
        (0.4, f"{NOT_ANGLES}, got 0.4"),
        ((math.nan, 0.2), "gamma must be a finite number, got nan"),
        (SimpleNamespace(gamma=0.4, beta=None), "beta must be a finite number, got None"),
    ],
)
def test_run_and_sample_refuse_bad_angles(plan, angles, expected):
    for call in (
        lambda: run_subexperiments(plan, angles, "aer", 10),
        lambda: sample(plan, angles, "aer", 10, 10),
    ):
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert str(info.value) == expected
