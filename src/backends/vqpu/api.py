"""HTTP session with a vQPU server: submit, long-poll, retry (no qiskit needed).

Connection errors and 5xx answers are retried with exponential backoff until a
deadline, or after the ``Retry-After`` seconds a 503 names (a server in maintenance),
so a job waits out a maintenance shorter than its deadline; a submission is always
retried with the same idempotency key, so a batch runs once however often it is sent.
4xx answers are not retried: they raise :class:`VQPURejectedError` carrying the
server's message, or its subclass :class:`QuotaExceededError` when the job or its user
has used its quota.
"""

from __future__ import annotations

import os
import re
import ssl
import time
import uuid
from collections.abc import Generator
from typing import Any

import httpx

from backends.errors import BackendConnectionError, BackendError, InvalidParameterError
from backends.vqpu import munge

__all__ = ["QuotaExceededError", "VQPURejectedError", "VQPUSession"]


class VQPURejectedError(BackendError):
    """The server refused a request (4xx); ``status`` and ``code`` say why.

    Examples
    --------
    >>> error = VQPURejectedError(413, "payload_too_large", "body of 9 MiB, limit 8 MiB")
    >>> error.status, error.code
    (413, 'payload_too_large')
    >>> str(error)
    'vQPU server refused the request (413 payload_too_large): body of 9 MiB, limit 8 MiB'
    """

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(f"vQPU server refused the request ({status} {code}): {detail}")
        self.status, self.code, self.detail = status, code, detail


class QuotaExceededError(VQPURejectedError):
    """The job or its user has used its quota of quantum seconds (403 ``quota_exceeded``).

    Examples
    --------
    >>> error = QuotaExceededError(403, "quota_exceeded", "job 'j' used 12 quantum seconds")
    >>> isinstance(error, VQPURejectedError), error.detail
    (True, "job 'j' used 12 quantum seconds")
    """


