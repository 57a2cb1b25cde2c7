"""Accounting numbers on a synthetic database, and the ``report`` command."""

from __future__ import annotations

import json

import pytest

from backends.vqpu.__main__ import main
from backends.vqpu.report import summarize
from backends.vqpu.store import Store, read_batches

# job, submitted, started, ended: the device is busy 0-1, 1-2, 4-6; the span is 0-8
SYNTHETIC = [("a", 0.0, 0.0, 1.0), ("b", 0.5, 1.0, 2.0), ("a", 3.0, 4.0, 6.0), ("b", 7.0, None, None)]


@pytest.fixture
def synthetic_db(tmp_path):
    path = tmp_path / "acc.sqlite"
    store = Store(path)
    for k, (job, submitted, started, ended) in enumerate(SYNTHETIC):
        batch, _ = store.accept(
            job=job,
            user="u",
            key=str(k),
            payload=b"",
            circuits=1,
            qubits=2,
            shots=10,
            seed=None,
            submitted=submitted,
        )
        if started is not None:
            store.start(batch.id, started)
            store.finish(batch.id, ended=ended, quantum_seconds=ended - started, counts=[{"00": 10}])
    store.close()  # the last batch stays queued
    return path


def test_summary_numbers(synthetic_db):
    summary = summarize(read_batches(synthetic_db), until=8.0)
    assert (summary.batches, summary.done, summary.failed) == (4, 3, 0)
    assert summary.span_seconds == 8.0 and summary.quantum_seconds == 4.0
    assert summary.occupancy == 0.5
    assert summary.mean_queue_seconds == pytest.approx((0 + 0.5 + 1) / 3)
    a, b = summary.jobs
    assert (a.job, a.batches, a.quantum_seconds, a.mean_queue_seconds, a.runtime_seconds) == (
        "a",
        2,
        3.0,
        0.5,
        6.0,
    )
    assert (b.job, b.batches, b.quantum_seconds, b.mean_queue_seconds, b.runtime_seconds) == (
        "b",
        2,
        1.0,
        0.5,
        1.5,
    )
    with pytest.raises(ValueError, match="no batches to summarise"):
        summarize([])


def test_report_command(synthetic_db, tmp_path, capsys):
    assert (
        main(
            [
                "report",
                "--db",
                str(synthetic_db),
                "--json",
                str(tmp_path / "r.json"),
                "--figures",
                str(tmp_path / "fig"),
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    assert table.splitlines()[0].split() == [
        "job",
        "batches",
        "quantum",
        "s",
        "mean",
        "queue",
        "s",
        "runtime",
        "s",
    ]
    assert "occupancy 0.667  (done 3, failed 0)" in table  # span 0-6 without 'until'
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["quantum_seconds"] == 4.0 and [j["job"] for j in data["jobs"]] == ["a", "b"]
    assert (tmp_path / "fig" / "timeline.png").stat().st_size > 1000
    assert (tmp_path / "fig" / "jobs.png").stat().st_size > 1000
