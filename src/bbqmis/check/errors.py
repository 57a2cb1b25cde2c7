"""How a check fails: input that cannot be read (exit status 2), a certificate that proves nothing (1)."""

from __future__ import annotations

__all__ = ["InvalidCertificate", "UnreadableInput"]


class UnreadableInput(Exception):
    """A graph or certificate file that cannot be read or parsed (exit status 2).

    Examples
    --------
    >>> str(UnreadableInput("g.col line 1: no header"))
    'g.col line 1: no header'
    """


class InvalidCertificate(Exception):
    """A certificate that does not prove what it claims (exit status 1).

    Examples
    --------
    >>> str(InvalidCertificate("colouring is not proper"))
    'colouring is not proper'
    """
