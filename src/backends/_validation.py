"""Checks of circuits that only backends need; the generic checks are in :mod:`backends.utils.validation`."""

from __future__ import annotations

import cmath
from collections.abc import Iterable, Sequence
from numbers import Number

from qiskit import QuantumCircuit

from backends.errors import CircuitTooWideError, InvalidParameterError
from backends.utils.validation import check_positive_int

__all__ = ["check_circuits", "check_shots", "check_width"]


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
        or holds a circuit without any measurement, with unbound parameters, or with
        a gate angle that is NaN or infinite.
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
        if circuit.parameters:
            raise InvalidParameterError(
                f"circuits[{index}] ('{circuit.name}') must have all parameters bound, "
                f"got unbound {sorted(p.name for p in circuit.parameters)}"
            )
        _check_finite_angles(circuit, index)
    return batch


def _check_finite_angles(circuit: QuantumCircuit, index: int) -> None:
    """Raise if a gate of ``circuit`` (``circuits[index]``) has a NaN or infinite numeric parameter."""
    for instruction in circuit.data:
        for value in instruction.operation.params:
            if isinstance(value, Number) and not _finite(value):
                raise InvalidParameterError(
                    f"circuits[{index}] ('{circuit.name}') has a non-finite parameter {value!r} in its "
                    f"'{instruction.operation.name}' gate; bind finite parameter values"
                )


def _finite(value: Number) -> bool:
    """Whether a number (real or complex) is finite."""
    try:
        return cmath.isfinite(value)  # type: ignore[arg-type]
    except (TypeError, OverflowError):  # an int too large for a float is finite
        return True


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


def check_shots(shots: object, max_shots: int | None, backend_name: str) -> int:
    """Return ``shots`` as an int if it is a positive integer of at most ``max_shots``.

    Parameters
    ----------
    shots : object
        Shots per circuit asked for.
    max_shots : int or None
        The backend's limit; ``None`` for none.
    backend_name : str
        Backend name used in the error message.

    Raises
    ------
    InvalidParameterError
        If ``shots`` is not a positive integer, or exceeds ``max_shots``.
    """
    shots = check_positive_int(shots, "shots")
    if max_shots is not None and shots > max_shots:
        raise InvalidParameterError(
            f"shots must be at most {max_shots} on backend '{backend_name}', got {shots}"
        )
    return shots
