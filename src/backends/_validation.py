"""Argument checks shared by every backend.

Each check returns the normalised value or raises with a message that names the
parameter, what was expected and what was given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from numbers import Integral, Real

from qiskit import QuantumCircuit

from backends.errors import CircuitTooWideError, InvalidParameterError

__all__ = [
    "check_positive_int",
    "check_sleep_factor",
    "check_seed",
    "check_circuits",
    "check_width",
]


def _is_int(value: object) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_positive_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= 1.

    Parameters
    ----------
    name : str
        Parameter name used in the error message.
    value : object
        Value to check.

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        If ``value`` is not an integer or is < 1.
    """
    if not _is_int(value) or value < 1:
        raise InvalidParameterError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_sleep_factor(sleep_factor: object) -> float:
    """Return the sleep factor alpha as a ``float`` if it is finite and >= 0.

    Raises
    ------
    InvalidParameterError
        If ``sleep_factor`` is not a real number, is negative, or is not finite.
    """
    if (
        not isinstance(sleep_factor, Real)
        or isinstance(sleep_factor, bool)
        or not math.isfinite(sleep_factor)
        or sleep_factor < 0
    ):
        raise InvalidParameterError(f"sleep_factor must be a finite number >= 0, got {sleep_factor!r}")
    return float(sleep_factor)


def check_seed(seed: object) -> int | None:
    """Return ``seed`` if it is ``None`` or an integer >= 0.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is neither ``None`` nor a non-negative integer.
    """
    if seed is None:
        return None
    if not _is_int(seed) or seed < 0:
        raise InvalidParameterError(f"seed must be None or an int >= 0, got {seed!r}")
    return int(seed)


def check_circuits(circuits: QuantumCircuit | Sequence[QuantumCircuit]) -> list[QuantumCircuit]:
    """Return the circuits as a non-empty list of measured circuits.

    Parameters
    ----------
    circuits : QuantumCircuit or sequence of QuantumCircuit
        One circuit or several.

    Returns
    -------
    list of QuantumCircuit
        The same circuit objects (not copies).

    Raises
    ------
    InvalidParameterError
        If ``circuits`` is empty, holds something that is not a ``QuantumCircuit``,
        or holds a circuit without any measurement.
    """
    if isinstance(circuits, QuantumCircuit):
        circuits = [circuits]
    elif not isinstance(circuits, Iterable) or isinstance(circuits, str):
        raise InvalidParameterError(
            f"circuits must be a QuantumCircuit or a sequence of them, got {type(circuits).__name__}"
        )
    batch = list(circuits)
    if not batch:
        raise InvalidParameterError("circuits must hold at least one QuantumCircuit, got an empty sequence")
    for index, circuit in enumerate(batch):
        if not isinstance(circuit, QuantumCircuit):
            raise InvalidParameterError(
                f"circuits[{index}] must be a QuantumCircuit, got {type(circuit).__name__}"
            )
        if "measure" not in circuit.count_ops():
            raise InvalidParameterError(
                f"circuits[{index}] ('{circuit.name}') has no measurements; "
                "add measure() or measure_all() so that counts can be returned"
            )
    return batch


def check_width(circuits: Iterable[QuantumCircuit], num_qubits: int, backend_name: str) -> None:
    """Raise if any circuit needs more qubits than the backend has.

    Parameters
    ----------
    circuits : iterable of QuantumCircuit
        Circuits about to be submitted.
    num_qubits : int
        Number of qubits of the backend.
    backend_name : str
        Backend name used in the error message.

    Raises
    ------
    CircuitTooWideError
        For the first circuit wider than ``num_qubits``.
    """
    for circuit in circuits:
        if circuit.num_qubits > num_qubits:
            raise CircuitTooWideError(
                f"circuit '{circuit.name}' needs {circuit.num_qubits} qubits but backend "
                f"'{backend_name}' has {num_qubits}; lower --max-qubits or use circuit cutting "
                "(cutting.cut_qaoa)"
            )
