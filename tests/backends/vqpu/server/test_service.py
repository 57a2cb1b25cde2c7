"""VQPUService without HTTP: authentication, limit checks, long polls, health and metrics."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest
from vqpu_helpers import blocked_in, ghz

from backends import InvalidParameterError
from backends.vqpu.server import service as service_module
from backends.vqpu.server.limits import MAX_PENDING_DECODES, Limits
from backends.vqpu.server.service import APIError, BatchIn, VQPUService
from backends.vqpu.server.store import DatabaseInUseError, read_batches
from backends.vqpu.server.tokens import Caller, TokenBook
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])
LIMITS = Limits(max_shots=100, max_circuits=2, max_queue=2, max_qubits=3)


@pytest.fixture
def service(physical, tmp_path):
    service = VQPUService(physical, tmp_path / "db.sqlite", limits=LIMITS)
    yield service
    service.stop()


def body(key="k", circuits=PAYLOAD, shots=10, seed=None):
    return BatchIn(key=key, circuits=circuits, shots=shots, seed=seed)


def refusal(call, *args):
    with pytest.raises(APIError) as info:
        call(*args)
    return info.value.status, info.value.code, info.value.detail


def test_open_mode_takes_the_job_from_the_header(service):
    assert service.caller_of({"x-vqpu-job": "job-7"}).job == "job-7"
    assert service.caller_of({}).job == "anonymous"


def test_tokens_name_the_job(physical, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("job-a secret-a\n")
    service = VQPUService(physical, tmp_path / "db.sqlite", tokens=TokenBook(tokens))
    try:
        assert service.caller_of({"authorization": "Bearer secret-a", "x-vqpu-job": "ignored"}).job == "job-a"
        assert service.caller_of({"authorization": "bearer  secret-a "}).job == "job-a"
        missing = (401, "unauthorized", "missing token: send 'Authorization: Bearer <token>'")
        assert refusal(service.caller_of, {}) == missing
        assert refusal(service.caller_of, {"authorization": "Basic secret-a"}) == missing
        assert refusal(service.caller_of, {"authorization": "Bearer"}) == missing
        assert refusal(service.caller_of, {"authorization": "Bearer guess"}) == (
            401,
            "unauthorized",
            "unknown token",
        )
    finally:
        service.stop()


def test_submit_stores_a_new_batch_once(service):
    view, created = service.submit(Caller("a", "a"), body(seed=4))
    again, created_again = service.submit(Caller("a", "a"), body(seed=4))

    assert created and not created_again and again == view
    assert (view["status"], view["circuits"], view["shots"], view["counts"]) == ("queued", 1, 10, None)
    [stored] = read_batches(service.store.path)
    assert (stored.id, stored.job, stored.qubits, stored.seed) == (view["id"], "a", 2, 4)


@pytest.mark.parametrize(
    ("batch", "expected"),
    [
        (body(shots=101), (422, "too_many_shots", "shots=101 exceeds the limit of 100")),
        (
            body(circuits=encode_circuits([ghz(1)] * 3)),
            (422, "too_many_circuits", "batch has 3 circuits, the limit is 2"),
        ),
        (
            body(circuits=encode_circuits([ghz(4)])),
            (422, "too_many_qubits", "a circuit needs 4 qubits, the limit is 3"),
        ),
    ],
)
def test_submit_enforces_the_limits(service, batch, expected):
    assert refusal(service.submit, Caller("a", "a"), batch) == expected
    assert service.store.batches() == []


def test_undecodable_circuits_are_a_bad_request(service):
    status, code, detail = refusal(service.submit, Caller("a", "a"), body(circuits="aGVsbG8="))
    assert (status, code) == (400, "bad_circuits") and detail.startswith(
        "circuits are not base64-encoded QPY"
    )


def test_a_full_queue_answers_429(service):
    service.submit(Caller("a", "a"), body("1"))
    service.submit(Caller("a", "a"), body("2"))
    assert refusal(service.submit, Caller("a", "a"), body("3")) == (
        429,
        "queue_full",
        "queue is full: 2 batches waiting, limit 2; retry later",
    )


def test_max_qubits_is_capped_by_the_device(physical, tmp_path):
    service = VQPUService(physical, tmp_path / "db.sqlite", limits=Limits(max_qubits=50))
    try:
        assert service.max_qubits == physical.num_qubits == 5
    finally:
        service.stop()


def test_negative_latency_is_refused(physical, tmp_path):
    with pytest.raises(InvalidParameterError) as info:
        VQPUService(physical, tmp_path / "db.sqlite", latency=-0.5)
    assert str(info.value) == "The 'latency' parameter must be >= 0 seconds. Got -0.5 instead."


def test_result_of_another_jobs_batch_is_not_found(service):
    view, _ = service.submit(Caller("a", "a"), body())
    detail = f"no batch {view['id']} for job 'b'"
    with pytest.raises(APIError) as info:
        asyncio.run(service.result("b", view["id"], 0.0))
    assert (info.value.status, info.value.detail) == (404, detail)
    assert service._waiters == {}


def test_long_poll_is_woken_when_the_batch_finishes(service):
    async def submit_and_wait():
        service.start(asyncio.get_running_loop())
        view, _ = service.submit(Caller("a", "a"), body(seed=2))
        pending = await service.result("a", view["id"], 0.0)
        loop = asyncio.get_running_loop()
        tic = loop.time()
        done = await service.result("a", view["id"], 20.0)
        return pending, done, loop.time() - tic

    pending, done, waited = asyncio.run(submit_and_wait())

    assert pending["status"] in ("queued", "running", "done")
    assert done["status"] == "done" and sum(done["counts"][0].values()) == 10
    assert waited < 10  # woken by the executor, not timed out
    [stored] = read_batches(service.store.path)
    assert stored.fetched == (2 if pending["status"] == "done" else 1)


def test_health_and_status(service):
    health = service.health()
    assert health == {
        "status": "ok",
        "backend": "aer",
        "num_qubits": 3,
        "latency": 0.0,
        "limits": {
            **dataclasses.asdict(Limits()),
            "max_shots": 100,
            "max_circuits": 2,
            "max_queue": 2,
            "max_qubits": 3,
        },
        "policy": "fifo",
        "max_wait": None,
        "quotas": {"job_seconds": None, "user_seconds": None},
        "auth": "open",
        "warnings": [],
        "maintenance": False,
        "maintenance_reason": None,
        "maintenance_since": None,
    }
    empty = service.status()
    assert {k: v for k, v in empty.items() if k != "uptime_seconds"} == {
        "queue_length": 0,
        "batches_done": 0,
        "batches_failed": 0,
        "busy_seconds": 0.0,
        "occupancy": 0.0,
    }
    assert empty["uptime_seconds"] >= 0
    service.submit(Caller("a", "a"), body())
    assert service.status()["queue_length"] == 1


def test_a_broken_token_file_answers_503(physical, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("job-a secret-a\n")
    service = VQPUService(physical, tmp_path / "db.sqlite", tokens=TokenBook(tokens))
    try:
        tokens.unlink()
        assert refusal(service.caller_of, {"authorization": "Bearer secret-a"}) == (
            503,
            "tokens_unavailable",
            "the server's token file is unusable; every token is refused until it is fixed",
        )
        assert refusal(service.caller_of, {})[0] == 401
        tokens.write_text("job-a secret-a\n")
        assert service.caller_of({"authorization": "Bearer secret-a"}).job == "job-a"
    finally:
        service.stop()


def test_utf8_tokens_and_job_names_are_decoded(physical, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_bytes("jöb sécret\n".encode())
    service = VQPUService(physical, tmp_path / "db.sqlite", tokens=TokenBook(tokens))
    try:
        as_starlette_sees_it = "sécret".encode().decode("latin-1")
        assert service.caller_of({"authorization": f"Bearer {as_starlette_sees_it}"}).job == "jöb"
    finally:
        service.stop()


@pytest.mark.parametrize(
    ("circuit", "limits", "expected"),
    [
        (ghz(2), Limits(max_clbits=1), (422, "too_many_clbits", "a circuit has 2 clbits, the limit is 1")),
        (
            ghz(3),
            Limits(max_instructions=5),
            (422, "too_many_instructions", "a circuit has 6 instructions, the limit is 5"),
        ),
    ],
)
def test_clbits_and_instructions_are_limited(physical, tmp_path, circuit, limits, expected):
    service = VQPUService(physical, tmp_path / "db.sqlite", limits=limits)
    try:
        assert (
            refusal(service.submit, Caller("a", "a"), body(circuits=encode_circuits([circuit]))) == expected
        )
    finally:
        service.stop()


def test_too_many_pending_decodes_answer_503(service):
    for _ in range(MAX_PENDING_DECODES):
        service._admission.decode_slots.acquire()
    assert refusal(service.submit, Caller("a", "a"), body()) == (
        503,
        "busy",
        f"{MAX_PENDING_DECODES} submissions are being checked already; retry later",
    )
    service._admission.decode_slots.release()
    assert service.submit(Caller("a", "a"), body())[1]


@pytest.mark.parametrize("batch_id", [0, -1, 2**63, 2**80])
def test_batch_ids_outside_sqlite_are_not_found(service, batch_id):
    with pytest.raises(APIError) as info:
        asyncio.run(service.result("a", batch_id, 0.0))
    assert (info.value.status, info.value.detail) == (404, f"no batch {batch_id} for job 'a'")


@pytest.mark.timeout(60)
def test_the_shot_limit_is_the_lower_of_the_server_s_and_the_backend_s(tmp_path):
    from backends.null import NullBackend

    backend = NullBackend(width=4, seed=1)
    for configured, applied in [(10, 10), (1_000_000, 1_000_000), (5_000_000, 1_000_000)]:
        service = VQPUService(backend, tmp_path / "db.sqlite", limits=Limits(max_shots=configured))
        try:
            assert service.max_shots == service.health()["limits"]["max_shots"] == applied
            assert service.limits.max_shots == configured  # the configuration itself is kept
            assert refusal(
                service.submit, Caller("j", "u"), body(key=f"k{configured}", shots=applied + 1)
            ) == (
                422,
                "too_many_shots",
                f"shots={applied + 1} exceeds the limit of {applied}",
            )
        finally:
            service.stop()
    assert read_batches(tmp_path / "db.sqlite") == []


@pytest.mark.timeout(60)
def test_a_backend_without_a_shot_limit_leaves_the_server_s(physical, tmp_path):
    class Unlimited:  # a QuantumBackend without max_shots, as a remote device may be
        name, num_qubits, timings = "unlimited", 5, []

        def run(self, circuits, shots, seed=None):
            return physical.run(circuits, shots, seed)

    service = VQPUService(Unlimited(), tmp_path / "db.sqlite", limits=Limits(max_shots=5_000_000))
    try:
        assert service.max_shots == 5_000_000
    finally:
        service.stop()


@pytest.mark.timeout(60)
def test_a_service_on_a_database_in_use_is_refused_and_changes_nothing(physical, tmp_path):
    db = tmp_path / "db.sqlite"
    live = VQPUService(physical, db)
    try:
        batch, _ = live.store.accept(
            job="j", user="u", key="k", payload=b"x", circuits=1, qubits=1, shots=5, seed=None, submitted=1.0
        )
        live.store.start(batch.id, 2.0)  # the live server runs batch 1
        with pytest.raises(DatabaseInUseError) as info:
            VQPUService(physical, db)
        assert str(info.value) == f"{db}: another server uses this database (its lock file {db}.lock is held)"
        running = live.store.get(batch.id)
        assert (running.status, running.runs) == ("running", 1)  # not re-queued by the second service
    finally:
        live.stop()
    VQPUService(physical, db).stop()  # free again once the first one stopped


def wait_for_status(service, batch_id, statuses, timeout=30.0):
    deadline = time.monotonic() + timeout
    while (batch := service.store.get(batch_id)).status not in statuses:
        assert time.monotonic() < deadline, f"batch {batch_id} is still {batch.status}"
        time.sleep(0.01)
    return batch


@pytest.mark.parametrize(("bound", "runs_while_held"), [(10.0, False), (0.05, True)])
def test_the_executor_waits_for_requests_up_to_its_bound(service, monkeypatch, bound, runs_while_held):
    monkeypatch.setattr(service_module, "MAX_REQUESTS_FIRST", bound)

    def executor_waits_for_the_request():
        deadline = time.monotonic() + 30.0
        while not blocked_in(service._executor._thread, "wait_idle"):
            assert time.monotonic() < deadline, "the executor did not wait for the request"
            time.sleep(0.01)

    async def hold_a_request():
        service.start(asyncio.get_running_loop())
        with service.gate.working():
            view, _ = service.submit(Caller("a", "a"), body())
            if runs_while_held:  # the bound passes: the batch starts while the request is in hand
                await asyncio.to_thread(wait_for_status, service, view["id"], ("running", "done"))
            else:  # the executor waits at the gate, with the batch queued
                await asyncio.to_thread(executor_waits_for_the_request)
            still = service.store.get(view["id"]).status
            left = time.time()
        batch = await asyncio.to_thread(wait_for_status, service, view["id"], ("done",))
        return still, left, batch

    still, left, batch = asyncio.run(hold_a_request())
    # a long bound: the batch waits for the request; a short one: the device is not starved
    assert (still == "queued") is not runs_while_held
    assert (batch.started < left) is runs_while_held


async def sleeping(service, timeout=10.0):
    """Yield to the loop until a long poll waits on its notification (a deadline, no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not service._sleepers:
        assert time.monotonic() < deadline, "no long poll started waiting"
        await asyncio.sleep(0.005)


def test_a_long_poll_is_not_counted_while_it_waits(service):
    async def poll():
        loop = asyncio.get_running_loop()
        service.gate.bind(loop)  # the executor is not started: the batch stays queued
        view, _ = service.submit(Caller("a", "a"), body())
        waiting = asyncio.ensure_future(service.result("a", view["id"], 0.5))
        await sleeping(service)  # the poll waits on its notification
        while_waiting = service.gate.busy
        timed_out = await waiting
        after_timeout = service.gate.busy
        service._executor.run_batch(view["id"])  # finish it; the notification wakes a second poll
        second = asyncio.ensure_future(service.result("a", view["id"], 20.0))
        done = await second
        return while_waiting, timed_out, after_timeout, done, service.gate.busy

    while_waiting, timed_out, after_timeout, done, after_done = asyncio.run(poll())
    assert while_waiting == 0
    assert timed_out["status"] == "queued" and after_timeout == 0
    assert done["status"] == "done" and after_done == 0
    assert service._sleepers == {}


def test_a_woken_long_poll_is_counted_from_its_notification(service):
    async def poll():
        service.gate.bind(asyncio.get_running_loop())
        view, _ = service.submit(Caller("a", "a"), body())
        waiting = asyncio.ensure_future(service.result("a", view["id"], 20.0))
        await sleeping(service)
        await asyncio.to_thread(service._executor.run_batch, view["id"])
        service._notify(view["id"])  # as the executor's on_finish does, through the loop
        counted = service.gate.busy  # before the poll has run again
        done = await waiting
        return counted, done, service.gate.busy

    counted, done, after = asyncio.run(poll())
    assert counted == 1 and done["status"] == "done" and after == 0


def test_a_job_may_have_as_many_batches_pending_as_its_shares_allow(physical, tmp_path):
    limits = dataclasses.replace(LIMITS, max_queue=100, max_batches_per_share=2)
    slow = VQPUService(physical, tmp_path / "db.sqlite", limits=limits, latency=2.0)  # batches stay pending
    try:
        one, two, other = Caller("41", "ann", "phys", 1), Caller("42", "bob", "chem", 2), Caller("43", "cy")
        for caller, allowed in ((one, 2), (two, 4), (other, 2)):
            for i in range(allowed):
                assert slow.submit(caller, body(key=f"{caller.job}-{i}"))[1]
            with pytest.raises(APIError) as refused:
                slow.submit(caller, body(key=f"{caller.job}-more"))
            assert (refused.value.status, refused.value.code) == (429, "job_busy")
            assert (
                f"job {caller.job!r} has {allowed} batches queued or running, its limit is {allowed}"
                in str(refused.value)
            )
        assert slow.submit(one, body(key="41-0"))[1] is False  # a known key is always answered
    finally:
        slow.stop()
