"""Where the server may listen, and how: no open mode beyond loopback, TLS for the network.

A server without authentication ("open mode") lets every process that reaches its port
submit circuits and read results. On 127.0.0.0/8 and ::1 that is the processes of one
machine; on any other address it is everyone on the network, so :func:`check_exposure`
refuses it unless the administrator says ``--insecure-open`` in so many words. A server
with authentication on a non-loopback address but without TLS sends every credential and
circuit in clear: it starts, with a warning at start and on ``/health``.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import ssl
from pathlib import Path

from backends.utils.errors import InvalidParameterError

__all__ = ["is_loopback", "check_exposure", "tls_options"]


def is_loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (127.0.0.0/8 or ::1).

    A name is resolved; one that does not resolve, or resolves to any other address,
    is not loopback. The wildcard addresses ``0.0.0.0`` and ``::`` are not loopback.

    Parameters
    ----------
    host : str
        An IPv4 or IPv6 address, or a host name.

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("127.8.9.10"), is_loopback("::1")
    (True, True, True)
    >>> is_loopback("0.0.0.0"), is_loopback("::"), is_loopback("10.1.2.3")
    (False, False, False)
    >>> is_loopback("localhost")
    True
    """
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    addresses = {str(info[4][0]).split("%")[0] for info in found}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def check_exposure(host: str, *, authenticated: bool, tls: bool, insecure_open: bool = False) -> str | None:
    """Refuse open mode beyond loopback; return the warning for credentials sent in clear.

    Parameters
    ----------
    host : str
        The address the server binds (``--host``).
    authenticated : bool
        Whether the server authenticates callers (a token file or Slurm-bound credentials).
    tls : bool
        Whether the server speaks HTTPS.
    insecure_open : bool
        The administrator's explicit ``--insecure-open``: open mode on a network address.

    Returns
    -------
    str or None
        A warning to log at start and report on ``/health``, or ``None``.

    Raises
    ------
    InvalidParameterError
        Open mode (no authentication) on a non-loopback address without ``insecure_open``.

    Examples
    --------
    >>> check_exposure("127.0.0.1", authenticated=False, tls=False) is None
    True
    >>> check_exposure("0.0.0.0", authenticated=False, tls=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: --host 0.0.0.0 is not a loopback address ...
    >>> print(check_exposure("0.0.0.0", authenticated=True, tls=False))  # doctest: +ELLIPSIS
    the server listens on 0.0.0.0 without TLS: credentials and circuits cross the network in clear; ...
    """
    if is_loopback(host):
        return None
    if not authenticated and not insecure_open:
        raise InvalidParameterError(
            f"--host {host} is not a loopback address and the server has no authentication: every "
            "process that reaches the port could submit and read results; give --token-file (or run "
            "inside Slurm with --slurm-auth), bind 127.0.0.1, or say --insecure-open"
        )
    if not tls:
        return (
            f"the server listens on {host} without TLS: credentials and circuits cross the network "
            "in clear; give --tls-cert and --tls-key"
        )
    if not authenticated:
        return (
            f"the server listens on {host} in open mode (--insecure-open): anyone who reaches it may submit"
        )
    return None


def tls_options(cert: str | os.PathLike[str] | None, key: str | os.PathLike[str] | None) -> dict[str, str]:
    """The uvicorn TLS options for ``--tls-cert`` and ``--tls-key``, checked before the port is bound.

    Parameters
    ----------
    cert, key : str or path, optional
        The server's certificate chain and private key (PEM); both or neither.

    Returns
    -------
    dict
        ``{"ssl_certfile": ..., "ssl_keyfile": ...}``, or ``{}`` without TLS.

    Raises
    ------
    InvalidParameterError
        If only one of the two is given, or they do not load as a certificate and its key.

    Examples
    --------
    >>> tls_options(None, None)
    {}
    >>> tls_options("server.pem", None)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: --tls-cert and --tls-key go together: got only --tls-cert
    """
    if cert is None and key is None:
        return {}
    if cert is None or key is None:
        given = "--tls-cert" if cert is not None else "--tls-key"
        raise InvalidParameterError(f"--tls-cert and --tls-key go together: got only {given}")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise InvalidParameterError(
            f"--tls-cert {str(cert)!r} and --tls-key {str(key)!r} do not load as a certificate and its key: "
            f"{exc}"
        ) from None
    return {"ssl_certfile": str(Path(cert)), "ssl_keyfile": str(Path(key))}
