"""TimingRecord, JSON Lines round trip and summaries."""

import dataclasses
import json

import pytest

from backends import InvalidParameterError, TimingRecord, read_jsonl, summarize, write_jsonl

FIELDS = [
    "label",
    "submitted",
    "started",
    "ended",
    "quantum_seconds",
    "queue_seconds",
    "sleep_seconds",
    "circuits",
    "shots",
]


def record(label="aer", quantum=0.5, queue=0.25, sleep=1.0, circuits=2, shots=100, start=1.7e9):
    return TimingRecord(
        label=label,
        submitted=start - queue,
        started=start,
        ended=start + quantum,
        quantum_seconds=quantum,
        queue_seconds=queue,
        sleep_seconds=sleep,
        circuits=circuits,
        shots=shots,
    )


def test_to_json_has_exactly_the_documented_fields():
    data = record().to_json()
    assert list(data) == FIELDS
    assert json.loads(json.dumps(data)) == data


def test_records_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        record().shots = 3


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"quantum_seconds": -0.1}, "quantum_seconds must be >= 0 seconds, got -0.1"),
        ({"sleep_seconds": float("nan")}, "sleep_seconds must be >= 0 seconds, got nan"),
        ({"circuits": 0}, "circuits must be a positive integer, got 0"),
    ],
)
def test_records_check_themselves(changes, message):
    with pytest.raises(InvalidParameterError) as info:
        dataclasses.replace(record(), **changes)
    assert str(info.value) == message


def test_jsonl_round_trip(tmp_path):
    records = [record(), record(label="iqm-fake:adonis", quantum=0.125, queue=0.0, sleep=0.0, circuits=1)]
    path = tmp_path / "timings.jsonl"

    write_jsonl(records, path)

    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["label"] for line in lines] == ["aer", "iqm-fake:adonis"]
    assert read_jsonl(path) == records


def test_summarize_totals_and_means():
    records = [
        record(quantum=0.5, queue=0.25, sleep=1.0, circuits=2, shots=100),
        record(quantum=1.5, queue=0.75, sleep=3.0, circuits=1, shots=10),
    ]

    summary = summarize(records)

    assert summary == {
        "executions": 2,
        "circuits": 3,
        "shots": 2 * 100 + 1 * 10,
        "total_quantum_seconds": pytest.approx(2.0),
        "mean_quantum_seconds": pytest.approx(1.0),
        "total_queue_seconds": pytest.approx(1.0),
        "mean_queue_seconds": pytest.approx(0.5),
        "total_sleep_seconds": pytest.approx(4.0),
        "mean_sleep_seconds": pytest.approx(2.0),
    }


def test_summarize_nothing():
    summary = summarize([])
    assert summary["executions"] == summary["circuits"] == summary["shots"] == 0
    assert summary["mean_quantum_seconds"] == summary["total_sleep_seconds"] == 0.0
