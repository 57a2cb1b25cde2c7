"""The error a vQPU server answers to its client: :class:`APIError`, a status, a code and a message.

:func:`backends.vqpu.server.app.create_app` answers it as ``{"error": code, "detail": message}``
with the error's status.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["APIError"]


class APIError(Exception):
    """An error answered to the client as ``{"error": code, "detail": detail}``.

    Parameters
    ----------
    status : int
        HTTP status of the answer.
    code : str
        Machine-readable reason, e.g. ``"queue_full"``.
    detail : str
        Human-readable message.
    headers : mapping of str to str, optional
        Headers of the answer, e.g. ``WWW-Authenticate`` with a 401.

    Examples
    --------
    >>> error = APIError(429, "queue_full", "queue is full")
    >>> error.status, error.code, str(error)
    (429, 'queue_full', 'queue is full')
    """

    def __init__(self, status: int, code: str, detail: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail
        self.headers = dict(headers or {})
