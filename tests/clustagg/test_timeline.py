import time

import pytest

from clustagg.timeline import Timeline


def test_node_seconds_counts_the_floor_and_extra_nodes():
    timeline = Timeline(floor=1)
    timeline.records = [
        {"iteration": 0, "phase": "cluster", "start": 0.0, "end": 2.0, "nodes": 3},
        {"iteration": 0, "phase": "quantum", "start": 2.0, "end": 12.0, "nodes": 1},
    ]
    assert timeline.node_seconds(13.0) == pytest.approx(13.0 + 2 * 2.0)
    timeline.floor = 0
    assert timeline.node_seconds(13.0) == pytest.approx(3 * 2.0 + 10.0)


def test_phase_records_its_interval_even_when_the_block_fails():
    timeline = Timeline(floor=0)
    with timeline.phase(0, "cluster", nodes=3):
        time.sleep(0.02)
    with pytest.raises(RuntimeError), timeline.phase(1, "quantum", nodes=0):
        raise RuntimeError
    first, second = timeline.records
    assert (first["iteration"], first["phase"], first["nodes"]) == (0, "cluster", 3)
    assert first["end"] - first["start"] >= 0.02
    assert (second["iteration"], second["phase"], second["nodes"]) == (1, "quantum", 0)
    assert 0 <= first["start"] <= first["end"] <= second["start"] <= second["end"] <= timeline.elapsed()
    assert timeline.node_seconds(timeline.elapsed()) == pytest.approx(3 * (first["end"] - first["start"]))
