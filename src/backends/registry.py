"""Backend specs: ``get_backend("aer:noisy-adonis", sleep_factor=1.0)``.

This module is the one place where a spec string becomes a backend. A spec is
``<kind>[:<argument>]``. :data:`BACKENDS` maps spec prefixes to the
``"module:attribute"`` of a factory, imported only when that prefix is asked for; the
longest matching prefix wins, and the rest of the spec is the factory's argument. A
factory is called as ``factory(argument, name=spec, **options)`` and returns a
:class:`~backends.base.QuantumBackend`; a class whose ``__init__`` has that signature
is a factory too. Adding a backend is one entry here.

:func:`get_backend` builds a new backend on every call; :func:`shared_backend` returns
the one backend of this process for a spec and options, which is what workers that
receive a (picklable) spec string instead of a backend use. :func:`check_spec` checks a
spec string up front, in microseconds: it imports no backend module (nor Qiskit or
IQM's packages, which take seconds), so a command line can refuse a bad ``--backend``
before its time limit starts to matter.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from backends.errors import BackendUnavailableError, InvalidParameterError, UnknownBackendError

if TYPE_CHECKING:  # backends.base imports Qiskit (2 s); check_spec must not
    from backends.base import QuantumBackend

__all__ = ["BACKENDS", "SPEC_FORMS", "check_spec", "check_vqpu_url", "get_backend", "shared_backend"]

#: Spec prefix -> ``"module:attribute"`` of the factory. A prefix ending in ``-`` takes
#: the rest of the spec as argument; any other matches ``<prefix>`` or ``<prefix>:...``.
BACKENDS: dict[str, str] = {
    "aer": "backends.aer:from_spec",
    "aer:noisy-": "backends.iqm:noisy_aer",
    "iqm-fake": "backends.iqm:fake_from_spec",
    "iqm": "backends.iqm:server_from_spec",
    "null": "backends.null:from_spec",
    "vqpu": "backends.vqpu.client:VQPUBackend",
    "mpi": "backends.mpi_service.client:MPIServiceBackend",
}

#: The spec forms, for documentation and error messages.
SPEC_FORMS = (
    "aer",
    "aer:mps",
    "aer:noisy-<device>",
    "iqm-fake:<device>",
    "iqm:<server url>[#<quantum computer>]",
    "null[:<qubits>]",
    "vqpu:<http://host:port>",
    "mpi:<service name>|world[:<rank>]",
)

#: The arguments of ``aer[:<argument>]``: the keys of :data:`backends.aer.METHODS`, written out
#: so that :func:`check_spec` imports no Qiskit (a test checks that the two agree).
_AER_ARGUMENTS = ("", "mps")
#: The fake IQM devices of ``iqm-fake:<device>`` and ``aer:noisy-<device>``: those
#: :func:`backends.iqm.fake_devices` finds in the installed ``iqm.qiskit_iqm``, written out so
#: that :func:`check_spec` imports none of IQM's packages (a test checks that the two agree).
_FAKE_IQM_DEVICES = ("adonis", "aphrodite", "apollo", "deneb", "garnet")


def _match(spec: str) -> tuple[str, str] | None:
    """Return ``(prefix, argument)`` of the longest :data:`BACKENDS` prefix of ``spec``."""
    for prefix in sorted(BACKENDS, key=len, reverse=True):
        if prefix.endswith("-") and spec.startswith(prefix):
            return prefix, spec[len(prefix) :]
        if spec == prefix or spec.startswith(prefix + ":"):
            return prefix, spec[len(prefix) + 1 :]
    return None


def _load_factory(prefix: str, spec: str) -> Callable[..., QuantumBackend]:
    """Import the factory registered for ``prefix``; ``spec`` is named in the error."""
    module_name, _, attribute = BACKENDS[prefix].partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise BackendUnavailableError(
            f"backend spec {spec!r} needs {BACKENDS[prefix]}, which cannot be imported: {exc}"
        ) from exc


def _unknown_spec(spec: object) -> UnknownBackendError:
    return UnknownBackendError(f"unknown backend spec {spec!r}; valid forms: {', '.join(SPEC_FORMS)}")


def _check_aer(argument: str, spec: str) -> None:
    if argument not in _AER_ARGUMENTS:
        raise UnknownBackendError(
            f"unknown Aer simulator {argument!r} in spec {spec!r}; "
            "valid forms: aer, aer:mps, aer:noisy-<device>"
        )


def _check_device(device: str, spec: str) -> None:
    if device.lower() not in _FAKE_IQM_DEVICES:
        raise UnknownBackendError(
            f"unknown IQM device {device!r} in spec {spec!r}; known devices: {', '.join(_FAKE_IQM_DEVICES)}"
        )


def _check_iqm_server(argument: str, spec: str) -> None:
    if not argument.partition("#")[0].startswith(("http://", "https://")):
        raise UnknownBackendError(
            f"spec {spec!r} needs an http:// or https:// server URL, e.g. iqm:https://host#garnet"
        )


def _check_null(argument: str, spec: str) -> None:
    if argument != "" and not (argument.isdigit() and int(argument) > 0):
        raise UnknownBackendError(
            f"bad null spec {spec!r}: expected 'null' or 'null:<qubits>' with qubits >= 1, got {argument!r}"
        )


def check_vqpu_url(url: str, spec: str) -> None:
    """Raise :class:`UnknownBackendError` unless ``url`` is an http(s) address with a host and a valid port.

    Examples
    --------
    >>> check_vqpu_url("https://qsrv:8765", "vqpu:https://qsrv:8765")
    >>> check_vqpu_url("https://:8765", "vqpu:https://:8765")
    Traceback (most recent call last):
    ...
    backends.errors.UnknownBackendError: bad vqpu spec 'vqpu:https://:8765': the URL names no host; \
