"""``python -m bbqmis --angles trained``: the hybrid loop through the command line, on Aer, a cut plan
on the fake IQM Adonis and a vQPU, with the training counters in the JSON output."""

import json
import sys
from pathlib import Path

import networkx as nx
import pytest

from backends import get_backend
from bbqmis import read_graph
from bbqmis.coloring.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backends" / "vqpu"))

from vqpu_helpers import serve  # noqa: E402

#: chi 7 (the bundled README's table); with the exact phase and the LP off, its tree samples
#: residual components of 14 and 16 vertices, which fit Aer.
QUEEN6 = "data/graphs/queen6_6.col"

#: Two Moser spindles (chi 4, clique 3) joined by an edge: 14 vertices whose residual components
#: of 6 vertices are cut into fragments of at most 5 qubits on Adonis.
SPINDLE = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (0, 4), (0, 5), (4, 5), (4, 6), (5, 6), (3, 6)]


def spindles(folder: Path) -> Path:
    graph = nx.disjoint_union(nx.Graph(SPINDLE), nx.Graph(SPINDLE))
    graph.add_edge(3, 7)
    path = folder / "spindles.txt"
    path.write_text("".join(f"{u + 1} {v + 1}\n" for u, v in graph.edges))
    return path


def run(graph, out, *options):
    base = [str(graph), "--exact-share", "0", "--lp-share", "0", "--seed", "1", "--json", str(out), "--quiet"]
    return main([*base, *options])


def check_result(graph_path, out, chi):
    """The JSON result colours the graph properly with ``chi`` colours; its stats."""
    data = json.loads(out.read_text())
    graph = read_graph(graph_path)
    colour = {v: data["coloring"][str(graph.nodes[v].get("label", v))] for v in graph}
    assert all(colour[u] != colour[v] for u, v in graph.edges)
    assert data["num_colors"] == len(set(colour.values())) == chi and data["optimal"] is True
    return data["stats"]


def check_counters(stats, training_shots, shots):
    training, sampler = stats["training"], stats["sampler"]
    assert training["problems"] >= 1 and training["evaluations"] >= training["problems"]
    assert training["shots"] == training["circuits"] * training_shots
    assert training["sampling"]["shots"] == training["sampling"]["circuits"] * shots
    for key in ("circuits", "shots"):
        assert training[key] + training["sampling"][key] == sampler[key]
    assert training["quantum_seconds"] + training["sampling"]["quantum_seconds"] == pytest.approx(
        sampler["quantum_seconds"], rel=1e-9
    )
    assert training["quantum_seconds"] > 0 and 0 <= training["mean_relative_gap"] < 0.5
    return training


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_trained_angles_on_aer_colour_queen6_6_with_the_counters_in_json_and_summary(tmp_path, capsys):
    out = tmp_path / "result.json"
    options = ["--backend", "aer", "--shots", "256", "--angles", "trained", "--training-shots", "128"]
    assert run(QUEEN6, out, *options, "--training-evaluations", "12") == 0
    training = check_counters(check_result(QUEEN6, out, 7), 128, 256)
    assert training["circuits"] == training["evaluations"]  # uncut: one circuit per evaluation
    assert training["evaluations"] <= 12 * training["problems"]
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("training"))
    assert f"{training['problems']} problems, {training['evaluations']} evaluations" in row


@pytest.mark.timeout(120)
def test_closed_form_angles_report_no_training(tmp_path, capsys):
    out = tmp_path / "result.json"
    assert run(QUEEN6, out, "--backend", "aer", "--shots", "128") == 0
    stats = check_result(QUEEN6, out, 7)
    training = stats["training"]
    assert training["problems"] == training["evaluations"] == training["circuits"] == 0
    assert training["sampling"]["circuits"] == stats["sampler"]["circuits"] >= 1
    assert "training     none (closed-form angles)" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_trained_angles_through_a_cut_plan_on_the_fake_adonis(tmp_path):
    graph, out = spindles(tmp_path), tmp_path / "result.json"
    options = ["--backend", "iqm-fake:adonis", "--shots", "256", "--angles", "trained"]
    assert run(graph, out, *options, "--training-evaluations", "6", "--training-shots", "128") == 0
    stats = check_result(graph, out, 4)
    training = check_counters(stats, 128, 256)
    assert stats["sampler"]["cut_problems"] >= 1 and stats["sampler"]["fallbacks"] == 0
    # a cut problem's evaluation runs every subexperiment (16 per wire cut), an uncut one's one circuit
    assert training["circuits"] >= 16 * 6 * stats["sampler"]["cut_problems"] > training["evaluations"]


@pytest.mark.timeout(120)
def test_trained_angles_through_a_vqpu(tmp_path):
    graph, out = spindles(tmp_path), tmp_path / "result.json"
    with serve(get_backend("aer", seed=11), tmp_path / "db.sqlite") as (service, url):
        options = ["--backend", f"vqpu:{url}", "--shots", "256", "--angles", "trained"]
        assert run(graph, out, *options, "--training-evaluations", "8", "--training-shots", "128") == 0
    training = check_counters(check_result(graph, out, 4), 128, 256)
    assert training["circuits"] == training["evaluations"]  # 30 qubits: nothing is cut


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--training-shots", "100"], "bbqmis: error: --training-shots needs --angles trained\n"),
        (
            ["--angles", "closed-form", "--training-start", "random"],
            "bbqmis: error: --training-start needs --angles trained\n",
        ),
        (
            ["--angles", "trained", "--sampler", "exact"],
            "bbqmis: error: --angles trained needs --sampler qaoa, got --sampler exact\n",
        ),
        (["--angles", "learned"], "bbqmis: error: argument --angles: invalid choice: 'learned'"),
        (
            ["--training-start", "middle"],
            "bbqmis: error: argument --training-start: invalid choice: 'middle'",
        ),
        (["--training-method", "adam"], "bbqmis: error: argument --training-method: invalid choice: 'adam'"),
        (
            ["--training-evaluations", "0"],
            "bbqmis: error: argument --training-evaluations: must be an integer in [1, 10000], got '0'\n",
        ),
    ],
)
def test_a_bad_training_option_is_one_line_naming_it(options, message, capsys):
    assert main([QUEEN6, *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
