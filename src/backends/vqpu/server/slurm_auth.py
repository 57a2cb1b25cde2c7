"""Slurm-bound access: a request is served only for a RUNNING job of the caller that holds a vQPU.

The client sends ``Authorization: MUNGE <credential>``, a fresh credential
(:func:`backends.vqpu.munge.job_payload`: the job and this server's instance). The server:

1. decodes it with MUNGE: a forged, expired or replayed credential is refused (401), and
   a MUNGE service that cannot be reached refuses everyone (503), never admits;
2. checks the payload names this server (a credential made for another server: 401);
3. looks the job up in :class:`~backends.vqpu.server.slurm_jobs.JobTable`: not running or
   holding no vQPU resource (403); owned by another UID than the credential's (403); Slurm's
   job list too old to decide (503);
4. answers with a session ticket (:mod:`backends.vqpu.server.sessions`), bound to the job,
   the UID and the client's host, which the client sends instead of a credential until it
   expires (60 s): every request still passes step 3, so the ticket dies with the job, but
   only the first of a minute pays MUNGE's two round trips.

Why MUNGE rather than a token minted by a prolog: MUNGE is already on every Slurm node (Slurm
authenticates with it), nothing secret is stored or handed to the job, a credential proves
the caller's UID and is worth nothing once used, and revocation needs no epilog: a job that
ends leaves ``squeue`` and is refused at the next poll, also when the epilog never runs
(node failure, slurmctld restart).
"""

from __future__ import annotations

from backends.vqpu import munge
from backends.vqpu.server.errors import APIError
from backends.vqpu.server.sessions import SessionBook
from backends.vqpu.server.slurm_jobs import JobTable, SlurmUnavailableError
from backends.vqpu.server.tokens import Caller

__all__ = ["SlurmAuth"]


