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
:class:`InvalidParameterError` and the checks of :mod:`backends.validation`.
"""

from backends.base import BaseBackend, Execution, QuantumBackend, Run
from backends.errors import (
    BackendConnectionError,
    BackendError,
    BackendUnavailableError,
    CircuitTooWideError,
    InvalidParameterError,
    MissingTokenError,
    UnknownBackendError,
)
from backends.qiskit_backend import QiskitBackend, get_qiskit_backend
from backends.qiskit_sampler import Sampler, get_sampler
from backends.registry import BACKENDS, SPEC_FORMS, get_backend, shared_backend
from backends.timing import TimingRecord, read_jsonl, record_timings, summarize, write_jsonl

__all__ = [
    "QuantumBackend",
    "BaseBackend",
    "Execution",
    "Run",
    "get_backend",
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
