"""Maintenance: the executor pauses, clients get 503 + Retry-After and wait, nothing accepted is lost.

The admin's flag file, a device that stops answering (a backend that fails, then
recovers), a restart in maintenance, the client's ``Retry-After``, and Slurm's hold
through a fake ``scontrol``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
import threading
import time

import httpx
import pytest
from vqpu_helpers import blocked_in, ghz, serve

from backends.errors import BackendConnectionError
from backends.null import NullBackend
from backends.vqpu import cli
from backends.vqpu.api import VQPUSession
from backends.vqpu.server.admission import BatchIn
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.executor import BatchExecutor
from backends.vqpu.server.maintenance import (
    Maintenance,
    clear_flag,
    flag_path,
    probe_device,
    read_flag,
    set_flag,
)
from backends.vqpu.server.service import VQPUService
from backends.vqpu.server.slurm_hold import SlurmHold
from backends.vqpu.server.store import Store
from backends.vqpu.server.tokens import Caller
from backends.vqpu.wire import encode_circuits

PAYLOAD = encode_circuits([ghz(2)])
DEADLINE = 30.0


def eventually(condition, what, timeout=DEADLINE):
    """Wait until ``condition()`` is true (polling every 10 ms), failing after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.01)


class Device:
    """A null device that can go down: while ``down`` is set every call raises a connection error."""

    name, num_qubits = "device", 5

    def __init__(self):
        self.down = threading.Event()
        self.calls = 0
        self._null = NullBackend(width=5, seed=3)

    def run(self, circuits, shots, seed=None):
        self.calls += 1
        if self.down.is_set():
            raise BackendConnectionError("the station does not answer")
        return self._null.run(circuits, shots, seed=seed)


class Gate:
    """A null device whose calls block until ``release`` is set (so a batch can be held running)."""

    name, num_qubits = "gate", 5

    def __init__(self):
        self.running, self.release = threading.Event(), threading.Event()
        self._null = NullBackend(width=5, seed=3)

    def run(self, circuits, shots, seed=None):
        self.running.set()
        assert self.release.wait(DEADLINE)
        return self._null.run(circuits, shots, seed=seed)


def accept(store, key, shots=10):
    batch, _ = store.accept(
        job="j", user="u", key=key, payload=PAYLOAD.encode(), circuits=1, qubits=2,
        shots=shots, seed=1, submitted=time.time(),
    )  # fmt: skip
    return batch


def paused(executor, store, batch_id):
    """The executor waits in its loop while the batch is queued: it starts no batch."""
    return blocked_in(executor._thread, "_loop") and store.get(batch_id).status == "queued"


# -- the flag file and the admin command ------------------------------------------------------------
def test_flag_written_by_the_command_is_read_by_the_server_and_removed(tmp_path, capsys):
    db = tmp_path / "vqpu.sqlite"
    assert cli.main(["maintenance", "on", "--db", str(db), "--reason", "cryostat warm-up"]) == 0
    assert "maintenance on since" in capsys.readouterr().out
    flag = flag_path(db)
    assert json.loads(flag.read_text())["reason"] == "cryostat warm-up"
    assert stat.S_IMODE(flag.stat().st_mode) == 0o644
    maintenance = Maintenance(flag=flag)
    maintenance.check()
    assert maintenance.state()["maintenance_reason"] == "admin: cryostat warm-up"
    assert cli.main(["maintenance", "off", "--db", str(db)]) == 0
    assert not flag.exists()
    maintenance.check()
    assert not maintenance.active
    assert cli.main(["maintenance", "status", "--db", str(db)]) == 0
    assert "no maintenance by the administrator" in capsys.readouterr().out.splitlines()[-1]


def test_a_flag_of_another_user_is_ignored(tmp_path, caplog):
    flag = tmp_path / "vqpu.sqlite.maintenance"
    set_flag(flag, "a prank")
    os.chown(flag, 65534, 65534)  # nobody's (the tests run as root)
    assert read_flag(flag) is None
    assert "owned by uid 65534" in caplog.text


