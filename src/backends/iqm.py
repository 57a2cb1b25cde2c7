"""IQM devices: fake devices (``iqm-fake:<device>``, ``aer:noisy-<device>``) and IQM servers (``iqm:<url>``).

Importing this module imports IQM's packages, which takes several seconds; the
registry imports it only for IQM specs.
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from exa.common.errors.iqm_error import IQMError
from iqm.qiskit_iqm import IQMProvider, fake_backends
from iqm.qiskit_iqm.fake_backends import IQMFakeBackend
from iqm.qiskit_iqm.iqm_transpilation import IQMReplaceGateWithUnitaryPass
from iqm.qiskit_iqm.move_gate import MOVE_GATE_UNITARY
from qiskit import QuantumCircuit
from qiskit.providers import BackendV2
from qiskit_aer import AerSimulator

from backends.aer import AerBackend
from backends.base import BaseBackend, Execution, counts_from_result
from backends.errors import BackendConnectionError, MissingTokenError, UnknownBackendError

__all__ = [
    "TOKEN_ENV_VAR",
    "TOKENS_FILE_ENV_VAR",
    "fake_devices",
    "fake_device",
    "noisy_aer",
    "FakeIQMBackend",
    "fake_from_spec",
    "resolve_auth",
    "timeline_window",
    "IQMServerBackend",
    "server_from_spec",
]

#: Environment variable holding an IQM API token (read by iqm-client too).
TOKEN_ENV_VAR = "IQM_TOKEN"
#: Environment variable holding the path of an IQM tokens file (read by iqm-client too).
TOKENS_FILE_ENV_VAR = "IQM_TOKENS_FILE"


@functools.cache
def fake_devices() -> dict[str, Callable[[], IQMFakeBackend]]:
    """Return the fake devices the installed ``iqm.qiskit_iqm`` ships, found by module name.

    Returns
    -------
    dict of str to callable
        Lower-case device name (``"adonis"``) -> factory of a new ``IQMFakeBackend``.
    """
    devices = {}
    for module_info in pkgutil.iter_modules(fake_backends.__path__):
        if not module_info.name.startswith("fake_"):
            continue
        device = module_info.name.removeprefix("fake_")
        module = importlib.import_module(f"{fake_backends.__name__}.{module_info.name}")
        factory = getattr(module, f"IQMFake{device.capitalize()}", None)
        if factory is not None:
            devices[device] = factory
    return dict(sorted(devices.items()))


def fake_device(device: str, spec: str) -> IQMFakeBackend:
    """Make a new fake IQM device.

    Parameters
    ----------
    device : str
        Device name, e.g. ``"adonis"`` (case-insensitive).
    spec : str
        Spec being resolved, for the error message.

    Returns
    -------
    IQMFakeBackend

    Raises
    ------
    UnknownBackendError
        If ``device`` is not one of :func:`fake_devices`.

    Examples
    --------
    >>> fake_device("Adonis", "iqm-fake:Adonis").num_qubits
    5
    >>> fake_device("nosuch", "iqm-fake:nosuch")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.UnknownBackendError: unknown IQM device 'nosuch' in spec 'iqm-fake:nosuch'; ...
    """
    devices = fake_devices()
    if device.lower() not in devices:
        raise UnknownBackendError(
            f"unknown IQM device {device!r} in spec {spec!r}; known devices: {', '.join(devices)}"
        )
    return devices[device.lower()]()


def noisy_aer(device: str, /, *, name: str, **options: Any) -> AerBackend:
    """Make a seeded Aer simulation with the noise, gates and coupling map of a fake IQM device.

    Parameters
    ----------
    device : str
        Fake device name, e.g. ``"adonis"``.
    name : str
        The full spec, used as backend name.
    **options
        Passed to :class:`~backends.aer.AerBackend`.

    Returns
    -------
    AerBackend

    Examples
    --------
    >>> backend = noisy_aer("adonis", name="aer:noisy-adonis", seed=1)
    >>> backend.name, backend.num_qubits
    ('aer:noisy-adonis', 5)
    """
    fake = fake_device(device, name)
    return AerBackend(
        AerSimulator(noise_model=fake.noise_model),
        device=fake,
        prepare=IQMReplaceGateWithUnitaryPass("move", MOVE_GATE_UNITARY),
        name=name,
        **options,
    )


class FakeIQMBackend(BaseBackend):
    """A fake IQM device run through its own ``run`` (circuit validation plus noisy Aer).

    ``IQMFakeBackend.run`` takes no simulator seed, so its samples are not
    reproducible; ``seed`` still fixes the transpilation. Use ``aer:noisy-<device>``
    for reproducible noisy samples.

    Examples
    --------
    >>> from backends import get_backend
    >>> backend = get_backend("iqm-fake:adonis", seed=1)
    >>> isinstance(backend, FakeIQMBackend), backend.num_qubits
    (True, 5)
    """

    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        result = self.device.run(circuits, shots=shots).result()
        return Execution(counts_from_result(result, len(circuits)))


def fake_from_spec(argument: str, /, *, name: str, **options: Any) -> FakeIQMBackend:
    """Make the backend of spec ``iqm-fake:<argument>``; see :class:`FakeIQMBackend`.

    Examples
    --------
    >>> fake_from_spec("adonis", name="iqm-fake:adonis").name
    'iqm-fake:adonis'
    """
    return FakeIQMBackend(fake_device(argument, name), name=name, **options)


def resolve_auth(
    name: str, token: str | None = None, environ: Mapping[str, str] = os.environ
) -> dict[str, str]:
    """Find the IQM credential: ``token``, else ``$IQM_TOKEN``, else ``$IQM_TOKENS_FILE``.

    Parameters
    ----------
    name : str
        Backend name, for the error message.
    token : str or None, optional
        Token given by the caller.
    environ : mapping, optional
        Environment to read; default :data:`os.environ`.

    Returns
    -------
    dict
        ``{"token": ...}`` or ``{"tokens_file": ...}``, the keyword argument for
        ``IQMProvider``.

    Raises
    ------
    MissingTokenError
        If none of the three is set. The message never contains a token.

    Examples
    --------
    >>> resolve_auth("iqm:https://example.org", "my-token")
    {'token': 'my-token'}
    >>> resolve_auth("iqm:https://example.org", environ={"IQM_TOKENS_FILE": "/home/me/tokens.json"})
    {'tokens_file': '/home/me/tokens.json'}
    >>> resolve_auth("iqm:https://example.org", environ={})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.MissingTokenError: ...
    """
    if token:
        return {"token": token}
    if environ.get(TOKEN_ENV_VAR):
        return {"token": environ[TOKEN_ENV_VAR]}
    if environ.get(TOKENS_FILE_ENV_VAR):
        return {"tokens_file": environ[TOKENS_FILE_ENV_VAR]}
    raise MissingTokenError(
        f"backend {name!r} needs an IQM API token: pass token=... to get_backend, set the environment "
        f"variable {TOKEN_ENV_VAR}, or set {TOKENS_FILE_ENV_VAR} to the path of an IQM tokens file"
    )


def timeline_window(timeline: Sequence) -> tuple[float, float] | None:
    """Return the execution start and end recorded in an IQM job timeline.

    Parameters
    ----------
    timeline : sequence of TimelineEntry
        Entries with ``status`` (str) and ``timestamp`` (aware ``datetime``).

    Returns
    -------
    tuple of (float, float) or None
        Unix epoch seconds of the first ``execution_started`` and ``execution_ended``
        entries, or ``None`` if either is missing.

    Examples
    --------
    >>> from datetime import datetime, timezone
    >>> from types import SimpleNamespace
    >>> def entry(status, second):
    ...     stamp = datetime(2025, 1, 1, 0, 0, second, tzinfo=timezone.utc)
    ...     return SimpleNamespace(status=status, timestamp=stamp)
    >>> window = timeline_window([entry("execution_started", 10), entry("execution_ended", 13)])
    >>> window[1] - window[0]
    3.0
    >>> timeline_window([entry("received", 1)]) is None
    True
    """
    stamps: dict[str, float] = {}
    for entry in timeline:
        stamps.setdefault(entry.status, entry.timestamp.timestamp())
    if "execution_started" in stamps and "execution_ended" in stamps:
        return stamps["execution_started"], stamps["execution_ended"]
    return None


@contextmanager
def _server_errors(url: str, secret: str | None) -> Iterator[None]:
    """Turn IQM client and network errors into :class:`BackendConnectionError` (token redacted)."""
    try:
        yield
    except (OSError, RuntimeError, IQMError) as exc:
        reason = str(exc).replace(secret, "***") if secret else str(exc)
        raise BackendConnectionError(
            f"request to IQM server {url} failed: {type(exc).__name__}: {reason}"
        ) from None


@contextmanager
def _without_env(names: Sequence[str]) -> Iterator[None]:
    """Hide environment variables for the duration of the block."""
    saved = {name: os.environ.pop(name) for name in names if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(saved)


class IQMServerBackend(BaseBackend):
    """A quantum computer behind an IQM server.

    Quantum seconds come from the job timeline (``execution_started`` to
    ``execution_ended``) when the server reports it.

    Parameters
    ----------
    device : qiskit.providers.BackendV2
        The ``IQMBackend`` from ``IQMProvider.get_backend()``.
    url : str
        Server URL, for error messages.
    secret : str or None, optional
        Token to redact from error messages.
    **options
        ``name``, ``num_qubits``, ``sleep_factor``, ``seed``, ``label`` of
        :class:`~backends.base.BaseBackend`.

    Examples
    --------
    Connecting needs a server and a token (``$IQM_TOKEN``), so this line is not run here:

    >>> backend = get_backend("iqm:https://cocos.resonance.meetiqm.com#garnet")  # doctest: +SKIP

    Every IQM server backend is a :class:`~backends.base.BaseBackend`:

    >>> issubclass(IQMServerBackend, BaseBackend)
    True
    """

    def __init__(self, device: BackendV2, *, url: str, secret: str | None = None, **options: Any) -> None:
        super().__init__(device, **options)
        self.url = url
        self._secret = secret

    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        with _server_errors(self.url, self._secret):
            job = self.device.run(circuits, shots=shots)
            result = job.result()
        if not result.success:
            raise BackendConnectionError(
                f"job {job.job_id()} on IQM server {self.url} did not complete: {job.error_message()}"
            )
        timeline = getattr(result, "timeline", None) or []
        return Execution(counts_from_result(result, len(circuits)), timeline_window(timeline))


def server_from_spec(
    argument: str, /, *, name: str, token: str | None = None, **options: Any
) -> IQMServerBackend:
    """Connect to the IQM server of spec ``iqm:<url>[#<quantum computer>]``.

    Parameters
    ----------
    argument : str
        ``<url>`` or ``<url>#<quantum computer>``; the URL starts with ``http://`` or
        ``https://``.
    name : str
        The full spec, used as backend name.
    token : str or None, optional
        API token; default from the environment, see :func:`resolve_auth`.
    **options
        Passed to :class:`IQMServerBackend`.

    Returns
    -------
    IQMServerBackend

    Raises
    ------
    UnknownBackendError
        If the URL does not start with ``http://`` or ``https://``.
    MissingTokenError
        If no token is found.
    BackendConnectionError
        If the server cannot be reached or refuses the connection.

    Examples
    --------
    The URL is checked before anything is sent:

    >>> server_from_spec("ftp://example.org", name="iqm:ftp://example.org")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.UnknownBackendError: spec 'iqm:ftp://example.org' needs an http:// or https:// ...
    """
    url, _, quantum_computer = argument.partition("#")
    if not url.startswith(("http://", "https://")):
        raise UnknownBackendError(
            f"spec {name!r} needs an http:// or https:// server URL, e.g. iqm:https://host#garnet"
        )
    auth = resolve_auth(name, token)
    # iqm-client refuses credentials given both as arguments and in its environment
    # variables, so the one chosen above is passed while the variables are hidden.
    with _server_errors(url, auth.get("token")), _without_env([TOKEN_ENV_VAR, TOKENS_FILE_ENV_VAR]):
        device = IQMProvider(url, quantum_computer=quantum_computer or None, **auth).get_backend()
    return IQMServerBackend(device, url=url, secret=auth.get("token"), name=name, **options)
