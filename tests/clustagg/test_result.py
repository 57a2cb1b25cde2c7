import json

import numpy as np
import pytest

from clustagg.loop import LoopState
from clustagg.result import AggregationResult, collect_result
from clustagg.timeline import Timeline


@pytest.fixture
def state():
    state = LoopState()
    state.update(
        0.5, {"fallbacks": 1, "chosen_clusters": [{"algorithm": "kmeans", "cluster": 0, "size": 2}]}, {}
    )
    state.update(0.3, {"fallbacks": 0, "chosen_clusters": []}, {"k": 1})
    return state


def test_collect_result_takes_the_loop_state_and_the_timeline(state):
    timeline = Timeline(floor=2)
    with timeline.phase(0, "cluster", nodes=5):
        pass
    labels = np.array([0, 0, 1], dtype=np.int32)
    result = collect_result(labels, state, timeline, "malleable", 7)
    assert isinstance(result, AggregationResult)
    assert result.labels is labels and (result.mode, result.seed) == ("malleable", 7)
    assert (result.silhouette, result.best_iteration, result.fallbacks) == (0.5, 0, 1)
    assert result.iterations == [0.5, 0.3] and result.parameters == [{}, {"k": 1}]
    assert result.chosen_clusters == state.chosen_clusters
    assert result.timeline == timeline.records
    assert 0 < result.wall_seconds <= timeline.elapsed()
    phase = timeline.records[0]
    assert result.node_seconds == pytest.approx(2 * result.wall_seconds + 3 * (phase["end"] - phase["start"]))


def test_to_json_is_plain_json(state):
    result = collect_result(np.array([1, 0], dtype=np.int32), state, Timeline(floor=1), "baseline", 0)
    data = json.loads(json.dumps(result.to_json()))
    assert data["labels"] == [1, 0]
    assert set(data) == {f.name for f in result.__dataclass_fields__.values()}
    assert data["iterations"] == result.iterations
