import itertools
import json
import subprocess
import sys
from pathlib import Path

import networkx as nx

from bbqmis.coloring.classical import sat_worker

WORKER = Path(sat_worker.__file__)


def solve(clauses):
    """Brute-force satisfiability over the variables the clauses name: a model or None."""
    variables = sorted({abs(literal) for clause in clauses for literal in clause})
    for values in itertools.product([False, True], repeat=len(variables)):
        truth = dict(zip(variables, values, strict=True))
        if all(any(truth[abs(x)] == (x > 0) for x in clause) for clause in clauses):
            return [v if truth[v] else -v for v in variables]
    return None


def test_the_encoding_is_satisfiable_exactly_when_a_colouring_exists():
    triangle = [(0, 1), (1, 2), (0, 2)]
    assert solve(list(sat_worker.encode(3, triangle, [0, 1], 2))) is None
    model = solve(list(sat_worker.encode(3, triangle, [0, 1], 3)))
    colors = sat_worker.decode(model, 3, 3)
    assert sorted(colors) == [0, 1, 2] and colors[:2] == [0, 1]  # the clique is fixed


def test_decode_takes_the_first_true_colour_and_ignores_other_variables():
    assert sat_worker.decode([1, 2, -3, 6, 99], n=2, k=3) == [0, 2]


def test_the_worker_answers_one_line_per_colour_count_down_to_the_first_no():
    graph = nx.cycle_graph(5)
    problem = {
        "n": 5,
        "edges": [list(e) for e in graph.edges],
        "clique": [0, 1],
        "upper": 5,
        "lower": 1,
        "memory_bytes": 0,
        "solver": "cadical153",
    }
    done = subprocess.run(
        [sys.executable, str(WORKER)], input=json.dumps(problem), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(line["k"], line["sat"]) for line in lines] == [(4, True), (3, True), (2, False)]
    for line in lines[:2]:
        assert all(line["colors"][u] != line["colors"][v] for u, v in graph.edges)
        assert max(line["colors"]) < line["k"]


def test_every_colouring_satisfies_the_redundant_clauses():
    from pysat.solvers import Solver

    graph = nx.convert_node_labels_to_integers(nx.complete_multipartite_graph(2, 3, 3))  # chi = omega = 3
    edges = list(graph.edges)
    clique = [0, 2, 5]
    assert all(graph.has_edge(a, b) for a, b in itertools.combinations(clique, 2))
    above = sat_worker.redundant_structure(8, edges, clique, 4)  # above the clique bound: nothing
    assert list(sat_worker.redundant_clauses(above, 8, 4)) == []
    clauses = list(sat_worker.redundant_clauses(sat_worker.redundant_structure(8, edges, clique, 3), 8, 3))
    assert len(clauses) > 3 * 8  # the 18 triangles' colours, and at most one colour per vertex
    with Solver(name="cadical195", bootstrap_with=sat_worker.encode(8, edges, [], 3)) as solver:
        models = list(itertools.islice(solver.enum_models(), 50))  # colourings, symmetric ones included
    assert len(models) == 6  # a colour per part, in any order
    for model in models:
        true = {lit for lit in model if lit > 0}
        assert all(any(lit in true if lit > 0 else -lit not in true for lit in cl) for cl in clauses)


def test_the_worker_gives_the_same_answers_without_the_redundant_clauses():
    graph = nx.mycielski_graph(4)  # chi 4, clique 2
    problem = {
        "n": 11,
        "edges": [list(e) for e in graph.edges],
        "clique": [0, 1],
        "upper": 6,
        "lower": 2,
        "memory_bytes": 0,
        "solver": "cadical195",
    }
    answers = []
    for implied in (True, False):
        done = subprocess.run(
            [sys.executable, str(WORKER)],
            input=json.dumps({**problem, "implied": implied}),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        answers.append([(line["k"], line["sat"]) for line in map(json.loads, done.stdout.splitlines())])
    assert answers[0] == answers[1] == [(5, True), (4, True), (3, False)]


def test_with_a_proof_file_the_refutation_writes_its_drat_proof_and_structure(tmp_path):
    from bbqmis.check import check_refutation

    graph = nx.convert_node_labels_to_integers(nx.complement(nx.cycle_graph(7)))  # chi 4, cliques of 3
    edges = [list(e) for e in graph.edges]
    clique = list(max(nx.find_cliques(graph), key=len))
    proof = tmp_path / "proof.drat"
    problem = {"n": 7, "edges": edges, "clique": clique, "upper": 4, "lower": 3, "memory_bytes": 0}
    done = subprocess.run(
        [sys.executable, str(WORKER)],
        input=json.dumps({**problem, "solver": "cadical195", "proof": str(proof)}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (line,) = map(json.loads, done.stdout.splitlines())
    assert (line["k"], line["sat"]) == (3, False)
    structure = line["implied"]
    assert (
        len(structure["cliques"]) == 7 and structure["at_most_one"] is True
    )  # the 7 triangles of C7's complement
    formula = list(sat_worker.encode(7, edges, clique, 3)) + list(
        sat_worker.redundant_clauses(structure, 7, 3)
    )
    assert check_refutation(formula, proof.read_text().splitlines()) >= 1