class SlurmAuth:
    r"""Admit MUNGE credentials of running jobs that hold the vQPU resource.

    Parameters
    ----------
    jobs : JobTable
        The running jobs holding the resource (started by the caller).
    instance : str
        This server's name in credentials (its ``/health`` ``instance``).
    socket : str, optional
        ``munged``'s socket; default ``MUNGE_SOCKET``, else libmunge's default.
    sessions : SessionBook, optional
        Session tickets (:mod:`backends.vqpu.server.sessions`): an admitted credential earns
        one, and a ticket then stands for a credential; without it every request needs one.

    Examples
    --------
    >>> jobs = JobTable(squeue=["printf", "41|41|1000|ann|phys|vqpu:2|N/A\\n"])
    >>> jobs.refresh()
    >>> auth = SlurmAuth(jobs, "qsrv:8765", socket="/no/munged/here")
    >>> try:  # MUNGE out of reach: every request is refused, none admitted
    ...     auth.caller_of("MUNGE:AwQ...:")
    ... except APIError as error:
    ...     print(error.status, error.code)
    503 auth_unavailable
    """

    def __init__(
        self, jobs: JobTable, instance: str, *, socket: str | None = None, sessions: SessionBook | None = None
    ) -> None:
        self.jobs = jobs
        self.instance = instance
        self.socket = socket
        self.sessions = sessions

    def caller_of(self, credential: str) -> Caller:
        """The job and user a credential proves, after every check above.

        Raises
        ------
        APIError
            401 (bad credential), 403 (the job may not use the vQPU), 503 (MUNGE or Slurm
            cannot be reached: fail closed).

        Examples
        --------
        A credential of job 41's owner, made inside the job for this server:

        >>> auth.caller_of(munge.encode(munge.job_payload("41", "qsrv:8765")))  # doctest: +SKIP
        Caller(job='41', user='ann', account='phys', shares=2)
        """
        try:
            decoded = munge.decode(credential, socket=self.socket)
        except munge.MungeError as exc:
            if exc.fault is None:
                raise APIError(503, "auth_unavailable", f"credentials cannot be checked now: {exc}") from None
            raise APIError(401, "unauthorized", f"{exc.fault} MUNGE credential") from None
        named = munge.parse_job_payload(decoded.payload)
        if named is None:
            raise APIError(401, "unauthorized", "the credential does not name a Slurm job and a vQPU server")
        job_id, server = named
        if server != self.instance:
            raise APIError(
                401, "unauthorized", f"the credential was made for server {server!r}, not this one"
            )
        return self._job_caller(job_id, decoded.uid)

    def session_caller(self, ticket: str, host: str | None) -> Caller:
        r"""The job and user of a session ticket sent from ``host``, after the job checks above.

        A ticket of a job that has ended is forgotten, so it stays refused.

        Raises
        ------
        APIError
            401 with the MUNGE challenge (unknown, expired or other host's ticket: the
            client sends a credential again), 403 and 503 as :meth:`caller_of`.

        Examples
        --------
        >>> jobs = JobTable(squeue=["printf", "41|41|1000|ann|phys|vqpu:2|N/A\\n"]); jobs.refresh()
        >>> auth = SlurmAuth(jobs, "qsrv:8765", sessions=SessionBook())
        >>> ticket = auth.sessions.issue("41", 1000, "10.0.0.7")
        >>> auth.session_caller(ticket, "10.0.0.7")
        Caller(job='41', user='ann', account='phys', shares=2)
        >>> try:
        ...     auth.session_caller(ticket, "10.0.0.8")
        ... except APIError as error:
        ...     print(error.status, error.code)
        401 unauthorized
        """
        sessions = self.sessions
        if sessions is None or host is None or (session := sessions.find(ticket, host)) is None:
            detail = "unknown or expired session ticket: send a fresh MUNGE credential"
            raise APIError(401, "unauthorized", detail, headers=self.challenge)
        try:
            return self._job_caller(session.job_id, session.uid)
        except APIError as refusal:
            if refusal.status == 403:
                sessions.drop(ticket)
            raise

    def open_session(self, caller: Caller, host: str | None) -> str | None:
        r"""A ticket for ``caller`` (just admitted by a credential) from ``host``, if tickets are on.

        Examples
        --------
        >>> jobs = JobTable(squeue=["printf", "41|41|1000|ann|phys|vqpu:2|N/A\\n"]); jobs.refresh()
        >>> auth = SlurmAuth(jobs, "qsrv:8765", sessions=SessionBook())
        >>> ticket = auth.open_session(Caller("41", "ann", "phys", 2), "10.0.0.7")
        >>> auth.session_caller(ticket, "10.0.0.7").job
        '41'
        >>> SlurmAuth(jobs, "qsrv:8765").open_session(Caller("41", "ann"), "10.0.0.7") is None
        True
        """
        if self.sessions is None or host is None:
            return None
        try:
            job = self.jobs.lookup(caller.job)
        except SlurmUnavailableError:  # the credential was admitted a moment ago: no ticket this time
            return None
        return None if job is None else self.sessions.issue(job.job_id, job.uid, host)

    @property
    def challenge(self) -> dict[str, str]:
        r"""The ``WWW-Authenticate`` header of a 401: a MUNGE credential made for this server.

        Examples
        --------
        >>> jobs = JobTable(squeue=["printf", "41|41|1000|ann|phys|vqpu:2|N/A\\n"]); jobs.refresh()
        >>> SlurmAuth(jobs, "qsrv:8765").challenge
        {'WWW-Authenticate': 'MUNGE server="qsrv:8765"'}
        """
        return {"WWW-Authenticate": f'MUNGE server="{self.instance}"'}

    def _job_caller(self, job_id: str, uid: int) -> Caller:
        """The caller of running job ``job_id`` holding the resource and owned by ``uid``; else 403/503."""
        try:
            job = self.jobs.lookup(job_id)
        except SlurmUnavailableError as exc:
            raise APIError(503, "slurm_unavailable", str(exc)) from None
        if job is None:
            detail = f"job {job_id} is not running or holds no {self.jobs.resource} licence or GRES"
            raise APIError(403, "forbidden", detail)
        if job.uid != uid:
            raise APIError(403, "forbidden", f"job {job_id} does not belong to uid {uid}")
        return Caller(job.job_id, job.user, job.account, job.shares)
