"""Accounting numbers on a synthetic database, and the ``report`` command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backends.vqpu.cli import main
from backends.vqpu.server.report import sharing_slowdowns, summarize
from backends.vqpu.server.store import Batch, Store, read_batches

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


def test_sharing_slowdowns_on_the_synthetic_db(synthetic_db):
    # b's first batch waited 0.5-1.0 behind a's, out of b's runtime 0.5-2.0 (its second never ran)
    slowdowns = sharing_slowdowns(read_batches(synthetic_db))
    assert slowdowns == pytest.approx({"a": 1.0, "b": 1.5 / 1.0}, abs=1e-12)


def brute_force_slowdowns(batches, step=1e-3):
    """Per job, runtime / (runtime - delay), the delay found by scanning time in ``step`` s."""
    slowdowns = {}
    for job in {b.job for b in batches}:
        own = [b for b in batches if b.job == job]
        ends = [b.ended for b in own if b.ended is not None]
        if not ends:
            continue
        waiting = [(b.submitted, b.started) for b in own if b.started is not None]
        others = [(b.started, b.ended) for b in batches if b.job != job and b.started is not None]
        end = max(b.ended for b in batches if b.ended is not None)
        ticks = [(k + 0.5) * step for k in range(int(end / step) + 1)]
        delay = step * sum(
            any(a <= t < z for a, z in waiting) and any(a <= t < z for a, z in others) for t in ticks
        )
        runtime = max(ends) - min(b.submitted for b in own)
        slowdowns[job] = runtime / (runtime - delay)
    return slowdowns


@given(
    st.lists(
        st.tuples(st.sampled_from("abc"), st.integers(0, 50), st.integers(1, 20), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
@settings(max_examples=100, deadline=None)
def test_sharing_slowdowns_equal_a_scan_of_the_schedule(spec):
    """One device, batches run in submission order; times on a 0.1-s grid (exact for the scan)."""
    batches, free = [], 0.0
    for i, (job, submitted, duration, runs) in enumerate(sorted(spec, key=lambda s: s[1])):
        submitted, duration = submitted / 10, duration / 10
        started = max(free, submitted) if runs else None
        ended = started + duration if runs else None
        free = ended if runs else free
        batches.append(
            Batch(i, job, str(i), 1, 2, 10, None, "done" if runs else "queued", submitted, started, ended,
                  duration if runs else None, int(runs), None, None, 1)
        )  # fmt: skip
    expected = brute_force_slowdowns(batches)
    assert sharing_slowdowns(batches) == pytest.approx(expected, rel=1e-6, abs=1e-6)
