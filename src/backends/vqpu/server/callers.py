"""Who is asking: the job and user of a request, from its credential, token or job header.

A Slurm-bound server reads a MUNGE credential (:mod:`backends.vqpu.server.slurm_auth`),
a server with a token file a bearer token, and a server in open mode the job header.
"""

from __future__ import annotations

from collections.abc import Mapping

from backends.vqpu.server.errors import APIError
from backends.vqpu.server.slurm_auth import SlurmAuth
from backends.vqpu.server.tokens import Caller, TokenBook, TokensUnavailableError

__all__ = ["MAX_JOB_NAME", "caller_of"]

#: Longest job name taken from the ``X-VQPU-Job`` header in open mode.
MAX_JOB_NAME = 128


def caller_of(
    headers: Mapping[str, str],
    tokens: TokenBook | None,
    slurm: SlurmAuth | None = None,
    client: str | None = None,
) -> Caller:
    r"""Return the job and user of a request from its headers, checking its token.

    Parameters
    ----------
    headers : mapping of str to str
        Request headers, looked up by lower-case name (Starlette's ``Headers``
        ignore case); tokens and job names sent as UTF-8 bytes are decoded as such.
    tokens : TokenBook or None
        The server's tokens; None (and no ``slurm``) is open mode: the job is the
        ``X-VQPU-Job`` header (``anonymous`` without it), billed as its own user.
    slurm : SlurmAuth, optional
        Slurm-bound access: only ``Authorization: MUNGE <credential>`` of a running job
        holding the vQPU resource is admitted; a request without one gets 401 with
        ``WWW-Authenticate: MUNGE server="<instance>"``, which the client answers with a
        credential made for that server; ``Authorization: VQPU-Session <ticket>`` stands
        for a credential once one was admitted (:mod:`backends.vqpu.server.sessions`).
    client : str, optional
        The client's host (IP address), to which session tickets are bound.

    Returns
    -------
    Caller

    Raises
    ------
    APIError
        401 when a token or credential is needed and missing or bad, 403 for a job that
        may not use the vQPU, 503 while the token file is unusable or Slurm or MUNGE
        cannot be reached (every caller is refused), 400 for an open-mode job name
        longer than 128 characters.

    Examples
    --------
    >>> caller = caller_of({"x-vqpu-job": "job-a"}, None)
    >>> caller.job, caller.user, caller_of({}, None).job
    ('job-a', 'job-a', 'anonymous')
    >>> try:
    ...     caller_of({"x-vqpu-job": "j" * 129}, None)
    ... except APIError as error:
    ...     print(error.status, error.code, error.detail)
    400 bad_request X-VQPU-Job has 129 characters, the limit is 128
    """
    if slurm is not None:
        return _slurm_caller(headers, slurm, client)
    if tokens is None:
        job = _utf8_header(headers.get("x-vqpu-job", "anonymous"))
        if len(job) > MAX_JOB_NAME:
            detail = f"X-VQPU-Job has {len(job)} characters, the limit is {MAX_JOB_NAME}"
            raise APIError(400, "bad_request", detail)
        return Caller(job, job)
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise APIError(401, "unauthorized", "missing token: send 'Authorization: Bearer <token>'")
    try:
        caller = tokens.caller_of(_utf8_header(token.strip()))
    except TokensUnavailableError:
        detail = "the server's token file is unusable; every token is refused until it is fixed"
        raise APIError(503, "tokens_unavailable", detail) from None
    if caller is None:
        raise APIError(401, "unauthorized", "unknown token")
    return caller


def _slurm_caller(headers: Mapping[str, str], slurm: SlurmAuth, client: str | None) -> Caller:
    """The caller a MUNGE credential or session ticket proves, or 401 with the MUNGE challenge."""
    scheme, _, credential = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "vqpu-session" and credential.strip():
        return slurm.session_caller(credential.strip(), client)
    if scheme.lower() != "munge" or not credential.strip():
        detail = (
            "this server admits running Slurm jobs that hold a vQPU: send 'Authorization: MUNGE "
            f"<credential>' made for server {slurm.instance!r}"
        )
        raise APIError(401, "unauthorized", detail, headers=slurm.challenge)
    return slurm.caller_of(credential.strip())


def _utf8_header(value: str) -> str:
    """A header value as UTF-8 text: Starlette decodes header bytes as latin-1, clients send UTF-8.

    >>> _utf8_header("jÃ¶b"), _utf8_header("jöb"), _utf8_header("日本")
    ('jöb', 'jöb', '日本')
    """
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:  # not UTF-8 (or not from latin-1): keep the text as it came
        return value
