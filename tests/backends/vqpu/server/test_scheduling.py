"""Quotas, accounting, metrics and the scheduling policies with a live server on loopback."""

from __future__ import annotations

import csv

import httpx
import pytest
from vqpu_helpers import ghz, serve

from backends import get_backend
from backends.vqpu.api import QuotaExceededError, VQPUSession
from backends.vqpu.cli import main
from backends.vqpu.server.accounting import Quotas
from backends.vqpu.server.policies import Policy
from backends.vqpu.server.store import read_batches
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])


@pytest.mark.timeout(60)
def test_quotas_run_out_per_job_and_per_user(tmp_path, capsys):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("job-a secret-a alice\njob-b secret-b alice\njob-c secret-c carol\n")
    quotas = Quotas(job_seconds=0.25, user_seconds=0.45)
    db = tmp_path / "db.sqlite"
    device = get_backend("null:5")  # device time is exactly the latency: 0.1 s per batch
    with serve(device, db, tokens=tokens, latency=0.1, quotas=quotas) as (_, url):
        a, b, c = (VQPUSession(url, token=f"secret-{x}") for x in "abc")
        for _ in range(3):  # 0.1 s each: the third brings job-a to >= 0.3 s
            a.execute(PAYLOAD, 10)
        with pytest.raises(QuotaExceededError) as job_over:
            a.execute(PAYLOAD, 10)
        b.execute(PAYLOAD, 10)  # alice: >= 0.4 s, under 0.45 s
        b.execute(PAYLOAD, 10)  # >= 0.5 s now
        with pytest.raises(QuotaExceededError) as user_over:
            b.execute(PAYLOAD, 10)
        c.execute(PAYLOAD, 10)  # another user is not affected
        metrics = httpx.get(f"{url}/metrics", headers={"Authorization": "Bearer secret-c"})
    assert (job_over.value.status, job_over.value.code) == (403, "quota_exceeded")
    assert "job 'job-a' used 0.3" in str(job_over.value) and "its quota is 0.25 s" in str(job_over.value)
    assert "user 'alice' used 0.5" in str(user_over.value) and "the quota is 0.45 s" in str(user_over.value)

    batches = read_batches(db)
    assert [b.job for b in batches] == ["job-a"] * 3 + ["job-b"] * 2 + ["job-c"]  # refused ones not stored
    alice = sum(b.quantum_seconds for b in batches if b.user == "alice")
    assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain")
    lines = metrics.text.splitlines()
    assert "vqpu_quota_refusals_total 2.0" in lines
    assert 'vqpu_batches{status="done"} 6.0' in lines
    assert 'vqpu_user_batches_total{user="alice"} 5.0' in lines
    assert 'vqpu_user_shots_total{user="carol"} 10.0' in lines
    [alice_line] = [
        line for line in lines if line.startswith('vqpu_user_quantum_seconds_total{user="alice"}')
    ]
    assert float(alice_line.split()[-1]) == pytest.approx(alice, abs=1e-9)
    assert all(b.transpile_seconds is not None and b.quantum_seconds >= 0.1 for b in batches)

    assert main(["report", "--db", str(db), "--csv", str(tmp_path / "jobs.csv")]) == 0
    out = capsys.readouterr().out
    assert "per user" in out and "per job" in out
    rows = list(csv.DictReader((tmp_path / "jobs.csv").open()))
    assert [(r["job"], r["user"], r["batches"], r["shots"]) for r in rows] == [
        ("job-a", "alice", "3", "30"),
        ("job-b", "alice", "2", "20"),
        ("job-c", "carol", "1", "10"),
    ]
    assert sum(float(r["quantum_seconds"]) for r in rows if r["user"] == "alice") == pytest.approx(
        alice, abs=1e-5
    )


def _run_heavy_and_light(physical, db, policy, light_jobs):
    """A blocker holds the device; a heavy job queues 3 batches, each light job 1; return the start order."""
    with serve(physical, db, latency=0.5, policy=policy) as (_, url):
        blocker = VQPUSession(url, job="blocker")
        first = blocker.submit(PAYLOAD, 10)
        heavy = VQPUSession(url, job="heavy")
        ids = {f"h{i}": heavy.submit(PAYLOAD, 10)["id"] for i in range(1, 4)}
        for name in light_jobs:
            ids[name] = VQPUSession(url, job=name).submit(PAYLOAD, 10)["id"]
        blocker.result(first["id"])
        for name, batch_id in ids.items():
            session = heavy if name.startswith("h") else VQPUSession(url, job=name)
            assert session.result(batch_id)["status"] == "done"
    by_id = {b.id: b for b in read_batches(db)}
    order = sorted(ids, key=lambda name: by_id[ids[name]].started)
    return order, {name: by_id[batch_id] for name, batch_id in ids.items()}


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_round_robin_interleaves_a_heavy_and_a_light_job_where_fifo_does_not(physical, tmp_path):
    fifo, _ = _run_heavy_and_light(physical, tmp_path / "fifo.sqlite", Policy("fifo"), ["l1", "l2"])
    fair, _ = _run_heavy_and_light(physical, tmp_path / "rr.sqlite", Policy("round-robin"), ["l1", "l2"])
    assert fifo == ["h1", "h2", "h3", "l1", "l2"]
    assert fair == ["h1", "l1", "l2", "h2", "h3"]  # light jobs never served go first, one batch each


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_a_batch_that_hits_the_waiting_time_bound_goes_first(physical, tmp_path):
    light = ["l1", "l2", "l3", "l4"]
    policy = Policy("round-robin", max_wait=1.2)
    order, batches = _run_heavy_and_light(physical, tmp_path / "bound.sqlite", policy, light)
    # round-robin alone would run h2 after every light job; past 1.2 s of waiting it goes first
    assert order.index("h2") < order.index("l4") and order.index("h1") == 0
    assert order.index("h2") < len(order) - 2
    waits = {name: b.queue_seconds for name, b in batches.items()}
    assert waits["h2"] <= 1.2 + 0.5 + 0.5, waits  # the bound, plus the batch running when it passed
