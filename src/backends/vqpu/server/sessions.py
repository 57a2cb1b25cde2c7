"""Session tickets: one MUNGE credential per client and minute, not one per request.

A Slurm-bound server (:mod:`backends.vqpu.server.slurm_auth`) admits a request that carries
a fresh MUNGE credential of a running job holding the vQPU. Decoding one costs a round trip
to ``munged`` at each end, which at 64 busy client processes is most of a batch's server
time. So the server answers an admitted credential with a ticket (``X-VQPU-Session``), and
the client sends ``Authorization: VQPU-Session <ticket>`` until it is refused, then a fresh
credential again. A ticket is

- bound to the job and UID the credential proved and to the client's address: sent from
  another host it is unknown (401);
- checked against Slurm's job table on every request, as a credential is: it dies with the
  job, within the table's bound, and is then forgotten;
- short-lived (``ttl`` seconds from issue, 60 by default), random (256 bits), held only in
  the client's memory and the server's, and never written anywhere, so what TLS protects
  on the wire nobody can copy.

:class:`SessionBook` holds the tickets; it is pure bookkeeping with an injectable clock.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["DEFAULT_TTL", "Session", "SessionBook"]

#: Seconds a ticket is valid from its issue (``serve --session-ttl``).
DEFAULT_TTL = 60.0


class Session(NamedTuple):
    """What a ticket stands for: a job, the UID that proved it, the client's host, an expiry.

    Examples
    --------
    >>> Session("41", 1000, "10.0.0.7", 60.0).job_id
    '41'
    """

    job_id: str
    uid: int
    host: str
    expires: float


class SessionBook:
    """The tickets a server has issued, each bound to a job, a UID and a host, for ``ttl`` seconds.

    Parameters
    ----------
    ttl : float
        Seconds a ticket is valid from its issue (> 0).
    capacity : int
        Most tickets held; past it the expired ones go, then the oldest (whose client sends a
        credential again), so a flood of credentials cannot grow the server's memory.
    clock : callable
        Seconds, monotonic; ``time.monotonic`` by default.

    Examples
    --------
    >>> now = [0.0]
    >>> book = SessionBook(ttl=60.0, clock=lambda: now[0])
    >>> ticket = book.issue("41", 1000, "10.0.0.7")
    >>> book.find(ticket, "10.0.0.7").job_id, book.find(ticket, "10.0.0.8")
    ('41', None)
    >>> now[0] = 60.0; book.find(ticket, "10.0.0.7")  # expired
    """

    def __init__(
        self, ttl: float = DEFAULT_TTL, *, capacity: int = 65536, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not ttl > 0:
            raise ValueError(f"ttl must be positive seconds, got {ttl!r}")
        self.ttl = ttl
        self.capacity = capacity
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Tickets held (expired ones included until they are next looked at or purged).

        Examples
        --------
        >>> book = SessionBook(); _ = book.issue("41", 1000, "::1"); len(book)
        1
        """
        return len(self._sessions)

    def issue(self, job_id: str, uid: int, host: str) -> str:
        """A new ticket for ``job_id``, proved by ``uid``, usable from ``host`` for ``ttl`` seconds.

        Examples
        --------
        >>> book = SessionBook()
        >>> first, second = book.issue("41", 1000, "::1"), book.issue("41", 1000, "::1")
        >>> first != second, len(first) >= 43
        (True, True)
        """
        ticket = secrets.token_urlsafe(32)
        with self._lock:
            if len(self._sessions) >= self.capacity:
                self._make_room()
            self._sessions[ticket] = Session(job_id, uid, host, self.clock() + self.ttl)
        return ticket

    def find(self, ticket: str, host: str) -> Session | None:
        """The session of ``ticket`` sent from ``host``; ``None`` if unknown, expired or from elsewhere.

        An expired ticket is forgotten. A ticket sent from another host is refused but kept:
        its own client may still use it.

        Examples
        --------
        >>> book = SessionBook()
        >>> book.find("guess", "::1") is None
        True
        """
        session = self._sessions.get(ticket)
        if session is None or session.host != host:
            return None
        if self.clock() >= session.expires:
            self.drop(ticket)
            return None
        return session

    def drop(self, ticket: str) -> None:
        """Forget ``ticket`` (its job has ended, or it has expired); unknown tickets are ignored.

        Examples
        --------
        >>> book = SessionBook(); ticket = book.issue("41", 1000, "::1")
        >>> book.drop(ticket); book.drop(ticket); book.find(ticket, "::1") is None
        True
        """
        with self._lock:
            self._sessions.pop(ticket, None)

    def _make_room(self) -> None:
        """Under the lock: forget the expired tickets, then the oldest until one fits."""
        now = self.clock()
        for ticket in [t for t, session in self._sessions.items() if now >= session.expires]:
            del self._sessions[ticket]
        while len(self._sessions) >= self.capacity:
            del self._sessions[next(iter(self._sessions))]
