"""Exceptions raised by :mod:`backends`, and the project-wide :class:`InvalidParameterError`.

Every backend exception derives from :class:`BackendError`; bad-input errors also derive
from :class:`ValueError`. :class:`InvalidParameterError` is the one class that every
package of the project raises for an argument out of range (``bbqmis``, ``cutting`` and
``clustagg`` re-export it), so one ``except`` clause covers them all. It lives here
because ``backends`` is the lowest layer, imported by every other package.
"""

__all__ = [
    "BackendError",
    "InvalidParameterError",
    "UnknownBackendError",
    "BackendUnavailableError",
    "CircuitTooWideError",
    "MissingTokenError",
    "BackendConnectionError",
]


class BackendError(Exception):
    """Base class for every error raised by :mod:`backends`."""


class InvalidParameterError(ValueError, TypeError):
    """An argument has the wrong type or a value outside its allowed range (any package)."""


class UnknownBackendError(BackendError, ValueError):
    """A backend spec string names no known backend or device."""


class BackendUnavailableError(BackendError, ImportError):
    """A known backend spec needs a module that cannot be imported."""


class CircuitTooWideError(BackendError, ValueError):
    """A circuit needs more qubits than the device has."""


class MissingTokenError(BackendError, ValueError):
    """A remote backend needs an authentication token and none was found."""


class BackendConnectionError(BackendError, ConnectionError):
    """A remote backend could not be reached or answered with an error."""
