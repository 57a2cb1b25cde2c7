"""Backend specs: ``get_backend("aer:noisy-adonis", sleep_factor=1.0)``.

A spec is ``<kind>[:<argument>]``. :data:`BACKENDS` maps each kind to the
``"module:attribute"`` of its factory, imported only when that kind is asked for.
A factory is called as ``factory(argument, name=spec, **options)`` and returns a
:class:`~backends.base.QuantumBackend`; a class whose ``__init__`` has that signature
is a factory too. Adding a backend is one entry here.
"""

from __future__ import annotations

import importlib

from backends.base import QuantumBackend
from backends.errors import BackendUnavailableError, InvalidParameterError, UnknownBackendError

__all__ = ["BACKENDS", "SPEC_FORMS", "get_backend"]

#: Spec kind -> ``"module:attribute"`` of the factory.
BACKENDS: dict[str, str] = {
    "aer": "backends.aer:from_spec",
    "iqm-fake": "backends.iqm:fake_from_spec",
    "iqm": "backends.iqm:server_from_spec",
    "vqpu": "backends.vqpu.client:VQPUBackend",
}

#: The spec forms, for documentation and error messages.
SPEC_FORMS = (
    "aer",
    "aer:mps",
    "aer:noisy-<device>",
    "iqm-fake:<device>",
    "iqm:<server url>[#<quantum computer>]",
    "vqpu:<http://host:port>",
)


def _load_factory(kind: str, spec: str):
    module_name, _, attribute = BACKENDS[kind].partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise BackendUnavailableError(
            f"backend spec {spec!r} needs {BACKENDS[kind]}, which cannot be imported: {exc}"
        ) from exc


def get_backend(spec: str | QuantumBackend, **options) -> QuantumBackend:
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
    if isinstance(spec, QuantumBackend):
        if options:
            raise InvalidParameterError(
                f"options {sorted(options)} apply to spec strings only, got a backend instance {spec!r}"
            )
        return spec
    kind, _, argument = spec.partition(":") if isinstance(spec, str) else (None, "", "")
    if kind not in BACKENDS:
        raise UnknownBackendError(f"unknown backend spec {spec!r}; valid forms: {', '.join(SPEC_FORMS)}")
    return _load_factory(kind, spec)(argument, name=spec, **options)
