"""Exceptions raised by :mod:`backends`.

Every backend exception derives from :class:`BackendError`, itself a
:class:`~backends.utils.errors.ProjectError`; bad-input errors also derive from
:class:`ValueError`. The project-wide :class:`~backends.utils.errors.InvalidParameterError`
is re-exported here.
"""

from backends.utils.errors import InvalidParameterError, ProjectError

__all__ = [
    "BackendError",
    "InvalidParameterError",
    "UnknownBackendError",
    "BackendUnavailableError",
    "CircuitTooWideError",
    "MissingTokenError",
    "BackendConnectionError",
]


class BackendError(ProjectError):
    """Base class for every error raised by :mod:`backends`.

    Examples
    --------
    >>> from backends import BackendError, get_backend
    >>> try:
    ...     get_backend("no-such-device")
    ... except BackendError as error:
    ...     print(type(error).__name__)
    UnknownBackendError
    """


class UnknownBackendError(BackendError, ValueError):
    """A backend spec string names no known backend or device.

    Examples
    --------
    >>> from backends import UnknownBackendError, get_backend
    >>> try:
    ...     get_backend("quantum-magic")
    ... except UnknownBackendError:
    ...     print("unknown spec")
    unknown spec
    """


class BackendUnavailableError(BackendError, ImportError):
    """A known backend spec needs a module that cannot be imported.

    Examples
    --------
    >>> issubclass(BackendUnavailableError, ImportError)
    True
    """


class CircuitTooWideError(BackendError, ValueError):
    """A circuit needs more qubits than the device has.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> from backends import CircuitTooWideError, get_backend
    >>> wide = QuantumCircuit(6)
    >>> _ = wide.measure_all()
    >>> try:
    ...     get_backend("iqm-fake:adonis").run([wide], shots=10)
    ... except CircuitTooWideError:
    ...     print("too wide for the 5-qubit Adonis")
    too wide for the 5-qubit Adonis
    """


class MissingTokenError(BackendError, ValueError):
    """A remote backend needs an authentication token and none was found.

    Examples
    --------
    >>> from backends.iqm import resolve_auth
    >>> resolve_auth("iqm:https://example.org", environ={})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.MissingTokenError: backend 'iqm:https://example.org' needs an IQM API token: ...
    """


class BackendConnectionError(BackendError, ConnectionError):
    """A remote backend could not be reached or answered with an error.

    Examples
    --------
    >>> issubclass(BackendConnectionError, ConnectionError)
    True
    """
