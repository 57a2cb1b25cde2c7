import dataclasses
import json
import math

import numpy as np
import pytest

from clustagg.errors import InvalidParameterError
from clustagg.loop import LoopSettings, LoopState


def selection(fallbacks=0, clusters=1):
    return {
        "fallbacks": fallbacks,
        "chosen_clusters": [{"algorithm": "kmeans", "cluster": c} for c in range(clusters)],
    }


def test_settings_normalise_their_values():
    settings = LoopSettings(
        threshold=np.float32(0.5), max_iter=np.int64(3), quantum_delay=1, sample_size=np.int32(7)
    )
    assert settings == LoopSettings(0.5, 3, 1.0, 7)
    assert type(settings.max_iter) is int and type(settings.sample_size) is int
    assert type(settings.threshold) is float and type(settings.quantum_delay) is float
    assert LoopSettings(sample_size=None).sample_size is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.max_iter = 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"threshold": -1}, r"threshold must be a number in \(-1, 1\], got -1"),
        ({"threshold": math.nan}, r"threshold must be a number in \(-1, 1\], got nan"),
        ({"max_iter": 2.5}, "max_iter must be a positive integer, got 2.5"),
        ({"quantum_delay": math.inf}, "quantum_delay must be a finite number >= 0, got inf"),
        ({"sample_size": 0}, "sample_size must be a positive integer, got 0"),
    ],
)
def test_settings_reject_bad_values(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        LoopSettings(**kwargs)


def test_state_keeps_history_and_the_first_best_round():
    state = LoopState()
    assert state.update(0.4, selection(fallbacks=1, clusters=2), {"round": 0})
    assert not state.update(0.3, selection(), {"round": 1})
    assert state.update(0.6, selection(fallbacks=2, clusters=5), {"round": 2})
    assert not state.update(0.6, selection(clusters=1), {"round": 3})  # a tie keeps the first
    assert state.iterations == [0.4, 0.3, 0.6, 0.6]
    assert state.parameters == [{"round": r} for r in range(4)]
    assert state.fallbacks == 3
    assert (state.best_iteration, state.silhouette, len(state.chosen_clusters)) == (2, 0.6, 5)


def test_first_round_is_the_best_even_without_a_score():
    state = LoopState()
    assert state.update(float("nan"), selection(), {})
    assert state.best_iteration == 0


@pytest.mark.parametrize(
    ("scores", "threshold", "max_iter", "done"),
    [
        ([], 0.5, 1, False),
        ([0.4], 0.5, 2, False),
        ([0.4, 0.51], 0.5, 5, True),  # above the threshold
        ([0.5], 0.5, 5, False),  # equal is not above
        ([0.1, 0.2], 0.5, 2, True),  # max_iter rounds
    ],
)
def test_state_done(scores, threshold, max_iter, done):
    state = LoopState()
    for score in scores:
        state.update(score, selection(), {})
    assert state.done(threshold, max_iter) is done


def test_state_json_round_trip_ignores_extra_keys():
    state = LoopState()
    state.update(0.7, selection(fallbacks=1, clusters=3), {"kmeans": {"n_clusters": 4}})
    data = json.loads(json.dumps({**state.to_json(), "seed": 3, "round_silhouette": 0.7}))
    assert LoopState.from_json(data) == state
