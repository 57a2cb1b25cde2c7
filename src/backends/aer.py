"""Ideal Qiskit Aer simulators (``aer``, ``aer:mps``); ``aer:noisy-<device>`` is in :mod:`backends.iqm`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from qiskit import QuantumCircuit
from qiskit.providers import BackendV2
from qiskit_aer import AerSimulator

from backends.base import MAX_SHOTS, BaseBackend, Execution, counts_from_result
from backends.errors import UnknownBackendError

__all__ = ["AerBackend", "from_spec", "METHODS"]

#: Spec argument -> Aer simulation method of the ideal simulators.
METHODS = {"": "automatic", "mps": "matrix_product_state"}


class AerBackend(BaseBackend):
    """A seeded Aer simulation of circuits transpiled to ``device``.

    Parameters
    ----------
    simulator : qiskit_aer.AerSimulator
        Simulator that executes the circuits (with a noise model for noisy devices).
    device : qiskit.providers.BackendV2 or None, optional
        Device to transpile to; default ``simulator`` itself (no coupling map).
    prepare : callable or None, optional
        Applied to each transpiled circuit before simulation, e.g. to replace device
        gates Aer does not know (IQM's ``move``) by unitaries.
    **options
        ``name``, ``num_qubits``, ``sleep_factor``, ``seed``, ``label`` of
        :class:`~backends.base.BaseBackend`.

    Attributes
    ----------
    max_shots : int
        :data:`~backends.base.MAX_SHOTS`: Aer keeps every shot's outcome in memory.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> from qiskit_aer import AerSimulator
    >>> backend = AerBackend(AerSimulator(), name="my-aer", seed=3)
    >>> circuit = QuantumCircuit(1, 1)
    >>> _ = circuit.x(0)
    >>> _ = circuit.measure(0, 0)
    >>> backend.run(circuit, shots=8), backend.timings[0].label
    ([{'1': 8}], 'my-aer')
    """

    max_shots = MAX_SHOTS

    def __init__(
        self,
        simulator: AerSimulator,
        *,
        device: BackendV2 | None = None,
        prepare: Callable[[QuantumCircuit], QuantumCircuit] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(simulator if device is None else device, **options)
        self.simulator = simulator
        self._prepare = prepare

    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        if self._prepare is not None:
            circuits = [self._prepare(circuit) for circuit in circuits]
        result = self.simulator.run(circuits, shots=shots, seed_simulator=seed).result()
        return Execution(counts_from_result(result, len(circuits)))


def from_spec(argument: str, /, *, name: str, **options: Any) -> AerBackend:
    """Make the Aer backend of spec ``aer[:<argument>]``.

    Parameters
    ----------
    argument : str
        ``""`` (ideal, automatic method) or ``"mps"`` (matrix product state).
        ``aer:noisy-<device>`` is made by :func:`backends.iqm.noisy_aer`.
    name : str
        The full spec, used as backend name.
    **options
        Passed to :class:`AerBackend`.

    Returns
    -------
    AerBackend

    Raises
    ------
    UnknownBackendError
        If ``argument`` is none of the above.

    Examples
    --------
    >>> backend = from_spec("mps", name="aer:mps")
    >>> backend.name, backend.simulator.options.method
    ('aer:mps', 'matrix_product_state')
    """
    if argument in METHODS:
        return AerBackend(AerSimulator(method=METHODS[argument]), name=name, **options)
    raise UnknownBackendError(
        f"unknown Aer simulator {argument!r} in spec {name!r}; valid forms: aer, aer:mps, aer:noisy-<device>"
    )
