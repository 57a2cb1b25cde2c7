"""Refutation witnesses: the checker rebuilds the formula from the graph and rejects planted faults."""

import itertools

import networkx as nx
import pytest

from bbqmis.check import InvalidCertificate, check_certificate, parse_dimacs, read_dimacs, refutation_formula
from bbqmis.check.refutation import refutation_bound
from bbqmis.coloring.certificate import refutation_json


def dimacs(graph: nx.Graph) -> list[str]:
    return [f"p edge {graph.number_of_nodes()} {graph.number_of_edges()}"] + [
        f"e {u + 1} {v + 1}" for u, v in graph.edges
    ]


def witness_of(graph: nx.Graph, k: int) -> dict:
    clique = max(nx.find_cliques(graph), key=len)
    witness = refutation_json(graph, k, clique, {v: str(v + 1) for v in graph})
    assert witness is not None
    return witness


def models(formula: list[list[int]], variables: int):
    """Every model of a small formula, by enumeration."""
    for bits in itertools.product((False, True), repeat=variables):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in formula):
            yield bits


@pytest.mark.timeout(60)
def test_the_rebuilt_formula_keeps_every_colouring_with_the_clique_renamed():
    """Soundness of the formula itself: every 3-colouring of a graph with a triangle is a model of it."""
    graph = nx.Graph([(0, 1), (1, 2), (0, 2), (1, 3), (2, 3), (3, 4), (0, 4)])  # 3-colourable
    checked = parse_dimacs(dimacs(graph))
    witness = {
        "colors": 3,
        "vertices": [str(v + 1) for v in range(5)],
        "fixed": ["1", "2", "3"],
        "cliques": [["1", "2", "3"], ["2", "3", "4"]],
        "merges": [["4", "1", 1]],
        "at_most_one": True,
    }
    formula = refutation_formula(checked, witness)
    found = {tuple(bits) for bits in models(formula, 15)}
    colourings = [
        c for c in itertools.product(range(3), repeat=5) if all(c[u] != c[v] for u, v in graph.edges)
    ]
    renamed = {c for c in colourings if c[:3] == (0, 1, 2)}
    assert renamed and found == {
        tuple(c[v] == colour for v in range(5) for colour in range(3)) for c in renamed
    }


@pytest.mark.timeout(60)
def test_a_wheel_refuted_with_three_colours_proves_four():
    wheel = nx.wheel_graph(6)
    witness = witness_of(wheel, 3)
    assert refutation_bound(parse_dimacs(dimacs(wheel)), witness) == 4


@pytest.mark.timeout(60)
def test_a_proof_for_another_graph_is_rejected():
    wheel = nx.wheel_graph(6)
    colourable = parse_dimacs(
        dimacs(nx.Graph(e for e in wheel.edges if e != (0, 5)))
    )  # one spoke less: 3 colours
    witness = refutation_json(wheel, 3, [], {v: str(v + 1) for v in wheel})  # no clique: the plain formula
    assert witness is not None and witness["fixed"] == witness["cliques"] == []
    assert refutation_bound(parse_dimacs(dimacs(wheel)), witness) == 4
    with pytest.raises(InvalidCertificate, match="DRAT proof"):
        refutation_bound(colourable, witness)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda w: w.update(bound=5), "proves 4, not 5"),
        (lambda w: w.update(colors=0), "'colors' must be an integer >= 1"),
        (lambda w: w.update(proof=None), "'proof' must be DRAT text"),
        (lambda w: w.update(vertices=[]), "'vertices' must be a non-empty list"),
        (lambda w: w.update(vertices=["1", "1"]), "repeat a vertex"),
        (lambda w: w.update(vertices=["1", "99"]), "vertex 99, not in 1..6"),
        (lambda w: w.update(fixed=["2", "4"]), "vertices 2 and 4 are not adjacent"),
        (lambda w: w.update(fixed=["1", "2", "3", "4"]), "'fixed' must be a list of at most 3"),
        (lambda w: w.update(cliques=[["1", "2"]]), "clique 0 must be a list of 3 vertices"),
        (lambda w: w.update(cliques=[["2", "3", "5"]]), "clique 0: vertices 2 and 5 are not adjacent"),
        (lambda w: w.update(cliques=[["1", "2", "3"]], merges=[["2", "5", 0]]), "5 is not adjacent to 3"),
        (lambda w: w.update(cliques=[["1", "2", "3"]], merges=[["4", "5", 0]]), "4 must be in clique 0"),
        (lambda w: w.update(merges=[["1", "2"]]), "must be \\[u, v, clique number\\]"),
        (lambda w: w.update(at_most_one="yes"), "'at_most_one' must be true or false"),
    ],
)
def test_a_malformed_or_false_structure_is_rejected(change, message):
    wheel = nx.wheel_graph(6)  # hub 0 (vertex "1") and the 5-cycle 1..5 (vertices "2".."6")
    witness = witness_of(wheel, 3)
    change(witness)
    with pytest.raises(InvalidCertificate, match=message):
        refutation_bound(parse_dimacs(dimacs(wheel)), witness)


@pytest.mark.timeout(60)
def test_a_false_merge_cannot_sneak_in_a_refutation():
    """A merge of two vertices that may differ would make a colourable graph look refuted: it is checked."""
    square = nx.cycle_graph(4)  # 2-colourable; claim 0 and 1 (adjacent) must share a colour
    checked = parse_dimacs(dimacs(square))
    witness = {
        "kind": "refutation",
        "bound": 3,
        "colors": 2,
        "vertices": ["1", "2", "3", "4"],
        "fixed": ["1", "2"],
        "cliques": [["1", "2"]],
        "merges": [["1", "2", 0]],
        "at_most_one": False,
        "proof": "0\n",
    }
    with pytest.raises(InvalidCertificate, match="merge 0: 1 must be in clique 0, 2 outside it"):
        refutation_bound(checked, witness)


@pytest.mark.timeout(120)
def test_a_planted_wrong_certificate_of_a_bundled_graph_is_rejected(certificate_of):
    path, certificate = certificate_of("queen6_6")  # chi 7, proved by refuting 6 colours
    graph = read_dimacs(path)
    assert check_certificate(graph, certificate) == "ok: chromatic number 7 proved"
    witness = certificate["lower_bound_certificate"]
    witness.update(colors=7, bound=8, cliques=[], merges=[])  # claims chi >= 8 with the same proof
    certificate["lower_bound"] = 8
    with pytest.raises(InvalidCertificate, match="DRAT proof"):
        check_certificate(graph, certificate)
