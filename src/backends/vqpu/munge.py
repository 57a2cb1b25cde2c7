"""MUNGE credentials through libmunge: a job proves who runs it with no secret handed around.

MUNGE (the authentication service Slurm itself uses) encodes a payload into a credential
that the local ``munged`` signs with the cluster's shared key; any ``munged`` of the same
key decodes it, which yields the UID and GID of the process that encoded it. A credential
decodes once (a second decode is *replayed*), and only within its time-to-live (300 s by
default; past it, *expired*). The vQPU client sends a fresh credential with every request,
whose payload names the job (``SLURM_JOB_ID``) and the server it is meant for, so a
credential copied off the wire or out of a process is worth nothing: it was already used,
and it names one server.

libmunge is called through :mod:`ctypes` (about 0.16 ms to encode and 0.12 ms to decode,
against 1.3-1.7 ms for the ``munge``/``unmunge`` commands). The socket of ``munged`` is
``MUNGE_SOCKET`` if set, else libmunge's default.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import re
from dataclasses import dataclass

from backends.errors import BackendError

__all__ = ["MungeError", "Credential", "encode", "decode", "job_payload", "parse_job_payload"]

#: ``munge_opt_t`` values of munge.h.
_OPT_TTL = 4
_OPT_SOCKET = 8
#: ``munge_err_t`` values of munge.h that name a credential's fault rather than the service's.
EXPIRED, REWOUND, REPLAYED, UNAUTHORIZED = 15, 16, 17, 18
_CREDENTIAL_FAULTS = {7: "invalid", 8: "invalid", 9: "invalid", 10: "invalid", 11: "invalid", 12: "invalid"}
_CREDENTIAL_FAULTS |= {13: "invalid", 14: "invalid", EXPIRED: "expired", REWOUND: "rewound"}
_CREDENTIAL_FAULTS |= {REPLAYED: "replayed", UNAUTHORIZED: "unauthorized"}


class MungeError(BackendError):
    """A credential could not be made or was refused.

    Attributes
    ----------
    code : int
        libmunge's error code (``munge_err_t``): 15 expired, 17 replayed, 6 no socket...
    fault : str or None
        ``"invalid"``, ``"expired"``, ``"rewound"``, ``"replayed"`` or ``"unauthorized"``
        when the credential itself is at fault (the caller's 401); ``None`` when the
        MUNGE service failed (the server's 503: it cannot check, so it refuses).

    Examples
    --------
    >>> MungeError(REPLAYED, "Replayed credential").fault, MungeError(6, "no socket").fault
    ('replayed', None)
    """

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.fault = _CREDENTIAL_FAULTS.get(code)


@dataclass(frozen=True)
class Credential:
    """What a decoded credential proves: who encoded it, and the payload they chose.

    Attributes
    ----------
    uid, gid : int
        User and group of the process that encoded the credential.
    payload : bytes
        The encoder's payload; only its UID and GID are proven, not what it says.

    Examples
    --------
    >>> Credential(1000, 1000, job_payload("42", "qsrv:8765")).payload
    b'vqpu-job=42 server=qsrv:8765'
    """

    uid: int
    gid: int
    payload: bytes


@functools.cache
def _library() -> ctypes.CDLL:
    """Libmunge and libc's ``free``, with their signatures; :class:`MungeError` if absent."""
    name = ctypes.util.find_library("munge")
    if name is None:
        raise MungeError(6, "libmunge is not installed (Debian: apt-get install libmunge2)")
    lib = ctypes.CDLL(name)
    lib.munge_ctx_create.restype = ctypes.c_void_p
    lib.munge_ctx_destroy.argtypes = [ctypes.c_void_p]
    lib.munge_ctx_strerror.restype = ctypes.c_char_p
    lib.munge_ctx_strerror.argtypes = [ctypes.c_void_p]
    lib.munge_encode.argtypes = [
        ctypes.POINTER(ctypes.c_char_p),
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int,
    ]
    lib.munge_decode.argtypes = [
        ctypes.c_char_p,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_uint32),
        ctypes.POINTER(ctypes.c_uint32),
    ]
    return lib


@functools.cache
def _free() -> ctypes._CFuncPtr:  # type: ignore[name-defined]
    free = ctypes.CDLL(None).free
    free.argtypes = [ctypes.c_void_p]
    return free


class _Context:
    """A libmunge context bound to a socket (``MUNGE_SOCKET`` or the default) and a TTL."""

    def __init__(self, socket: str | None, ttl: int | None) -> None:
        self.lib = _library()
        self.ctx = self.lib.munge_ctx_create()
        if not self.ctx:
            raise MungeError(5, "libmunge could not create a context (out of memory)")
        socket = socket or os.environ.get("MUNGE_SOCKET")
        if socket:
            self.lib.munge_ctx_set(ctypes.c_void_p(self.ctx), _OPT_SOCKET, socket.encode())
        if ttl is not None:
            self.lib.munge_ctx_set(ctypes.c_void_p(self.ctx), _OPT_TTL, ctypes.c_int(ttl))

    def error(self, code: int, what: str) -> MungeError:
        text = self.lib.munge_ctx_strerror(self.ctx)
        return MungeError(code, f"MUNGE {what} failed: {text.decode() if text else f'error {code}'}")

    def __enter__(self) -> _Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.lib.munge_ctx_destroy(self.ctx)


def encode(payload: bytes, *, socket: str | None = None, ttl: int | None = None) -> str:
    """A fresh credential for ``payload``, signed by the local ``munged``.

    Parameters
    ----------
    payload : bytes
        What the credential carries (proven to come from this process's UID and GID).
    socket : str, optional
        ``munged``'s socket; default ``MUNGE_SOCKET``, else libmunge's default.
    ttl : int, optional
        Seconds the credential stays valid; default the daemon's (300 s).

    Returns
    -------
    str
        The credential (``MUNGE:...:``), ASCII.

    Raises
    ------
    MungeError
        If libmunge is missing or ``munged`` cannot be reached.

    Examples
    --------
    Inside a Slurm job (``munged`` runs on every node):

    >>> credential = encode(job_payload("42", "qsrv:8765"))  # doctest: +SKIP
    >>> credential[:6]  # doctest: +SKIP
    'MUNGE:'
    """
    with _Context(socket, ttl) as context:
        cred = ctypes.c_char_p()
        code = context.lib.munge_encode(
            ctypes.byref(cred), ctypes.c_void_p(context.ctx), payload, len(payload)
        )
        if code:
            raise context.error(code, "encode")
        try:
            return (cred.value or b"").decode("ascii")
        finally:
            _free()(ctypes.cast(cred, ctypes.c_void_p))


def decode(credential: str, *, socket: str | None = None) -> Credential:
    """Decode ``credential`` once: who made it and its payload.

    Parameters
    ----------
    credential : str
        As made by :func:`encode` (or the ``munge`` command).
    socket : str, optional
        ``munged``'s socket; default ``MUNGE_SOCKET``, else libmunge's default.

    Raises
    ------
    MungeError
        With ``fault`` set for a forged, expired, replayed or otherwise bad credential, and
        ``fault = None`` when MUNGE itself cannot be reached.

    Examples
    --------
    >>> decode("MUNGE:é:").fault
    Traceback (most recent call last):
    ...
    backends.vqpu.munge.MungeError: MUNGE decode failed: the credential is not ASCII
    >>> credential = encode(b"hello")  # doctest: +SKIP
    >>> decode(credential).payload, decode(credential)  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    backends.vqpu.munge.MungeError: MUNGE decode failed: Replayed credential
    """
    try:
        raw = credential.encode("ascii")
    except UnicodeEncodeError:
        raise MungeError(8, "MUNGE decode failed: the credential is not ASCII") from None
    with _Context(socket, None) as context:
        buffer, length = ctypes.c_void_p(), ctypes.c_int()
        uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
        code = context.lib.munge_decode(
            raw, ctypes.c_void_p(context.ctx), ctypes.byref(buffer), ctypes.byref(length), ctypes.byref(uid),
            ctypes.byref(gid),
        )  # fmt: skip
        try:
            if code:
                raise context.error(code, "decode")
            payload = ctypes.string_at(buffer, length.value) if buffer.value else b""
        finally:
            if buffer.value:
                _free()(buffer)
    return Credential(uid.value, gid.value, payload)


def job_payload(job_id: str, server: str) -> bytes:
    """The payload of a job's credential: the job it runs in and the server it is meant for.

    Examples
    --------
    >>> job_payload("42", "vqpu-3f2a")
    b'vqpu-job=42 server=vqpu-3f2a'
    >>> parse_job_payload(job_payload("42", "vqpu-3f2a"))
    ('42', 'vqpu-3f2a')
    """
    return f"vqpu-job={job_id} server={server}".encode()


def parse_job_payload(payload: bytes) -> tuple[str, str] | None:
    """``(job_id, server)`` from a :func:`job_payload`, or ``None`` for any other payload.

    Examples
    --------
    >>> parse_job_payload(b"job=42"), parse_job_payload(b"vqpu-job= server=x")
    (None, None)
    """
    match = re.fullmatch(rb"vqpu-job=([0-9A-Za-z_+]{1,64}) server=([0-9A-Za-z_.:-]{1,128})", payload)
    return (match[1].decode(), match[2].decode()) if match else None
