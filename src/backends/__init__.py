"""Quantum backends behind one protocol: Aer, IQM (fake devices and servers) and the vQPU.

>>> from backends import get_backend
>>> backend = get_backend("aer", seed=7, sleep_factor=0.5)
>>> isinstance(backend, QuantumBackend)
True

``backend.run(circuits, shots)`` returns one counts dict per circuit, keyed by
bitstrings over all classical bits in qiskit order (clbit 0 rightmost), and appends
one :class:`TimingRecord` to ``backend.timings``; ``backend.execute`` returns the
counts with that record, and :func:`record_timings` collects the records of a block of
code. :func:`get_sampler` and :func:`get_qiskit_backend` make any backend a Qiskit
``SamplerV2`` or ``BackendV2``, so programs written against Qiskit run on it unchanged.
This package is the lowest layer: it imports nothing from ``bbqmis``, ``cutting``
or ``clustagg``, and holds what they all share, the project-wide
:class:`InvalidParameterError` and the checks of :mod:`backends.utils.validation`.
"""

import importlib
from typing import Any

#: Public names, with the module that defines each; imported on first use (PEP 562).
_LAZY = {
    **dict.fromkeys(["BaseBackend", "Execution", "QuantumBackend", "Run"], "backends.base"),
    **dict.fromkeys(
        [
            "BackendConnectionError",
            "BackendError",
            "BackendUnavailableError",
            "CircuitTooWideError",
            "InvalidParameterError",
            "MissingTokenError",
            "UnknownBackendError",
        ],
        "backends.errors",
    ),
    **dict.fromkeys(["QiskitBackend", "get_qiskit_backend"], "backends.qiskit_backend"),
    **dict.fromkeys(["Sampler", "get_sampler"], "backends.qiskit_sampler"),
    **dict.fromkeys(
        ["BACKENDS", "SPEC_FORMS", "check_spec", "get_backend", "shared_backend"], "backends.registry"
    ),
    **dict.fromkeys(
        ["TimingRecord", "read_jsonl", "record_timings", "summarize", "write_jsonl"], "backends.timing"
    ),
}

__all__ = [
    "QuantumBackend",
    "BaseBackend",
    "Execution",
    "Run",
    "get_backend",
    "check_spec",
    "shared_backend",
    "get_sampler",
    "get_qiskit_backend",
    "Sampler",
    "QiskitBackend",
    "record_timings",
    "BACKENDS",
    "SPEC_FORMS",
    "TimingRecord",
    "write_jsonl",
    "read_jsonl",
    "summarize",
    "BackendError",
    "InvalidParameterError",
    "UnknownBackendError",
    "BackendUnavailableError",
    "CircuitTooWideError",
    "MissingTokenError",
    "BackendConnectionError",
]


def __getattr__(name: str) -> Any:
    """Import a lazily loaded public name on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'backends' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Public names, including the lazily loaded ones."""
    return __all__
