"""The vQPU server over real HTTP on loopback: FIFO, tokens, limits, idempotency, metrics."""

from __future__ import annotations

import itertools
import threading
import time

import httpx
import pytest
from vqpu_helpers import ghz, loopback_socket, serve

from backends.null import NullBackend
from backends.vqpu.api import VQPURejectedError, VQPUSession
from backends.vqpu.server.app import Limits
from backends.vqpu.server.store import read_batches
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])


def test_fifo_across_clients(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite", latency=0.15) as (_, url):
        sessions = {name: VQPUSession(url, job=name) for name in "abc"}
        order = ["a", "b", "a", "c", "b", "c"]
        ids = [sessions[name].submit(PAYLOAD, 20, seed=1)["id"] for name in order]
        results = [sessions[name].result(i) for name, i in zip(order, ids, strict=True)]
    assert ids == sorted(ids)
    starts = [r["started"] for r in results]
    assert starts == sorted(starts)
    # strictly one at a time: each execution ends before the next starts
    assert all(a["ended"] <= b["started"] for a, b in itertools.pairwise(results))
    assert all(r["status"] == "done" and sum(r["counts"][0].values()) == 20 for r in results)
    assert [b.job for b in read_batches(tmp_path / "db.sqlite")] == order


def test_tokens(physical, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("# name token\njob-a secret-a\njob-b secret-b\n")
    with serve(physical, tmp_path / "db.sqlite", tokens=tokens) as (_, url):
        missing = httpx.get(f"{url}/health")
        assert missing.status_code == 401
        assert missing.json() == {
            "error": "unauthorized",
            "detail": "missing token: send 'Authorization: Bearer <token>'",
        }
        wrong = httpx.get(f"{url}/metrics", headers={"Authorization": "Bearer nope"})
        assert (wrong.status_code, wrong.json()["detail"]) == (401, "unknown token")
        with pytest.raises(VQPURejectedError, match=r"401 unauthorized\): unknown token"):
            VQPUSession(url, token="nope").submit(PAYLOAD, 10)

        a, b = VQPUSession(url, token="secret-a"), VQPUSession(url, token="secret-b")
        batch = a.execute(PAYLOAD, 10, seed=3)
        with pytest.raises(VQPURejectedError) as err:  # another job's batch is invisible
            b.result(batch["id"])
        assert (err.value.status, err.value.detail) == (404, f"no batch {batch['id']} for job 'job-b'")

        with tokens.open("a") as file:  # tokens of new jobs are picked up while serving
            file.write("job-c secret-c\n")  # a new size: the file differs at once, whatever its mtime
        assert VQPUSession(url, token="secret-c").execute(PAYLOAD, 10)["status"] == "done"
    assert sorted({b.job for b in read_batches(tmp_path / "db.sqlite")}) == ["job-a", "job-c"]


LIMITS = Limits(max_payload_bytes=4000, max_shots=100, max_circuits=2, max_queue=2, max_qubits=3)


@pytest.mark.parametrize(
    ("circuits", "shots", "status", "code", "detail"),
    [
        ([ghz(2)], 101, 422, "too_many_shots", "shots=101 exceeds the limit of 100"),
        ([ghz(2)] * 3, 10, 422, "too_many_circuits", "batch has 3 circuits, the limit is 2"),
        ([ghz(4)], 10, 422, "too_many_qubits", "a circuit needs 4 qubits, the limit is 3"),
        ([ghz(2, name="x" * 4000)], 10, 413, "payload_too_large", "the limit is 4000"),
    ],
)
def test_limits(physical, tmp_path, circuits, shots, status, code, detail):
    with serve(physical, tmp_path / "db.sqlite", limits=LIMITS) as (_, url):
        session = VQPUSession(url, job="greedy")
        with pytest.raises(VQPURejectedError) as err:
            session.submit(encode_circuits(circuits), shots)
        assert (err.value.status, err.value.code) == (status, code)
        assert detail in err.value.detail
        # the server keeps serving others
        assert VQPUSession(url, job="other").execute(PAYLOAD, 10)["status"] == "done"


def test_bad_requests(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        not_qpy = httpx.post(f"{url}/batches", json={"key": "k", "circuits": "aGVsbG8=", "shots": 10})
        assert not_qpy.status_code == 400 and not_qpy.json()["error"] == "bad_circuits"
        assert not_qpy.json()["detail"].startswith("circuits are not base64-encoded QPY")
        no_shots = httpx.post(f"{url}/batches", json={"key": "k", "circuits": PAYLOAD, "shots": 0})
        assert no_shots.status_code == 400
        assert no_shots.json() == {
            "error": "bad_request",
            "detail": "body.shots: Input should be greater than or equal to 1",
        }
        assert httpx.get(f"{url}/nowhere").json() == {"error": "http_error", "detail": "Not Found"}
        chunked = httpx.post(f"{url}/batches", content=iter([b'{"key": "k"}']))  # no Content-Length
        assert (chunked.status_code, chunked.json()) == (
            411,
            {"error": "length_required", "detail": "send a Content-Length header"},
        )


def test_queue_limit(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite", latency=0.4, limits=LIMITS) as (service, url):
        session = VQPUSession(url, job="flood")
        first = session.submit(PAYLOAD, 10)
        session.submit(PAYLOAD, 10)
        with pytest.raises(VQPURejectedError) as err:
            session.submit(PAYLOAD, 10)
        assert (err.value.status, err.value.detail) == (
            429,
            "queue is full: 2 batches waiting, limit 2; retry later",
        )
        assert session.result(first["id"])["status"] == "done"
        assert service.status()["batches_done"] >= 1


def test_idempotent_resubmission(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite", latency=0.05) as (_, url):
        session = VQPUSession(url, job="retry")
        first = session.submit(PAYLOAD, 30, seed=5, key="batch-1")
        again = session.submit(PAYLOAD, 30, seed=5, key="batch-1")  # e.g. after a lost answer
        done = session.result(first["id"])
        late = session.submit(PAYLOAD, 30, seed=5, key="batch-1")  # after it finished: same result
        raw = httpx.post(
            f"{url}/batches",
            json={"key": "batch-1", "circuits": PAYLOAD, "shots": 30, "seed": 5},
            headers={"X-VQPU-Job": "retry"},
        )
    assert first["id"] == again["id"] == late["id"] == raw.json()["id"]
    assert raw.status_code == 200 and first["status"] == "queued"
    assert late["counts"] == done["counts"]
    (batch,) = read_batches(tmp_path / "db.sqlite")
    assert (batch.runs, batch.fetched, batch.status) == (1, 1, "done")


def test_client_retries_until_server_is_up(physical, tmp_path):
    sock = loopback_socket()  # bound but not listening: connections are refused for 1 s
    with serve(physical, tmp_path / "db.sqlite", sock=sock, delay=1.0) as (_, url):
        tic = time.monotonic()
        batch = VQPUSession(url, job="early", deadline=20).execute(PAYLOAD, 10)
    assert batch["status"] == "done" and time.monotonic() - tic >= 0.9


def test_long_poll_and_status(physical, tmp_path):
    with serve(physical, tmp_path / "db.sqlite", latency=0.3) as (_, url):
        session = VQPUSession(url, job="m")
        batch = session.submit(PAYLOAD, 10)
        pending = session.request("GET", f"/batches/{batch['id']}")  # no wait: answered at once
        assert pending["status"] in ("queued", "running") and pending["counts"] is None
        busy = session.status()
        assert busy["queue_length"] == 1 and busy["batches_done"] == 0
        tic = time.perf_counter()
        done = session.request("GET", f"/batches/{batch['id']}", params={"wait": 10})
        assert done["status"] == "done" and time.perf_counter() - tic < 5  # woken, not timed out
        session.execute(PAYLOAD, 10)
        metrics = session.status()
        health = session.health()
    assert health["status"] == "ok" and health["num_qubits"] == 5 and health["backend"] == "aer"
    assert (metrics["queue_length"], metrics["batches_done"], metrics["batches_failed"]) == (0, 2, 0)
    busy_seconds = sum(b.quantum_seconds for b in read_batches(tmp_path / "db.sqlite"))
    assert metrics["busy_seconds"] == pytest.approx(busy_seconds)
    assert 0.6 <= metrics["busy_seconds"] and 0 < metrics["occupancy"] <= 1


class FailsFirst(NullBackend):
    """A null device whose first run fails, as a device that goes offline once."""

    def _execute(self, circuits, shots, seed):
        if not getattr(self, "failed", False):
            self.failed = True
            raise RuntimeError("device offline")
        return super()._execute(circuits, shots, seed)


def test_failed_batch_returns_error_and_server_goes_on(tmp_path):
    unmeasured = ghz(2)
    unmeasured.remove_final_measurements()
    with serve(FailsFirst(width=5, seed=1), tmp_path / "db.sqlite") as (_, url):
        session = VQPUSession(url, job="f")
        with pytest.raises(VQPURejectedError) as info:  # refused at submit, before the device
            session.submit(encode_circuits([unmeasured]), 10)
        assert (info.value.status, info.value.code) == (400, "no_measurements")
        failed = session.result(session.submit(PAYLOAD, 10)["id"])
        assert failed["status"] == "failed" and failed["error"] == "RuntimeError: device offline"
        assert session.execute(PAYLOAD, 10)["status"] == "done"
        assert session.status()["batches_failed"] == 1


def test_concurrent_clients_each_get_their_own_results(physical, tmp_path):
    results: dict[str, list] = {}

    def client(name, url):
        with VQPUSession(url, job=name) as session:
            results[name] = [session.execute(encode_circuits([ghz(k % 3 + 1)]), 10) for k in range(4)]

    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        threads = [threading.Thread(target=client, args=(f"j{i}", url)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert sorted(results) == ["j0", "j1", "j2", "j3"]
    for batches in results.values():
        assert [len(next(iter(b["counts"][0]))) for b in batches] == [1, 2, 3, 1]
    assert len(read_batches(tmp_path / "db.sqlite")) == 16


def test_a_submission_can_wait_for_its_result(physical, tmp_path):
    body = {"key": "w1", "circuits": PAYLOAD, "shots": 10, "seed": 1}
    with serve(physical, tmp_path / "db.sqlite", latency=0.2) as (_, url):
        headers = {"X-VQPU-Job": "w"}
        first = httpx.post(f"{url}/batches", params={"wait": 10}, json=body, headers=headers, timeout=20)
        again = httpx.post(f"{url}/batches", params={"wait": 10}, json=body, headers=headers, timeout=20)
        short = httpx.post(
            f"{url}/batches", params={"wait": 0.01}, json={**body, "key": "w2"}, headers=headers, timeout=20
        )
    assert first.status_code == 202 and first.json()["status"] == "done"
    assert sum(first.json()["counts"][0].values()) == 10
    assert again.status_code == 200 and again.json() == first.json()  # the same batch, not run twice
    assert short.status_code == 202 and short.json()["status"] in ("queued", "running")
    [stored, _] = read_batches(tmp_path / "db.sqlite")
    assert stored.fetched == 2 and stored.runs == 1


def test_every_answer_tells_the_servers_time(physical, tmp_path):
    with (
        serve(physical, tmp_path / "db.sqlite", latency=0.2) as (_, url),
        VQPUSession(url, job="t") as session,
    ):
        assert session.server_seconds is None
        tic = time.perf_counter()
        batch = session.execute(PAYLOAD, 10, seed=1)
        round_trip = time.perf_counter() - tic
        waited = session.server_seconds  # the submission waited for its 0.2-s execution
        refused = httpx.post(f"{url}/batches", content=b"{}", headers={"X-VQPU-Job": "t"})
    assert batch["quantum_seconds"] + batch["queue_seconds"] <= waited <= round_trip
    assert refused.status_code == 400 and float(refused.headers["server-timing"].split("dur=")[1]) >= 0


@pytest.mark.timeout(120)
def test_shots_above_the_backend_limit_are_refused_at_submit(physical, tmp_path):
    # the server allows 2,000,000 shots, its Aer backend only 1,000,000: the lower limit applies
    assert physical.max_shots == 1_000_000
    with serve(physical, tmp_path / "db.sqlite", limits=Limits(max_shots=2_000_000)) as (service, url):
        assert httpx.get(f"{url}/health", timeout=30).json()["limits"]["max_shots"] == 1_000_000
        session = VQPUSession(url, job="big")
        with pytest.raises(VQPURejectedError) as err:
            session.submit(PAYLOAD, 1_000_001)
        assert (err.value.status, err.value.code, err.value.detail) == (
            422,
            "too_many_shots",
            "shots=1000001 exceeds the limit of 1000000",
        )
        assert service.store.batches() == []  # refused before it was stored, never run
        done = session.execute(PAYLOAD, 1_000_000, seed=1)
    assert done["status"] == "done" and sum(done["counts"][0].values()) == 1_000_000
