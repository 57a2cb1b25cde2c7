"""Accounting numbers on a synthetic database, and the ``report`` command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.vqpu.__main__ import main
from backends.vqpu.report import summarize, waits_behind_others
from backends.vqpu.store import Batch, Store, read_batches

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


def test_waits_behind_others_on_the_synthetic_db(synthetic_db):
    # b's first batch waited 0.5-1.0 behind a's; a's second 3.0-4.0 with the device idle
    assert waits_behind_others(read_batches(synthetic_db)) == pytest.approx({"a": 0.0, "b": 0.5}, abs=1e-12)


def brute_force_waits(batches):
    """Per job, the mean over its started batches of other jobs' device seconds in its wait."""
    waits = {}
    for job in {b.job for b in batches}:
        own = [b for b in batches if b.job == job and b.started is not None]
        overlaps = [
            sum(
                max(0.0, min(mine.started, other.ended) - max(mine.submitted, other.started))
                for other in batches
                if other.job != job and other.started is not None
            )
            for mine in own
        ]
        waits[job] = sum(overlaps) / len(overlaps) if overlaps else 0.0
    return waits


@given(
    st.lists(
        st.tuples(st.sampled_from("abc"), st.floats(0, 5), st.floats(0.01, 2), st.booleans()),
        min_size=1,
        max_size=25,
    )
)
@settings(max_examples=200, deadline=None)
def test_waits_behind_others_equal_the_pairwise_overlaps(spec):
    """One device, batches run in submission order (each after its arrival and the previous end)."""
    batches, free = [], 0.0
    for i, (job, submitted, duration, runs) in enumerate(sorted(spec, key=lambda s: s[1])):
        started = max(free, submitted) if runs else None
        ended = started + duration if runs else None
        free = ended if runs else free
        batches.append(
            Batch(i, job, str(i), 1, 2, 10, None, "done" if runs else "queued", submitted, started, ended,
                  duration if runs else None, int(runs), None, None, 1)
        )  # fmt: skip
    assert waits_behind_others(batches) == pytest.approx(brute_force_waits(batches), abs=1e-9)
