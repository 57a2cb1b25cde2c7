"""Session tickets: one MUNGE credential per client and minute, bound to job, UID and host.

The book alone, then a Slurm-bound server in a thread (the ``null`` device, a stand-in
``squeue``, a private ``munged``) driven by the client library as a job would drive it.
"""

from __future__ import annotations

import os

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from vqpu_helpers import ghz, serve, squeue_printing

from backends.null import NullBackend
from backends.vqpu.api import VQPURejectedError, VQPUSession
from backends.vqpu.server.sessions import SessionBook
from backends.vqpu.server.slurm_auth import SlurmAuth
from backends.vqpu.server.slurm_jobs import JobTable
from backends.vqpu.wire import encode_circuits

pytestmark = pytest.mark.timeout(120)

UID = os.getuid()
CIRCUITS = encode_circuits([ghz(2)])


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


# -- the book -------------------------------------------------------------------------------------
def test_a_ticket_names_its_job_and_uid_from_its_host_until_it_expires():
    clock = Clock()
    book = SessionBook(ttl=60.0, clock=clock)
    ticket = book.issue("41", UID, "10.0.0.7")
    assert book.find(ticket, "10.0.0.7")[:3] == ("41", UID, "10.0.0.7")
    assert book.find(ticket, "10.0.0.8") is None
    assert book.find(ticket, "10.0.0.7") is not None  # refused from elsewhere, kept for its own client
    clock.now = 59.9
    assert book.find(ticket, "10.0.0.7") is not None
    clock.now = 60.0
    assert book.find(ticket, "10.0.0.7") is None
    assert len(book) == 0  # an expired ticket is forgotten


def test_a_dropped_ticket_is_unknown():
    book = SessionBook()
    ticket = book.issue("41", UID, "::1")
    book.drop(ticket)
    assert book.find(ticket, "::1") is None


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=40))
def test_the_book_never_holds_more_than_its_capacity_and_keeps_the_newest(capacity, extra):
    book = SessionBook(capacity=capacity)
    tickets = [book.issue(str(i), UID, "::1") for i in range(capacity + extra)]
    assert len(book) == capacity
    assert [book.find(t, "::1") is not None for t in tickets[-capacity:]] == [True] * capacity


def test_expired_tickets_make_room_before_live_ones():
    clock = Clock()
    book = SessionBook(ttl=10.0, capacity=2, clock=clock)
    live = book.issue("1", UID, "::1")
    clock.now = 5.0
    newer = book.issue("2", UID, "::1")
    clock.now = 12.0  # the first has expired, the second not
    third = book.issue("3", UID, "::1")
    assert book.find(live, "::1") is None
    assert book.find(newer, "::1") is not None and book.find(third, "::1") is not None


@pytest.mark.parametrize("ttl", [0.0, -1.0, float("nan")])
def test_a_ttl_that_is_not_positive_is_refused(ttl):
    with pytest.raises(ValueError, match="ttl must be positive seconds"):
        SessionBook(ttl=ttl)


# -- a Slurm-bound server and the client ----------------------------------------------------------
@pytest.fixture
def slurm_server(tmp_path, munged, monkeypatch):
    """A server admitting job 41 (this UID, vqpu:1); the client runs as job 41 with ``munged``."""
    jobs = JobTable(squeue=squeue_printing(tmp_path, [f"41|41|{UID}|me|physics|vqpu:1|N/A"]))
    jobs.refresh()
    auth = SlurmAuth(jobs, "qsrv:1", socket=munged, sessions=SessionBook())
    monkeypatch.setenv("SLURM_JOB_ID", "41")
    monkeypatch.setenv("MUNGE_SOCKET", munged)
    with serve(NullBackend(width=4, seed=1), tmp_path / "db.sqlite", slurm=auth) as (service, url):
        with VQPUSession(url, deadline=5.0) as session:
            yield auth, url, session


def ticket_of(session: VQPUSession) -> str | None:
    return session._http.auth.ticket  # the client's ticket: held in its memory only


def test_after_one_credential_the_ticket_serves_without_munge(slurm_server, tmp_path):
    auth, _, session = slurm_server
    first = session.execute(CIRCUITS, 10, seed=1)
    ticket = ticket_of(session)
    assert ticket is not None and len(auth.sessions) == 1
    auth.socket = str(tmp_path / "no-munged")  # a credential could no longer be checked (503)...
    second = session.execute(CIRCUITS, 10, seed=2)  # ...the ticket needs none
    assert first["status"] == second["status"] == "done"
    assert ticket_of(session) == ticket


def test_a_ticket_dies_with_its_job(slurm_server, tmp_path):
    auth, _, session = slurm_server
    session.execute(CIRCUITS, 10, seed=1)
    auth.jobs.command = squeue_printing(tmp_path, [])  # job 41 has ended
    auth.jobs.refresh()
    with pytest.raises(VQPURejectedError) as refused:
        session.execute(CIRCUITS, 10, seed=2)
    assert refused.value.status == 403 and "job 41 is not running" in str(refused.value)
    assert len(auth.sessions) == 0  # forgotten: it stays refused if the job id comes back


def test_a_ticket_sent_from_another_host_is_refused(slurm_server):
    _, url, session = slurm_server
    session.health()
    headers = {"authorization": f"VQPU-Session {ticket_of(session)}"}
    elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=url, transport=elsewhere) as other, httpx.Client(base_url=url) as same:
        stolen = other.get("/health", headers=headers)
        own = same.get("/health", headers=headers)
    assert stolen.status_code == 401 and stolen.json()["error"] == "unauthorized"
    assert stolen.headers["www-authenticate"] == 'MUNGE server="qsrv:1"'
    assert own.status_code == 200


def test_a_forged_ticket_is_refused(slurm_server):
    _, url, _ = slurm_server
    with httpx.Client(base_url=url) as client:
        answer = client.get("/health", headers={"authorization": "VQPU-Session " + "A" * 43})
    assert answer.status_code == 401 and "x-vqpu-session" not in answer.headers


def test_an_expired_ticket_makes_the_client_send_a_fresh_credential(slurm_server):
    auth, _, session = slurm_server
    clock = Clock()
    auth.sessions.clock = clock
    session.health()
    ticket = ticket_of(session)
    clock.now += auth.sessions.ttl
    assert session.execute(CIRCUITS, 10, seed=1)["status"] == "done"
    assert ticket_of(session) not in (None, ticket)


def test_without_a_book_every_request_needs_a_credential(tmp_path, munged, monkeypatch):
    jobs = JobTable(squeue=squeue_printing(tmp_path, [f"41|41|{UID}|me|physics|vqpu:1|N/A"]))
    jobs.refresh()
    monkeypatch.setenv("SLURM_JOB_ID", "41")
    monkeypatch.setenv("MUNGE_SOCKET", munged)
    auth = SlurmAuth(jobs, "qsrv:1", socket=munged)
    with serve(NullBackend(width=4, seed=1), tmp_path / "db.sqlite", slurm=auth) as (_, url):
        with VQPUSession(url, deadline=1.0) as session:
            session.health()
            assert ticket_of(session) is None
            auth.socket = str(tmp_path / "no-munged")
            with pytest.raises(Exception, match="credentials cannot be checked now"):
                session.health()