# -- the executor -------------------------------------------------------------------------------------
def test_executor_starts_no_batch_in_maintenance_and_resumes_after(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    flag = flag_path(tmp_path / "db.sqlite")
    set_flag(flag, "test")
    maintenance = Maintenance(flag=flag)
    maintenance.check()
    finished = threading.Event()
    device = Device()
    executor = BatchExecutor(device, store, maintenance=maintenance, on_finish=lambda _: finished.set())
    try:
        executor.start()
        batch = accept(store, "k1")
        executor.enqueue(batch)
        eventually(lambda: paused(executor, store, batch.id), "the executor paused")
        assert device.calls == 0
        clear_flag(flag)
        maintenance.check()  # its end wakes the executor
        assert finished.wait(DEADLINE)
        assert store.get(batch.id).status == "done"
    finally:
        executor.stop()
        store.close()


def test_a_batch_error_that_is_not_the_device_still_fails_the_batch(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    maintenance = Maintenance()
    try:
        batch, _ = store.accept(
            job="j", user="u", key="bad", payload=b"not QPY", circuits=1, qubits=1, shots=1,
            seed=None, submitted=0.0,
        )  # fmt: skip
        BatchExecutor(Device(), store, maintenance=maintenance).run_batch(batch.id)
        assert store.get(batch.id).status == "failed"
        assert not maintenance.active
    finally:
        store.close()


# -- the service over HTTP ------------------------------------------------------------------------------
def test_503_with_retry_after_and_health_in_maintenance(tmp_path):
    db = tmp_path / "db.sqlite"
    maintenance = Maintenance(flag=flag_path(db), poll=0.05, retry_after=2)
    with serve(NullBackend(width=5, seed=1), db, maintenance=maintenance) as (service, url):
        session = VQPUSession(url, job="ann")
        done = session.execute(PAYLOAD, 10, seed=1)
        set_flag(flag_path(db), "firmware update", now=1.5e9)
        eventually(lambda: maintenance.active, "maintenance noticed")
        for query in ("", "?wait=1e1"):  # the fast path and FastAPI's route
            body = {"key": f"k{query}", "circuits": PAYLOAD, "shots": 10, "seed": None}
            answer = httpx.post(f"{url}/batches{query}", json=body, headers={"X-VQPU-Job": "ann"})
            assert (answer.status_code, answer.headers["retry-after"]) == (503, "2")
            assert answer.json()["error"] == "maintenance"
            assert "firmware update" in answer.json()["detail"]
        queued = accept(service.store, "queued-by-hand")  # stored, not enqueued: it stays queued
        unfinished = httpx.get(f"{url}/batches/{queued.id}", headers={"X-VQPU-Job": "j"})
        assert (unfinished.status_code, unfinished.headers["retry-after"]) == (503, "2")
        finished = httpx.get(f"{url}/batches/{done['id']}", headers={"X-VQPU-Job": "ann"})
        assert finished.status_code == 200 and finished.json()["counts"] == done["counts"]
        health = httpx.get(f"{url}/health").json()
        assert (health["maintenance"], health["maintenance_since"]) == (True, 1.5e9)
        assert health["maintenance_reason"] == "admin: firmware update"
        clear_flag(flag_path(db))
        eventually(lambda: not httpx.get(f"{url}/health").json()["maintenance"], "maintenance ended")
        assert httpx.get(f"{url}/health").json()["maintenance_reason"] is None


def test_a_client_waits_out_a_maintenance_shorter_than_its_deadline(tmp_path):
    db = tmp_path / "db.sqlite"
    maintenance = Maintenance(flag=flag_path(db), poll=0.05, retry_after=1)
    refused = threading.Event()
    with serve(NullBackend(width=5, seed=1), db, maintenance=maintenance) as (service, url):
        set_flag(flag_path(db), "short")
        eventually(lambda: maintenance.active, "maintenance noticed")
        refusal = maintenance.refusal
        maintenance.refusal = lambda: refused.set() or refusal()  # type: ignore[method-assign]
        outcome = {}
        client = threading.Thread(
            target=lambda: outcome.update(VQPUSession(url, job="bob", deadline=DEADLINE).execute(PAYLOAD, 10))
        )
        client.start()
        assert refused.wait(DEADLINE)
        assert client.is_alive()  # waiting, not failed
        clear_flag(flag_path(db))
        client.join(DEADLINE)
        assert outcome["status"] == "done" and sum(outcome["counts"][0].values()) == 10


def test_retry_after_is_slept_and_capped_by_the_deadline(monkeypatch):
    slept = []
    monkeypatch.setattr("backends.vqpu.api.time.sleep", slept.append)
    answers = iter([(503, "3"), (503, "3"), (200, None)])

    def handler(request):
        status, after = next(answers)
        if status == 200:
            return httpx.Response(200, json={"status": "ok"})
        return httpx.Response(
            503, headers={"Retry-After": after}, json={"error": "maintenance", "detail": "m"}
        )

    session = VQPUSession("http://vqpu.test", deadline=60.0)
    session._http = httpx.Client(base_url=session.url, transport=httpx.MockTransport(handler))
    assert session.request("GET", "/health") == {"status": "ok"}
    assert slept == [3.0, 3.0]

    slept.clear()
    clock = [0.0]  # the client's clock, moved on by its sleeps only
    monkeypatch.setattr("backends.vqpu.api.time.monotonic", lambda: clock[0])
    monkeypatch.setattr(
        "backends.vqpu.api.time.sleep", lambda s: (slept.append(s), clock.append(clock.pop() + s))
    )
    forever = httpx.MockTransport(
        lambda request: httpx.Response(503, headers={"Retry-After": "100"}, json={"detail": "down"})
    )
    session._http = httpx.Client(base_url=session.url, transport=forever)
    session.deadline = 5.0
    with pytest.raises(BackendConnectionError, match="failed for 5 s: 503: down"):
        session.request("GET", "/health")
    assert slept == [5.0]  # up to the deadline (then one last try), never the 100 s asked


# -- nothing lost across a restart ----------------------------------------------------------------------
def test_batches_accepted_before_maintenance_survive_a_restart_in_it(tmp_path):
    db = tmp_path / "db.sqlite"
    flag = flag_path(db)
    device = Gate()
    service = VQPUService(device, db, maintenance=Maintenance(flag=flag))

    async def two_batches():
        service.start(asyncio.get_running_loop())
        first, _ = service.submit(Caller("j", "u"), BatchIn(key="k1", circuits=PAYLOAD, shots=10))
        second, _ = service.submit(Caller("j", "u"), BatchIn(key="k2", circuits=PAYLOAD, shots=10))
        assert await asyncio.to_thread(device.running.wait, DEADLINE)  # the first one runs
        set_flag(flag, "during a batch")
        service.maintenance.check()
        device.release.set()  # the running batch finishes; the next does not start
        finished = lambda: service.store.get(first["id"]).status == "done"  # noqa: E731
        await asyncio.to_thread(eventually, finished, "the running batch finished")
        return (await service.result("j", first["id"], wait=0.0)), second["id"]

    try:
        first, second = asyncio.run(two_batches())
        assert first["status"] == "done"
        eventually(lambda: paused(service._executor, service.store, second), "the executor paused")
        with pytest.raises(APIError) as refused:
            service.submit(Caller("j", "u"), BatchIn(key="k3", circuits=PAYLOAD, shots=10))
        assert refused.value.status == 503
    finally:
        service.stop()

    service = VQPUService(NullBackend(width=5, seed=1), db, maintenance=Maintenance(flag=flag))
    try:

        async def restarted():
            service.start(asyncio.get_running_loop())
            eventually(lambda: paused(service._executor, service.store, second), "paused after restart")
            assert service.health()["maintenance"]
            clear_flag(flag)
            service.maintenance.check()
            return await service.result("j", second, wait=DEADLINE)

        done = asyncio.run(restarted())
        assert done["status"] == "done" and sum(done["counts"][0].values()) == 10
        assert service.store.status_counts() == {"done": 2}
    finally:
        service.stop()


# -- the device stops answering -------------------------------------------------------------------------
def test_a_device_that_stops_answering_puts_the_server_in_maintenance_until_a_probe_answers(tmp_path):
    device = Device()
    device.down.set()
    maintenance = Maintenance(probe=probe_device(device), probe_interval=0.05, poll=0.05)
    service = VQPUService(device, tmp_path / "db.sqlite", maintenance=maintenance)

    async def through_an_outage():
        service.start(asyncio.get_running_loop())
        batch, _ = service.submit(Caller("j", "u"), BatchIn(key="k1", circuits=PAYLOAD, shots=10))
        await asyncio.to_thread(eventually, lambda: maintenance.active, "maintenance entered")
        back = service.store.get(batch["id"])
        assert (back.status, back.runs) == ("queued", 1)  # back in the queue, not failed
        health = service.health()
        assert (
            health["maintenance"]
            and "BackendConnectionError: the station does not answer" in (health["maintenance_reason"])
        )
        with pytest.raises(APIError) as refused:
            await service.result("j", batch["id"], wait=0.0)
        assert refused.value.headers == {"Retry-After": "5"}
        probes = device.calls
        await asyncio.to_thread(eventually, lambda: device.calls >= probes + 2, "probed again and again")
        assert maintenance.active
        device.down.clear()  # the device answers again: the next probe ends the maintenance
        await asyncio.to_thread(eventually, lambda: not maintenance.active, "maintenance left")
        return await service.result("j", batch["id"], wait=DEADLINE)

    try:
        done = asyncio.run(through_an_outage())
        assert done["status"] == "done" and sum(done["counts"][0].values()) == 10
        assert service.store.get(done["id"]).runs == 2
        assert service.ledger.jobs["j"].batches == 1  # charged once, for the run that worked
    finally:
        service.stop()


# -- Slurm's hold ---------------------------------------------------------------------------------------
FAKE_SCONTROL = """#!/bin/bash
echo "$*" >> "{log}"
case "$1 $2" in
  "show license") echo "LicenseName=vqpu Total=4 Used=1 Free=3 Reserved=0 Remote=no" ;;
  "show reservation") [ -f "{state}" ] || {{ echo "Reservation $3 not found"; exit 1; }} ;;
  "create reservation") [ -f "{fail}" ] && exit 1; touch "{state}" ;;
  "delete ReservationName=vqpu-maintenance") rm "{state}" ;;
esac
"""


@pytest.fixture
def scontrol(tmp_path):
    """A fake ``scontrol``: (command, its log, the reservation's file, a file that makes create fail)."""
    paths = {name: tmp_path / name for name in ("log", "state", "fail")}
    script = tmp_path / "scontrol"
    script.write_text(FAKE_SCONTROL.format(**paths))
    script.chmod(0o755)
    return [str(script)], paths["log"], paths["state"], paths["fail"]


def test_slurm_hold_is_taken_in_maintenance_released_after_and_retried_on_failure(tmp_path, scontrol):
    command, log, reservation, fail = scontrol
    reservation.touch()  # left by a server that died in maintenance
    flag = flag_path(tmp_path / "db.sqlite")
    maintenance = Maintenance(flag=flag, hold=SlurmHold("vqpu", scontrol=command))
    maintenance.check()  # not in maintenance: the leftover reservation goes
    assert not reservation.exists()
    fail.touch()
    set_flag(flag, "test")
    maintenance.check()  # scontrol fails: retried at the next pass
    assert not reservation.exists()
    fail.unlink()
    maintenance.check()
    assert reservation.exists()
    assert (
        "create reservation ReservationName=vqpu-maintenance StartTime=now Duration=infinite Users=root "
        "Flags=ANY_NODES Licenses=vqpu:4"
    ) in log.read_text().splitlines()
    maintenance.stop()  # the admin's flag outlives the server: the hold stays
    assert reservation.exists()
    clear_flag(flag)
    maintenance.check()
    assert not reservation.exists()


def test_a_device_fault_hold_is_released_when_the_server_stops(tmp_path, scontrol):
    command, _, reservation, _ = scontrol
    maintenance = Maintenance(hold=SlurmHold(scontrol=command), poll=0.05).start()
    with contextlib.ExitStack() as stack:
        stack.callback(maintenance.stop)
        maintenance.device_failed("ConnectionError: refused")
        eventually(reservation.exists, "the licences held")
    assert not reservation.exists()
