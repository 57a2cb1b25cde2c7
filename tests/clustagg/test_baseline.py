import numpy as np
import pytest

from clustagg import steps
from clustagg.baseline import run_baseline
from clustagg.clusterers import draw_parameters
from clustagg.loop import LoopSettings, LoopState
from clustagg.solvers import ExactSolver


def in_memory_loop(X, seed, loop):
    """The loop written out with the in-memory steps: (best labels, state)."""
    state, best = LoopState(), None
    for i in range(loop.max_iter):
        candidates = steps.cluster(X, seed + i)
        selection = steps.aggregate(candidates, ExactSolver(), seed + i)
        labels, silhouette = steps.score_round(X, candidates, selection, sample_size=loop.sample_size)
        if state.update(silhouette, selection, draw_parameters(seed + i)):
            best = labels
        if state.done(loop.threshold, loop.max_iter):
            break
    return best, state


@pytest.fixture(scope="module")
def comm_self():
    from mpi4py import MPI

    return MPI.COMM_SELF


def test_baseline_equals_the_in_memory_steps(points_1000, comm_self):
    loop = LoopSettings(threshold=0.99, max_iter=2, sample_size=500)
    result = run_baseline(points_1000.tolist(), ExactSolver(), 3, loop, comm_self)
    best, state = in_memory_loop(points_1000, 3, loop)
    np.testing.assert_array_equal(result.labels, best)
    assert result.iterations == state.iterations and len(result.iterations) == 2
    assert result.chosen_clusters == state.chosen_clusters
    assert result.parameters == [draw_parameters(3), draw_parameters(4)]
    assert (result.mode, result.seed) == ("baseline", 3)
    # one rank held throughout: floor = nodes = 1
    assert {r["nodes"] for r in result.timeline} == {1}
    assert result.node_seconds == pytest.approx(result.wall_seconds)


def test_baseline_stops_after_the_first_round_above_the_threshold(points_1000, comm_self):
    result = run_baseline(points_1000, ExactSolver(), 0, LoopSettings(threshold=-0.99, max_iter=5), comm_self)
    assert len(result.iterations) == 1 and result.iterations[0] > -0.99
    assert [r["phase"] for r in result.timeline] == ["cluster", "quantum", "score"]


def test_baseline_uses_comm_world_by_default(points_1000):
    result = run_baseline(points_1000, ExactSolver(), 0, LoopSettings(max_iter=1))
    assert result.labels.shape == (1000,) and len(result.iterations) == 1