class VQPUSession:
    """A client session with one vQPU server.

    Parameters
    ----------
    url : str
        Server address, e.g. ``http://127.0.0.1:8765``.
    token : str, optional
        Job token; default the environment variable ``VQPU_TOKEN`` (none: open mode).
    job : str, optional
        Job label sent as ``X-VQPU-Job`` (used by servers in open mode); default
        ``SLURM_JOB_ID`` or ``<host>-<pid>``.
    timeout : float
        Seconds allowed for one HTTP request (long polls add their wait).
    deadline : float
        Seconds of retrying before a request gives up with :class:`BackendConnectionError`.
    backoff : float
        First retry delay in seconds, doubled after every failure up to 2 s.
    poll : float
        Long-poll length in seconds while waiting for a result.
    ca : str or path, optional
        CA bundle (PEM) that signs the server's certificate, for an ``https://`` server
        with a private CA; default the environment variable ``VQPU_CA``, else the system's
        trust store. A certificate that cannot be verified is refused at once
        (:class:`~backends.errors.BackendConnectionError`, nothing is sent), never retried
        or ignored.

    Attributes
    ----------
    server_seconds : float or None
        Seconds the server spent on the last answered request (its ``Server-Timing``
        header), None before the first answer or from a server that sends none. A
        round trip minus this is the time spent in the network and the client.

    Examples
    --------
    Making a session sends nothing; the first request does:

    >>> session = VQPUSession("http://127.0.0.1:8765/", token="tok-a", job="job-a", deadline=5.0)
    >>> session.url, session.deadline
    ('http://127.0.0.1:8765', 5.0)
    >>> session.health()["num_qubits"]  # doctest: +SKIP
    20
    >>> session.close()
    >>> VQPUSession("127.0.0.1:8765")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: The 'url' parameter must start with http:// or https://...
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        job: str | None = None,
        timeout: float = 30.0,
        deadline: float = 120.0,
        backoff: float = 0.05,
        poll: float = 20.0,
        ca: str | os.PathLike[str] | None = None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise InvalidParameterError(
                f"The 'url' parameter must start with http:// or https://. Got {url!r} instead."
            )
        self.url = url.rstrip("/")
        self.timeout, self.deadline, self.backoff, self.poll = timeout, deadline, backoff, poll
        token = token if token is not None else os.environ.get("VQPU_TOKEN")
        job = job or os.environ.get("SLURM_JOB_ID") or f"{os.uname().nodename}-{os.getpid()}"
        headers = {"X-VQPU-Job": job}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(
            base_url=self.url, headers=headers, timeout=timeout, verify=_tls_context(ca)
        )
        self.server_seconds: float | None = None

    def authenticate_as_job(self, server: str, job: str | None = None) -> None:
        """Send a fresh MUNGE credential naming ``job`` and ``server`` with every request.

        A session does this by itself when a Slurm-bound server challenges it (401 with
        ``WWW-Authenticate: MUNGE server="..."``), so no entry point needs to know:
        no token is handed around; each request proves the caller's UID through MUNGE,
        and the server checks that this UID runs ``job``, RUNNING, holding the vQPU
        resource. A credential decodes once and names one server, so one copied off the
        wire is refused.

        Parameters
        ----------
        server : str
            The server's name from its challenge (its ``--instance``).
        job : str, optional
            The Slurm job id; default ``SLURM_JOB_ID``.

        Raises
        ------
        InvalidParameterError
            Outside a Slurm job (no ``SLURM_JOB_ID``).

        Examples
        --------
        >>> session = VQPUSession("https://qsrv:8765")
        >>> session.authenticate_as_job("qsrv:8765", job="42")  # each request then carries a credential
        >>> session.close()
        """
        job = job or os.environ.get("SLURM_JOB_ID")
        if not job:  # outside a Slurm job
            raise InvalidParameterError(
                f"vQPU server {self.url} admits Slurm jobs only (run inside a job that holds the vqpu "
                "licence or GRES); SLURM_JOB_ID is not set"
            )
        self._http.auth = _MungeAuth(munge.job_payload(job, server))

    def close(self) -> None:
        """Close the connection pool; safe to call twice.

        Examples
        --------
        >>> with VQPUSession("http://127.0.0.1:8765") as session:  # closed on leaving
        ...     pass
        >>> session.close()
        """
        self._http.close()

    def __enter__(self) -> VQPUSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """Send one request, retrying connection errors and 5xx answers until the deadline.

        A 5xx answer with ``Retry-After: S`` (a server in maintenance) is retried after
        ``S`` seconds (at most until the deadline, where it is tried once more), others
        after an exponential backoff.

        Raises
        ------
        VQPURejectedError
            On a 4xx answer.
        BackendConnectionError
            When the server stays unreachable or failing until the deadline.

        Examples
        --------
        >>> import socket
        >>> with socket.socket() as probe:  # a free port: nothing listens there
        ...     probe.bind(("127.0.0.1", 0))
        ...     port = probe.getsockname()[1]
        >>> session = VQPUSession(f"http://127.0.0.1:{port}", deadline=0.0)
        >>> session.request("GET", "/health")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backends.errors.BackendConnectionError: vQPU server http://127.0.0.1:... failed for 0 s: ...
        >>> session.close()
        """
        give_up = time.monotonic() + self.deadline
        delay = self.backoff
        while True:
            retry_after: float | None = None
            try:
                response = self._http.request(method, path, **kwargs)
            except httpx.TransportError as exc:
                _refuse_unverified(exc, self.url)
                problem = f"{type(exc).__name__}: {exc}"
            else:
                self.server_seconds = _server_seconds(response.headers.get("server-timing", ""))
                if response.status_code < 400:
                    return response.json()
                server = _munge_challenge(response) if self._http.auth is None else None
                if server is not None:  # a Slurm-bound server: answer with a credential, at once
                    self.authenticate_as_job(server)
                    continue
                body = _json_or_text(response)
                if response.status_code < 500:
                    code = body.get("error", "error")
                    rejected = QuotaExceededError if code == "quota_exceeded" else VQPURejectedError
                    raise rejected(response.status_code, code, body.get("detail", ""))
                problem = f"{response.status_code}: {body.get('detail', '')}"
                retry_after = _retry_after(response.headers.get("retry-after", ""))
            now = time.monotonic()
            if now >= give_up or (retry_after is None and now + delay > give_up):
                raise BackendConnectionError(
                    f"vQPU server {self.url} failed for {self.deadline:.0f} s: {problem}"
                )
            # the server says when (maintenance): that long, up to the deadline; else the backoff
            time.sleep(delay if retry_after is None else min(retry_after, give_up - now))
            delay = delay if retry_after is not None else min(2 * delay, 2.0)

    def health(self) -> dict[str, Any]:
        """``GET /health``: backend name, ``num_qubits`` and limits.

        Examples
        --------
        >>> session = VQPUSession("http://127.0.0.1:8765")
        >>> session.health()  # doctest: +SKIP
        {'backend': 'aer', 'num_qubits': 20, 'limits': {'max_circuits': 1000, ...}, ...}
        >>> session.close()
        """
        return self.request("GET", "/health")

    def status(self) -> dict[str, Any]:
        """``GET /status``: queue length, busy seconds, occupancy, batches done.

        Examples
        --------
        >>> session = VQPUSession("http://127.0.0.1:8765")
        >>> session.status()["queue_length"]  # doctest: +SKIP
        0
        >>> session.close()
        """
        return self.request("GET", "/status")

    def submit(
        self, circuits: str, shots: int, seed: int | None = None, key: str | None = None
    ) -> dict[str, Any]:
        """Submit base64 QPY ``circuits``; return the accepted batch (``id``, ``status``, ``submitted``).

        The same ``key`` sent again returns the batch already accepted, so a retried
        submission runs once.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends.vqpu.wire import encode_circuits
        >>> circuit = QuantumCircuit(1, 1); _ = circuit.measure(0, 0)
        >>> session = VQPUSession("http://127.0.0.1:8765")
        >>> session.submit(encode_circuits([circuit]), shots=100, key="k1")["status"]  # doctest: +SKIP
        'queued'
        >>> session.close()
        """
        body = {"key": key or uuid.uuid4().hex, "circuits": circuits, "shots": shots, "seed": seed}
        return self.request("POST", "/batches", json=body)

    def result(self, batch_id: int) -> dict[str, Any]:
        """Long-poll a batch until it is ``done`` or ``failed`` and return it.

        Examples
        --------
        >>> session = VQPUSession("http://127.0.0.1:8765")
        >>> session.result(1)["counts"]  # doctest: +SKIP
        [{'0': 100}]
        >>> session.close()
        """
        while True:
            batch = self.request(
                "GET",
                f"/batches/{batch_id}",
                params={"wait": self.poll},
                timeout=self.timeout + self.poll,
            )
            if batch["status"] in ("done", "failed"):
                return batch

    def execute(self, circuits: str, shots: int, seed: int | None = None) -> dict[str, Any]:
        """Submit a batch under a fresh idempotency key and wait for it.

        Raises
        ------
        BackendError
            If the execution failed on the server.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends.vqpu.wire import encode_circuits
        >>> circuit = QuantumCircuit(1, 1); _ = circuit.x(0); _ = circuit.measure(0, 0)
        >>> session = VQPUSession("http://127.0.0.1:8765")
        >>> session.execute(encode_circuits([circuit]), shots=100, seed=1)["counts"]  # doctest: +SKIP
        [{'1': 100}]
        >>> session.close()
        """
        body = {"key": uuid.uuid4().hex, "circuits": circuits, "shots": shots, "seed": seed}
        # submit and wait in one round trip; a server that ignores ``wait`` answers at once
        batch = self.request(
            "POST", "/batches", json=body, params={"wait": self.poll}, timeout=self.timeout + self.poll
        )
        if batch["status"] not in ("done", "failed"):
            batch = self.result(batch["id"])
        if batch["status"] == "failed":
            reason = batch["error"] or ""
            if reason.startswith("quota_exceeded: "):  # the quota ran out while the batch was queued
                raise QuotaExceededError(403, "quota_exceeded", reason.removeprefix("quota_exceeded: "))
            raise BackendError(f"vQPU batch {batch['id']} failed on the server: {reason}")
        return batch


def _retry_after(header: str) -> float | None:
    """Seconds a ``Retry-After`` header asks to wait (delta-seconds only), or None.

    >>> _retry_after("5"), _retry_after(" 0 "), _retry_after("")
    (5.0, 0.0, None)
    >>> _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") is None  # a date: the backoff decides
    True
    """
    header = header.strip()
    return float(header) if header.isdigit() and len(header) < 10 else None


def _server_seconds(header: str) -> float | None:
    """Seconds the server spent on a request, from its ``Server-Timing: app;dur=MS`` header.

    >>> _server_seconds("app;dur=1.500"), _server_seconds('db;dur=2, app;desc="a, b";dur = 4')
    (0.0015, 0.004)
    >>> _server_seconds(""), _server_seconds("app;dur=x"), _server_seconds("app;dur=-1")
    (None, None, None)
    """
    match = _APP_DURATION.search(header)
    return None if match is None else float(match.group(1)) / 1e3


#: The ``dur`` of the ``app`` metric of a ``Server-Timing`` header: a decimal number >= 0 (ms).
_APP_DURATION = re.compile(
    r'(?:^|,)\s*app\s*(?:;(?:[^,;"]|"[^"]*")*)*?;\s*dur\s*=\s*([0-9]{1,12}(?:\.[0-9]{1,12})?)\s*(?:[;,]|$)'
)


class _MungeAuth(httpx.Auth):
    """``Authorization: MUNGE <credential>``, or the session ticket the server gave for one.

    The first request carries a fresh credential; the server's answer carries a ticket
    (``X-VQPU-Session``, :mod:`backends.vqpu.server.sessions`), which the next requests send
    instead, until the server refuses it (401: expired, or sent over another route); then
    the request goes again at once with a fresh credential. The ticket lives only here.
    """

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.ticket: str | None = None

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        ticket = self.ticket
        if ticket is not None:
            request.headers["Authorization"] = f"VQPU-Session {ticket}"
            response = yield request
            if response.status_code != 401:
                return
            self.ticket = None
        request.headers["Authorization"] = f"MUNGE {munge.encode(self.payload)}"
        response = yield request
        self.ticket = response.headers.get("x-vqpu-session") or self.ticket


def _munge_challenge(response: httpx.Response) -> str | None:
    """The server named by a 401's ``WWW-Authenticate: MUNGE server="..."``, else ``None``.

    A session with a token never answers the challenge (it sends its token and is told
    why it was refused).
    """
    if response.status_code != 401 or "authorization" in response.request.headers:
        return None
    match = re.fullmatch(
        r'\s*MUNGE\s+server="([^"]{1,128})"\s*', response.headers.get("www-authenticate", "")
    )
    return match[1] if match else None


def _tls_context(ca: str | os.PathLike[str] | None) -> ssl.SSLContext:
    """The client's TLS context: the system's trust store, or the CA bundle ``ca`` / ``VQPU_CA``.

    Raises
    ------
    InvalidParameterError
        If the CA bundle cannot be read as PEM certificates.
    """
    cafile = ca if ca is not None else os.environ.get("VQPU_CA") or None
    try:
        return ssl.create_default_context(cafile=cafile)
    except (OSError, ssl.SSLError) as exc:
        source = "ca" if ca is not None else "VQPU_CA"
        raise InvalidParameterError(
            f"The {source!r} CA bundle {str(cafile)!r} cannot be read as PEM certificates: {exc}"
        ) from None


def _refuse_unverified(error: httpx.TransportError, url: str) -> None:
    """Raise :class:`BackendConnectionError` at once if ``error`` is a failed certificate check."""
    cause: BaseException | None = error
    while cause is not None and not isinstance(cause, ssl.SSLCertVerificationError):
        cause = cause.__cause__ or cause.__context__
    if cause is not None:
        raise BackendConnectionError(
            f"vQPU server {url}: its TLS certificate cannot be verified ({cause.verify_message}); "
            "give the CA that signed it with VQPU_CA or the backend's ca= option"
        ) from None


def _json_or_text(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {"detail": response.text[:200]}
    return body if isinstance(body, dict) else {"detail": str(body)}
