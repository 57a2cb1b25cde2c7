"""clustagg with QAOA angles trained on the backend: solver options, counters, result and CLI.

Device counters come from the backends' timing records, so the counting tests run on Aer.
"""

import json

import networkx as nx
import numpy as np
import pytest

from bbqmis.mis import qaoa
from bbqmis.mis.classical import maximum_independent_set
from bbqmis.mis.problem import MISProblem
from bbqmis.mis.training import Training
from clustagg import aggregate as agg
from clustagg.cli import main
from clustagg.errors import InvalidParameterError
from clustagg.loop import LoopState
from clustagg.result import collect_result
from clustagg.solvers import ExactSolver, QAOASolver, get_solver, solve, training_counters
from clustagg.step_files import save_clusters
from clustagg.steps import aggregate
from clustagg.timeline import Timeline

ALGORITHMS = ("kmeans", "dbscan", "hclust")


def small_problem():
    graph = nx.cycle_graph(6)
    graph.add_edge(0, 3)
    return MISProblem(graph, np.array([1.0, 0.5, 0.9, 0.2, 0.7, 0.6]), penalty=6)


def small_candidates():
    """Three clusterings of six points: 2 + 3 + 2 = 7 candidates (7 qubits)."""
    labelings = np.array([[0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 1, 1]])
    return agg.Candidates(labelings, ALGORITHMS)


def test_trained_qaoa_solver_reaches_the_optimum_and_counts_its_training():
    problem = small_problem()
    solver = QAOASolver("aer", shots=512, angles="trained", training_evaluations=12)
    best = problem.to_bits(maximum_independent_set(problem.graph, problem.weights))
    np.testing.assert_array_equal(solve(problem, solver, seed=3), best)
    counters = solver.last_training
    assert counters["training_problems"] == 1
    assert 1 <= counters["training_evaluations"] <= 12
    assert counters["training_circuits"] == counters["training_evaluations"]  # one circuit per evaluation
    assert counters["training_shots"] == 512 * counters["training_evaluations"]
    assert counters["sampling_circuits"] == 1 and counters["sampling_shots"] == 512
    optimum = qaoa.optimize(problem).energy  # exact at p = 1
    assert 0 <= counters["training_gap"] <= 0.05 * abs(optimum)
    assert training_counters(solver) == {"training": counters}


def test_training_options_reach_the_training(statevector_backend):
    solver = get_solver(
        "qaoa",
        backend="aer",
        angles="trained",
        training_evaluations=7,
        training_shots=64,
        training_start="random",
        training_method="powell",
    )
    assert solver.solver.training == Training(evaluations=7, shots=64, start="random", method="powell")
    given = Training(evaluations=5)
    assert QAOASolver(statevector_backend, angles=given).solver.training is given
    closed = QAOASolver(statevector_backend)
    assert closed.solver.training is None
    solve(small_problem(), closed, seed=0)
    assert closed.last_training is None and training_counters(closed) == {}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"angles": "learned"}, "angles must be one of 'closed-form', 'trained'; got 'learned'"),
        (
            {"angles": "trained", "training_evaluations": 0},
            "training_evaluations must be a positive integer, got 0",
        ),
        ({"angles": "trained", "training_shots": -1}, "training_shots must be a positive integer, got -1"),
        (
            {"angles": "trained", "training_start": "zero"},
            "training_start must be one of 'closed-form', 'random'",
        ),
        ({"angles": "trained", "training_method": "bfgs"}, "training_method must be one of 'cobyla'"),
        (
            {"training_evaluations": 5},
            "training_evaluations needs angles='trained', got angles='closed-form'",
        ),
        (
            {"angles": Training(), "training_shots": 5},
            "training_shots needs angles='trained', got angles=Training(",
        ),
    ],
)
def test_bad_training_options_are_refused_by_name(statevector_backend, options, message):
    with pytest.raises(InvalidParameterError) as error:
        QAOASolver(statevector_backend, **options)
    assert str(error.value).startswith(message)
    assert isinstance(error.value, ValueError)


