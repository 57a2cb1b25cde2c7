"""Checks of circuits that only backends need; the generic checks are in :mod:`backends.validation`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from qiskit import QuantumCircuit

from backends.errors import CircuitTooWideError, InvalidParameterError

__all__ = ["check_circuits", "check_width"]


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
