"""Certificates written by ``python -m bbqmis --certificate FILE``, checked by :mod:`bbqmis.check`."""

import json
import subprocess
import sys

import networkx as nx
import pytest

from bbqmis.check import parse_dimacs
from bbqmis.coloring import ColoringResult, color_graph
from bbqmis.coloring.certificate import build_certificate, edge_hash
from bbqmis.coloring.cli import main

MYCIEL4 = "data/graphs/myciel4.col"


def dimacs(graph: nx.Graph) -> list[str]:
    """``graph`` (nodes 0..n-1) as DIMACS lines, vertices numbered from 1."""
    return [f"p edge {graph.number_of_nodes()} {graph.number_of_edges()}"] + [
        f"e {u + 1} {v + 1}" for u, v in graph.edges
    ]


def run_check(graph, cert):
    command = [sys.executable, "-m", "bbqmis.check", str(graph), str(cert)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.timeout(30)
def test_the_edge_hash_is_the_one_the_checker_computes():
    graph = nx.gnp_random_graph(30, 0.3, seed=4)
    names = [(str(u + 1), str(v + 1)) for u, v in graph.edges]
    count, digest = edge_hash([*names, *[(b, a) for a, b in names]])  # repeats and directions do not count
    checked = parse_dimacs(dimacs(graph))
    assert (count, digest) == (checked.edges, checked.sha256)


@pytest.mark.timeout(60)
def test_a_graph_without_vertices_or_edges_gets_a_certificate():
    empty = build_certificate(nx.Graph(), ColoringResult({}, num_colors=0, lower_bound=0, optimal=True))
    assert empty["lower_bound_certificate"] is None and empty["weaker_certificate"] is None
    isolated = nx.empty_graph(3)
    result = color_graph(isolated, "exact")
    document = build_certificate(isolated, result)
    assert document["lower_bound_certificate"] == {"kind": "clique", "bound": 1, "clique": ["0"]}


@pytest.mark.timeout(120)
def test_the_command_line_writes_a_certificate_the_checker_accepts(tmp_path, capsys):
    cert, out = tmp_path / "run.cert", tmp_path / "run.json"
    args = ["--sampler", "exact", "--quiet", "--json", str(out), "--certificate", str(cert)]
    assert main([MYCIEL4, *args]) == 0
    document = json.loads(cert.read_text())
    assert document["format"] == "bbqmis-coloring-certificate" and document["version"] == 1
    assert document["graph"]["vertices"] == 23 and document["graph"]["edges"] == 71
    assert document["num_colors"] == json.loads(out.read_text())["num_colors"] == 5
    assert document["lower_bound_certificate"]["kind"] == "mycielski"
    checked = run_check(MYCIEL4, cert)
    assert (checked.returncode, checked.stdout) == (0, "ok: chromatic number 5 proved\n")


@pytest.mark.timeout(120)
def test_a_bound_from_sat_comes_with_its_refutation_which_the_checker_accepts(tmp_path):
    graph, cert = tmp_path / "c7bar.col", tmp_path / "c7bar.cert"
    graph.write_text("\n".join(dimacs(nx.complement(nx.cycle_graph(7)))) + "\n")  # chi 4, cliques of 3
    assert main([str(graph), "--sampler", "exact", "--quiet", "--certificate", str(cert)]) == 0
    document = json.loads(cert.read_text())
    witness = document["lower_bound_certificate"]
    assert document["optimal"] is True and document["num_colors"] == 4
    assert (witness["kind"], witness["bound"], witness["colors"]) == ("refutation", 4, 3)
    assert len(witness["fixed"]) == 3 and witness["proof"].splitlines().count("0") >= 1
    checked = run_check(graph, cert)
    assert (checked.returncode, checked.stdout) == (0, "ok: chromatic number 4 proved\n")


@pytest.mark.timeout(60)
def test_without_time_for_a_refutation_the_bound_is_stated_as_uncertified():
    graph = nx.complement(nx.cycle_graph(7))
    document = build_certificate(graph, color_graph(graph, "exact"), refutation_seconds=0)
    assert document["optimal"] is True and document["lower_bound_certificate"] is None
    assert document["lower_bound_note"].startswith("the lower bound 4 was proved by sat, and no SAT")
    assert document["weaker_certificate"]["bound"] == 3


@pytest.mark.timeout(60)
def test_an_unwritable_certificate_fails_before_the_run(tmp_path, capsys):
    out = tmp_path / "run.json"
    missing = tmp_path / "no" / "run.cert"
    assert main([MYCIEL4, "--sampler", "exact", "--json", str(out), "--certificate", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert captured.err == f"bbqmis: error: --certificate {missing}: folder {missing.parent} does not exist\n"
    assert main([MYCIEL4, "--sampler", "exact", "--json", str(out), "--certificate", str(out)]) == 2
    assert "--json" in capsys.readouterr().err
