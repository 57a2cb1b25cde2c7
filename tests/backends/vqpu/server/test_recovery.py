"""A killed server restarted on the same database finishes what it accepted; clients get each result once."""

from __future__ import annotations

import importlib.util
import signal
import threading
import time

import pytest
from vqpu_helpers import HERE, ghz, server_command, spawn_server

from backends.vqpu.api import VQPUSession
from backends.vqpu.server.store import read_batches
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])


@pytest.mark.slow
def test_restart_recovers_accepted_batches(tmp_path):
    db = tmp_path / "db.sqlite"
    with spawn_server(db, "--latency", "0.3") as (process, url):
        port = int(url.rsplit(":", 1)[1])
        sessions = {job: VQPUSession(url, job=job, deadline=60) for job in ("a", "b")}
        accepted = [
            (job, sessions[job].submit(PAYLOAD, 20, seed=k, key=f"{job}-{k}")["id"])
            for k in range(3)
            for job in ("a", "b")
        ]
        waiter = {}
        thread = threading.Thread(target=lambda: waiter.update(sessions["a"].result(accepted[-2][1])))
        thread.start()  # long-polls across the restart
        deadline = time.monotonic() + 30
        while read_batches(db)[0].status == "queued":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
    before = read_batches(db)
    assert len(before) == 6 and sum(b.status == "done" for b in before) < 6

    with spawn_server(db, "--latency", "0.3", port=port):
        results = {batch_id: sessions[job].result(batch_id) for job, batch_id in accepted}
        again = sessions["b"].submit(PAYLOAD, 20, seed=0, key="b-0")  # resubmitted key: same batch
        thread.join(timeout=60)
    after = read_batches(db)
    assert [b.id for b in after] == [i for _, i in accepted]  # nothing new, nothing lost
    assert all(b.status == "done" for b in after)
    assert all(sum(r["counts"][0].values()) == 20 for r in results.values())
    assert waiter["status"] == "done" and waiter["counts"] == results[accepted[-2][1]]["counts"]
    assert again["id"] == accepted[1][1] and again["counts"] == results[accepted[1][1]]["counts"]
    starts = [b.started for b in after]
    assert starts == sorted(starts)  # re-queued in arrival order
    assert sum(b.runs for b in after) <= 7  # only the batch running at the kill ran twice


def _benchmark():
    spec = importlib.util.spec_from_file_location(
        "vqpu_multiplexing", HERE.parents[2] / "benchmarks" / "vqpu_multiplexing.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_soak_kill_client_and_restart_server(tmp_path):
    """The benchmark's soak check, scaled down: 5 clients, 60 batches, one client killed, one restart."""
    result = _benchmark().soak(5, 60, tmp_path, server_command, timeout=50)
    assert result["answered"] >= 48 and result["accepted"] >= result["answered"]
    assert result["lost"] == result["duplicates"] == 0 and result["survivors_complete"]
