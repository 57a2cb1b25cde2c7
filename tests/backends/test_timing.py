"""TimingRecord, JSON Lines round trip, summaries, and record_timings."""

import asyncio
import dataclasses
import json
import threading
import time

import pytest
from qiskit import QuantumCircuit
from qiskit_aer import AerSimulator

from backends import (
    BaseBackend,
    Execution,
    InvalidParameterError,
    Run,
    TimingRecord,
    read_jsonl,
    record_timings,
    summarize,
    write_jsonl,
)
from backends.timing import publish

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


# ---- record_timings and execute -------------------------------------------------------------


class Echo(BaseBackend):
    """Answers every shot with zeros after ``pause`` seconds; no transpilation, no simulator."""

    def __init__(self, pause=0.0, **options):
        super().__init__(AerSimulator(), name="echo", **options)
        self.pause = pause

    def _execute(self, circuits, shots, seed):
        time.sleep(self.pause)
        return Execution([{"0" * circuit.num_clbits: shots} for circuit in circuits])


def measured(num_qubits=1):
    circuit = QuantumCircuit(num_qubits, num_qubits)
    circuit.measure(range(num_qubits), range(num_qubits))
    return circuit


def test_execute_returns_the_record_it_appends():
    backend = Echo()
    run = backend.execute(measured(2), shots=7)

    assert isinstance(run, Run)
    assert run.counts == [{"00": 7}]
    assert backend.timings == [run.timing] and backend.timings[-1] is run.timing
    assert (run.timing.label, run.timing.circuits, run.timing.shots) == ("echo", 1, 7)
    assert backend.run(measured(), shots=3) == [{"0": 3}]
    assert len(backend.timings) == 2


def test_record_timings_collects_only_the_block():
    backend = Echo()
    backend.execute(measured(), shots=1)
    with record_timings() as records:
        inside = [backend.execute(measured(), shots=shots).timing for shots in (2, 3)]
        assert records == inside
    backend.execute(measured(), shots=4)

    assert len(records) == 2 and all(a is b for a, b in zip(records, inside, strict=True))
    assert len(backend.timings) == 4


def test_nested_blocks_each_see_their_own_executions():
    backend = Echo()
    with record_timings() as outer:
        first = backend.execute(measured(), shots=1).timing
        with record_timings() as inner:
            second = backend.execute(measured(), shots=2).timing
        with record_timings() as empty:
            pass
        third = backend.execute(measured(), shots=3).timing

    assert outer == [first, second, third]
    assert inner == [second] and inner[0] is second
    assert empty == []


def test_a_block_left_by_an_exception_stops_recording():
    backend = Echo()
    with pytest.raises(RuntimeError), record_timings() as records:
        backend.execute(measured(), shots=1)
        raise RuntimeError("stop")
    backend.execute(measured(), shots=2)

    assert [record.shots for record in records] == [1]


def test_two_threads_sharing_a_backend_each_see_only_their_own():
    backend = Echo(pause=0.005)
    barrier = threading.Barrier(2)
    seen, returned = {}, {}

    def worker(shots):
        barrier.wait()  # run the two workers' executions interleaved
        with record_timings() as records:
            returned[shots] = [backend.execute(measured(), shots=shots).timing for _ in range(5)]
        seen[shots] = records

    threads = [threading.Thread(target=worker, args=(shots,)) for shots in (10, 20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    for shots in (10, 20):
        assert [record.shots for record in seen[shots]] == [shots] * 5
        assert all(a is b for a, b in zip(seen[shots], returned[shots], strict=True))
    assert sorted(record.shots for record in backend.timings) == [10] * 5 + [20] * 5


def test_asyncio_tasks_each_see_only_their_own():
    backend = Echo()

    async def task(shots):
        with record_timings() as records:
            for _ in range(3):
                backend.execute(measured(), shots=shots)
                await asyncio.sleep(0)  # let the other task run in between
        return [record.shots for record in records]

    async def both():
        return await asyncio.gather(task(1), task(2))

    assert asyncio.run(both()) == [[1, 1, 1], [2, 2, 2]]


def test_publish_outside_any_block_is_harmless():
    publish(record())
    with record_timings() as records:
        publish(record(label="by hand"))
    assert [r.label for r in records] == ["by hand"]


def test_from_json_checks_like_the_constructor():
    data = record().to_json()
    assert TimingRecord.from_json(data) == record()
    with pytest.raises(InvalidParameterError, match="^shots must be a positive integer, got 2.5$"):
        TimingRecord.from_json({**data, "shots": 2.5})
    with pytest.raises(TypeError, match="unexpected keyword argument 'gpu_seconds'"):
        TimingRecord.from_json({**data, "gpu_seconds": 1.0})
