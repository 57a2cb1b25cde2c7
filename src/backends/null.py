"""The ``null`` backend: no simulation, uniformly random counts, zero quantum time.

For measuring everything around a device (the vQPU server, clients, samplers)
without the device: a batch costs only drawing its counts, and every execution
reports an empty execution window, so its quantum seconds are 0.

>>> from qiskit import QuantumCircuit
>>> from backends import get_backend
>>> circuit = QuantumCircuit(3, 2)
>>> _ = circuit.h(0)
>>> _ = circuit.measure([0, 1], [0, 1])
>>> backend = get_backend("null", seed=1)
>>> counts = backend.run(circuit, shots=100)[0]
>>> sum(counts.values()), sorted({len(bits) for bits in counts})
(100, [2])
>>> backend.timings[0].quantum_seconds
0.0
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from qiskit import QuantumCircuit

from backends.base import MAX_SHOTS, BaseBackend, Execution
from backends.errors import UnknownBackendError

__all__ = ["NullBackend", "NullDevice", "from_spec"]

#: Qubits of ``null`` without an argument: wide enough for any workload of the project.
DEFAULT_QUBITS = 64


@dataclass(frozen=True)
class NullDevice:
    """A device that only has a width; nothing is transpiled for it.

    Examples
    --------
    >>> NullBackend(width=5).device.num_qubits
    5
    """

    name: str
    num_qubits: int


class NullBackend(BaseBackend):
    """Counts drawn uniformly at random over all classical bits of each circuit; nothing is simulated.

    Parameters
    ----------
    width : int, optional
        Qubits of the device, default 64.
    **options
        ``name`` (default ``"null"``), ``num_qubits`` (a cap, at most ``width``),
        ``sleep_factor``, ``seed``, ``label`` of :class:`~backends.base.BaseBackend`.

    Attributes
    ----------
    max_shots : int
        :data:`~backends.base.MAX_SHOTS`: the outcomes are drawn one by one in memory.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> circuit = QuantumCircuit(2, 2)
    >>> _ = circuit.measure([0, 1], [0, 1])
    >>> counts = NullBackend(width=2, seed=3).run(circuit, shots=50)[0]
    >>> sum(counts.values()), set(counts) <= {"00", "01", "10", "11"}
    (50, True)
    """

    max_shots = MAX_SHOTS

    def __init__(self, *, width: int = DEFAULT_QUBITS, **options: Any) -> None:
        name = options.setdefault("name", "null")
        super().__init__(NullDevice(name, width), **options)

    def _needs_transpile(self, circuits: list[QuantumCircuit]) -> bool:
        """Never: the null device accepts any instruction on any qubits."""
        return False

    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        now = time.time()
        rng = np.random.default_rng(seed)
        return Execution([random_counts(circuit.num_clbits, shots, rng) for circuit in circuits], (now, now))


def random_counts(width: int, shots: int, rng: np.random.Generator) -> dict[str, int]:
    """Counts of ``shots`` bitstrings of ``width`` bits drawn uniformly at random.

    Parameters
    ----------
    width : int
        Bits per outcome (classical bits of the circuit), >= 0.
    shots : int
        Outcomes drawn, >= 1.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    dict of str to int
        Bitstring (``width`` characters of ``0``/``1``, ``""`` for no bits) -> count;
        the counts sum to ``shots``.

    Examples
    --------
    >>> counts = random_counts(3, 1000, np.random.default_rng(0))
    >>> sum(counts.values()), len(counts), sorted(counts)[0]
    (1000, 8, '000')
    """
    if width < 63:  # one integer per outcome
        values, counts = np.unique(rng.integers(0, 2**width, size=shots), return_counts=True)
        keys = [format(int(v), f"0{width}b") if width else "" for v in values]
        return dict(zip(keys, map(int, counts), strict=True))
    bits = rng.integers(0, 2, size=(shots, width), dtype=np.uint8)
    rows, counts = np.unique(bits, axis=0, return_counts=True)
    return {"".join("01"[b] for b in row): int(c) for row, c in zip(rows, counts, strict=True)}


def from_spec(argument: str, /, *, name: str, **options: Any) -> NullBackend:
    """Make the backend of spec ``null[:<qubits>]``.

    Parameters
    ----------
    argument : str
        ``""`` (64 qubits) or a positive number of qubits.
    name : str
        The full spec, used as backend name.
    **options
        Passed to :class:`NullBackend`; ``num_qubits`` caps the width as for every backend.

    Returns
    -------
    NullBackend

    Raises
    ------
    UnknownBackendError
        If ``argument`` is not empty and not a positive integer.

    Examples
    --------
    >>> backend = from_spec("8", name="null:8")
    >>> backend.name, backend.device.num_qubits
    ('null:8', 8)
    >>> from_spec("zero", name="null:zero")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.errors.UnknownBackendError: bad null spec 'null:zero': ...
    """
    if argument == "":
        width = DEFAULT_QUBITS
    elif argument.isdigit() and int(argument) > 0:
        width = int(argument)
    else:
        raise UnknownBackendError(
            f"bad null spec {name!r}: expected 'null' or 'null:<qubits>' with qubits >= 1, got {argument!r}"
        )
    return NullBackend(width=width, name=name, **options)