def test_training_counters_add_up_over_rounds_into_the_result():
    candidates = small_candidates()
    solver = QAOASolver("aer", shots=256, angles="trained", training_evaluations=6)
    state = LoopState()
    rounds = []
    for seed in (0, 1):
        # what the quantum step reports: its selection and the solver's counters of the call
        selection = {**aggregate(candidates, solver, seed), **training_counters(solver)}
        rounds.append(selection["training"])
        exact = aggregate(candidates, ExactSolver(), seed)["chosen"]
        assert selection["chosen"] == exact
        state.update(0.5, selection, {})
    for key in ("training_evaluations", "training_circuits", "training_shots", "sampling_circuits"):
        assert state.training[key] == sum(counters[key] for counters in rounds)
    result = collect_result(np.zeros(6, dtype=int), state, Timeline(floor=1), "baseline", 0)
    training = json.loads(json.dumps(result.to_json()))["training"]
    assert training["problems"] == 2
    assert training["evaluations"] == state.training["training_evaluations"] <= 12
    assert training["circuits"] == training["evaluations"]
    assert training["shots"] == 256 * training["evaluations"]
    assert training["sampling"] == {
        "circuits": 2,
        "shots": 512,
        "quantum_seconds": pytest.approx(0.0, abs=1.0),
    }
    assert training["mean_gap"] == pytest.approx(state.training["training_gap"] / 2)
    assert f"{training['evaluations']} evaluations" in result.training_note()
    assert LoopState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_states_saved_without_training_counters_still_load():
    saved = LoopState(iterations=[0.4], best_iteration=0, silhouette=0.4).to_json()
    del saved["training"]
    assert LoopState.from_json(saved).training is None


def clusters_file(tmp_path):
    path = tmp_path / "clusters.npz"
    save_clusters(path, small_candidates(), {"seed": 0, "n_samples": 6, "parameters": {}})
    return path


def test_the_aggregate_step_trains_its_angles(capsys, tmp_path):
    out = tmp_path / "selection.json"
    argv = ["aggregate", "--clusters", str(clusters_file(tmp_path)), "--seed", "0", "--out", str(out)]
    trained = ["--solver", "qaoa", "--shots", "256", "--angles", "trained", "--training-evaluations", "6"]
    assert main([*argv, *trained]) == 0
    exact = aggregate(small_candidates(), ExactSolver(), 0)["chosen"]
    assert json.loads(out.read_text())["chosen"] == exact


def test_the_aggregate_step_writes_its_training_counters(capsys, tmp_path):
    out = tmp_path / "selection.json"
    argv = ["aggregate", "--clusters", str(clusters_file(tmp_path)), "--seed", "0", "--out", str(out)]
    trained = ["--solver", "qaoa", "--shots", "128", "--angles", "trained", "--training-evaluations", "5"]
    assert main([*argv, *trained]) == 0
    counters = json.loads(out.read_text())["training"]
    assert counters["training_problems"] == 1 and 1 <= counters["training_evaluations"] <= 5
    assert counters["training_shots"] == 128 * counters["training_evaluations"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--solver", "anneal", "--angles", "trained"], "--angles does not apply to --solver anneal"),
        (
            ["--solver", "qaoa", "--training-shots", "9"],
            "--training-shots needs --angles trained, got --angles closed-form",
        ),
        (
            ["--solver", "qaoa", "--angles", "closed-form", "--training-start", "random"],
            "--training-start needs --angles trained, got --angles closed-form",
        ),
        (
            ["--solver", "qaoa", "--angles", "trained", "--training-evaluations", "0"],
            "--training-evaluations must be a positive integer, got 0",
        ),
        (
            ["--solver", "qaoa", "--angles", "trained", "--training-method", "bfgs"],
            "argument --training-method: invalid choice",
        ),
        (["--solver", "qaoa", "--angles", "learned"], "argument --angles: invalid choice: 'learned'"),
    ],
)
@pytest.mark.parametrize("command", ["run", "aggregate"])
def test_bad_angle_options_exit_2_naming_the_option(capsys, tmp_path, command, options, message):
    if command == "run":
        argv = ["run", "--n-samples", "100", "--quiet"]
    else:
        argv = [
            "aggregate",
            "--clusters",
            str(clusters_file(tmp_path)),
            "--seed",
            "0",
            "--out",
            str(tmp_path / "s"),
        ]
    try:
        code = main([*argv, *options])
    except SystemExit as exit_:  # argparse
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()