expected vqpu:http://host:port
    """
    if not url.startswith(("http://", "https://")):
        raise UnknownBackendError(
            f"bad vqpu spec {spec!r}: The 'url' parameter must start with http:// or https://. "
            f"Got {url!r} instead."
        )
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - parsing the port raises on a bad one
    except ValueError:
        raise UnknownBackendError(
            f"bad vqpu spec {spec!r}: the URL's port must be a number in 0..65535"
        ) from None
    if not parts.hostname:
        raise UnknownBackendError(
            f"bad vqpu spec {spec!r}: the URL names no host; expected vqpu:http://host:port"
        )


#: Spec prefix -> the cheap check of its argument, ``check(argument, spec)``; ``mpi``'s
#: argument is left to its backend (a service name is only known once it is looked up).
_CHECKS: dict[str, Callable[[str, str], None]] = {
    "aer": _check_aer,
    "aer:noisy-": _check_device,
    "iqm-fake": _check_device,
    "iqm": _check_iqm_server,
    "null": _check_null,
    "vqpu": check_vqpu_url,
}


def check_spec(spec: str) -> str:
    """Check a backend spec string without making the backend or importing its module.

    Cheap (no Qiskit, no IQM package, no network), so a command line can call it before
    anything slow: the kind must be one of :data:`SPEC_FORMS`, the variant of ``aer:``
    and the width of ``null:`` valid, the device of ``iqm-fake:`` and ``aer:noisy-`` a
    known fake IQM device, and the URL of ``iqm:`` and ``vqpu:`` an http(s) address
    (with a host and a valid port, for ``vqpu:``). What only the backend can tell (a
    token, a reachable server, an ``mpi:`` service) is left to :func:`get_backend`.

    Parameters
    ----------
    spec : str
        A backend spec, as for :func:`get_backend`.

    Returns
    -------
    str
        ``spec``, unchanged.

    Raises
    ------
    UnknownBackendError
        If :func:`get_backend` would refuse the spec's kind, variant, device or URL; the
        message is the one :func:`get_backend` gives.

    Examples
    --------
    >>> check_spec("iqm-fake:garnet")
    'iqm-fake:garnet'
    >>> check_spec("iqm-fake:nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.UnknownBackendError: unknown IQM device 'nope' in spec 'iqm-fake:nope'; known devices: ...
    """
    match = _match(spec) if isinstance(spec, str) else None
    if match is None:
        raise _unknown_spec(spec)
    prefix, argument = match
    if prefix in _CHECKS:
        _CHECKS[prefix](argument, spec)
    return spec


def get_backend(spec: str | QuantumBackend, **options: Any) -> QuantumBackend:
    """Make the backend named by ``spec``.

    Parameters
    ----------
    spec : str or QuantumBackend
        One of :data:`SPEC_FORMS`, e.g. ``"aer"``, ``"aer:noisy-adonis"``,
        ``"iqm-fake:garnet"``, ``"iqm:https://host#garnet"``,
        ``"vqpu:http://localhost:8000"``. A ``QuantumBackend`` is returned unchanged.
    **options
        Common to every backend: ``sleep_factor`` (alpha >= 0, default 0), ``seed``
        (default transpiler/simulator seed), ``label`` (timing label, default the spec),
        ``num_qubits`` (accept at most this many qubits). ``iqm:`` also takes ``token``.

    Returns
    -------
    QuantumBackend
        With ``name`` equal to ``spec``.

    Raises
    ------
    UnknownBackendError
        If the spec's kind, variant or device is unknown.
    BackendUnavailableError
        If the spec's module cannot be imported.
    InvalidParameterError
        If an option is out of range, or options come with a backend instance.
    MissingTokenError, BackendConnectionError
        From ``iqm:`` specs, see :func:`backends.iqm.server_from_spec`.

    Examples
    --------
    >>> from backends import get_backend
    >>> get_backend("aer:mps", seed=1)
    AerBackend(name='aer:mps', num_qubits=63)
    """
    from backends.base import QuantumBackend

    if isinstance(spec, QuantumBackend):
        if options:
            raise InvalidParameterError(
                f"options {sorted(options)} apply to spec strings only, got a backend instance {spec!r}"
            )
        return spec
    match = _match(spec) if isinstance(spec, str) else None
    if match is None:
        raise _unknown_spec(spec)
    prefix, argument = match
    return _load_factory(prefix, spec)(argument, name=spec, **options)


_SHARED: dict[tuple[int, str, tuple[tuple[str, Hashable], ...]], QuantumBackend] = {}
_SHARED_LOCK = threading.Lock()


def _new_lock_after_fork() -> None:
    """In a forked child, replace the lock: a thread of the parent may have held it at the fork."""
    global _SHARED_LOCK
    _SHARED_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_new_lock_after_fork)


def shared_backend(spec: str, **options: Hashable) -> QuantumBackend:
    """Return this process's one backend for ``spec`` and ``options``, made on first use.

    Samplers and solvers hold a spec string (which pickles to process-pool and MPI
    workers) and call this where they run, so each process builds each backend once. A
    forked child builds its own: the cache is keyed by process id. Use
    :func:`backends.timing.record_timings` to attribute a shared backend's executions.

    Parameters
    ----------
    spec : str
        As for :func:`get_backend`.
    **options
        As for :func:`get_backend`; values must be hashable.

    Returns
    -------
    QuantumBackend

    Raises
    ------
    InvalidParameterError
        If an option value is not hashable; otherwise as :func:`get_backend`.

    Examples
    --------
    >>> first = shared_backend("aer", seed=5)
    >>> shared_backend("aer", seed=5) is first
    True
    >>> shared_backend("aer", seed=6) is first
    False
    """
    try:
        key = (os.getpid(), spec, tuple(sorted(options.items())))
        hash(key)
    except TypeError as exc:
        raise InvalidParameterError(f"shared_backend options must be hashable: {exc}") from exc
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = get_backend(spec, **options)
        return _SHARED[key]
