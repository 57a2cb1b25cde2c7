"""The :class:`QuantumBackend` protocol and :class:`BaseBackend`, which implements it once.

A concrete backend subclasses :class:`BaseBackend` and implements only
:meth:`BaseBackend._execute`, the device-specific step. Everything else — input
checks, the width check, transpilation, timing records and the sleep factor — is
done here.

Bitstrings: counts are keyed by bitstrings over all classical bits of a circuit, in
qiskit order (clbit 0 is the rightmost character), without spaces between registers.
"""

from __future__ import annotations

import functools
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np
from qiskit import QuantumCircuit
from qiskit.providers import BackendV2
from qiskit.result import Result
from qiskit.transpiler import StagedPassManager, generate_preset_pass_manager

from backends._validation import check_circuits, check_shots, check_width
from backends.timing import TimingRecord, publish
from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_nonnegative, check_positive_int, check_seed

__all__ = [
    "QuantumBackend",
    "BaseBackend",
    "Execution",
    "Run",
    "counts_from_result",
    "MAX_SHOTS",
    "MAX_TIMINGS",
]

#: Shots per circuit that the local simulators (``aer``, ``null``) accept at most: Aer keeps
#: every shot's outcome, so 10**7 shots of a 2-qubit circuit already take a gigabyte.
MAX_SHOTS = 1_000_000

#: Records a backend keeps in ``timings`` at least; beyond twice as many the oldest are
#: dropped, so a long-running process (a vQPU server) does not grow without bound.
MAX_TIMINGS = 100_000


@runtime_checkable
class QuantumBackend(Protocol):
    """What the rest of the project may use of a quantum backend.

    Attributes
    ----------
    name : str
        Backend name, by default the spec it was made from (``"aer:noisy-adonis"``).
    num_qubits : int
        Widest circuit the backend accepts.
    timings : list of TimingRecord
        One record per execution (one :meth:`run` call), oldest first; a long-running
        backend may keep only the most recent ones (at least :data:`MAX_TIMINGS`).
        Totals of a piece of work come from :func:`~backends.timing.record_timings`.

    Examples
    --------
    >>> from backends import get_backend
    >>> backend = get_backend("aer", seed=1)
    >>> isinstance(backend, QuantumBackend), backend.num_qubits >= 5
    (True, True)
    """

    name: str
    num_qubits: int
    timings: list[TimingRecord]

    def run(
        self,
        circuits: QuantumCircuit | Sequence[QuantumCircuit],
        shots: int,
        seed: int | None = None,
    ) -> list[dict[str, int]]:
        """Execute circuits and return one counts dict per circuit.

        Parameters
        ----------
        circuits : QuantumCircuit or sequence of QuantumCircuit
            Measured circuits in the caller's qubit and clbit order.
        shots : int
            Shots per circuit, >= 1.
        seed : int or None, optional
            Sampling seed of this call, for simulators that take one; ``None`` draws
            one from the backend's seed.

        Returns
        -------
        list of dict of str to int
            ``counts[i][bits]`` is how often circuit ``i`` gave ``bits``; ``bits`` covers
            all classical bits of the circuit, clbit 0 rightmost, no spaces.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends import get_backend
        >>> circuit = QuantumCircuit(2, 2)
        >>> _ = circuit.x(0)
        >>> _ = circuit.measure([0, 1], [0, 1])
        >>> get_backend("aer", seed=1).run(circuit, shots=16)
        [{'01': 16}]
        """
        ...


class Run(NamedTuple):
    """What :meth:`BaseBackend.execute` returns: the counts and the timing of one execution.

    Attributes
    ----------
    counts : list of dict of str to int
        One counts dict per circuit, keyed as in :meth:`QuantumBackend.run`.
    timing : TimingRecord
        The record of this execution (also appended to the backend's ``timings``).

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> from backends import get_backend
    >>> circuit = QuantumCircuit(1, 1)
    >>> _ = circuit.measure(0, 0)
    >>> counts, timing = get_backend("aer", seed=1).execute(circuit, shots=4)
    >>> counts, timing.shots
    ([{'0': 4}], 4)
    """

    counts: list[dict[str, int]]
    timing: TimingRecord


class Execution(NamedTuple):
    """What :meth:`BaseBackend._execute` returns.

    Attributes
    ----------
    counts : list of dict of str to int
        One counts dict per circuit, keyed as in :meth:`QuantumBackend.run`.
    window : tuple of (float, float) or None
        ``(started, ended)`` in Unix epoch seconds as reported by the device, or
        ``None`` when it reports nothing (the wall time of the execution is used).

    Examples
    --------
    >>> execution = Execution([{"0": 3, "1": 1}])
    >>> execution.counts, execution.window
    ([{'0': 3, '1': 1}], None)
    """

    counts: list[dict[str, int]]
    window: tuple[float, float] | None = None


def counts_from_result(result: Result, num_circuits: int) -> list[dict[str, int]]:
    """Return the counts of every experiment in a qiskit ``Result``, without register spaces.

    Parameters
    ----------
    result : qiskit.result.Result
        Result holding ``num_circuits`` experiments.
    num_circuits : int
        Number of experiments.

    Returns
    -------
    list of dict of str to int

    Examples
    --------
    >>> from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
    >>> from qiskit_aer import AerSimulator
    >>> circuit = QuantumCircuit(QuantumRegister(2), ClassicalRegister(1), ClassicalRegister(1))
    >>> _ = circuit.x(1)
    >>> _ = circuit.measure([0, 1], [0, 1])
    >>> result = AerSimulator().run(circuit, shots=5, seed_simulator=1).result()
    >>> result.get_counts(0), counts_from_result(result, 1)
    ({'1 0': 5}, [{'10': 5}])
    """
    return [
        {bits.replace(" ", ""): int(count) for bits, count in result.get_counts(index).items()}
        for index in range(num_circuits)
    ]


class BaseBackend(ABC):
    """Shared behaviour of every backend; subclasses implement :meth:`_execute`.

    Parameters
    ----------
    device : qiskit.providers.BackendV2
        Device whose native gates and coupling map circuits are transpiled to.
    name : str
        Backend name, used in error messages.
    num_qubits : int or None, optional
        Accept circuits of at most this many qubits (at most the device's qubits);
        ``None`` (default) means all of the device's qubits.
    sleep_factor : float, optional
        alpha >= 0: after each execution the caller sleeps alpha times the execution's
        quantum seconds, emulating classical work between quantum calls. Default 0.
    seed : int or None, optional
        Transpiler seed, and seed of the generator that draws per-run simulator seeds,
        so a sequence of runs is reproducible while successive runs differ. Default
        ``None``.
    label : str or None, optional
        Label of the timing records; default ``name``.

    Attributes
    ----------
    max_shots : int or None
        Most shots per circuit :meth:`execute` accepts; ``None`` (the default of this
        class) leaves the limit to the device. Subclasses set it as a class attribute.

    Raises
    ------
    InvalidParameterError
        If an argument is out of range.

    Examples
    --------
    >>> from backends import get_backend
    >>> backend = get_backend("aer", seed=2, sleep_factor=0.0, num_qubits=4)
    >>> isinstance(backend, BaseBackend), backend.num_qubits
    (True, 4)
    """

    max_shots: int | None = None

    def __init__(
        self,
        device: BackendV2,
        *,
        name: str,
        num_qubits: int | None = None,
        sleep_factor: float = 0.0,
        seed: int | None = None,
        label: str | None = None,
    ) -> None:
        self.device = device
        self.name = name
        self.num_qubits = device.num_qubits if num_qubits is None else self._check_cap(num_qubits)
        self.sleep_factor = check_nonnegative(sleep_factor, "sleep_factor")
        self.seed = check_seed(seed)
        self.label = name if label is None else label
        self.timings: list[TimingRecord] = []
        self._rng = np.random.default_rng(self.seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, num_qubits={self.num_qubits})"

    def _check_cap(self, num_qubits: object) -> int:
        num_qubits = check_positive_int(num_qubits, "num_qubits")
        if num_qubits > self.device.num_qubits:
            raise InvalidParameterError(
                f"num_qubits must be <= {self.device.num_qubits} (the qubits of backend "
                f"'{self.name}'), got {num_qubits}"
            )
        return num_qubits

    @functools.cached_property
    def _pass_manager(self) -> StagedPassManager:
        # Built once: generating a preset pass manager loads every transpiler plugin.
        return generate_preset_pass_manager(backend=self.device, seed_transpiler=self.seed)

    def transpile(self, circuits: QuantumCircuit | Sequence[QuantumCircuit]) -> list[QuantumCircuit]:
        """Transpile circuits to the device's native gates and coupling map (seeded by ``seed``).

        Measurements keep writing the caller's clbits, so counts of the transpiled
        circuits are keyed in the caller's qubit order.

        Parameters
        ----------
        circuits : QuantumCircuit or sequence of QuantumCircuit
            Measured circuits no wider than :attr:`num_qubits`.

        Returns
        -------
        list of QuantumCircuit

        Raises
        ------
        InvalidParameterError
            If the circuits are invalid.
        CircuitTooWideError
            If a circuit is wider than :attr:`num_qubits`.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends import get_backend
        >>> circuit = QuantumCircuit(2, 2)
        >>> _ = circuit.h(0)
        >>> _ = circuit.cx(0, 1)
        >>> _ = circuit.measure([0, 1], [0, 1])
        >>> [native] = get_backend("aer", seed=1).transpile(circuit)
        >>> native.num_clbits
        2
        """
        batch = check_circuits(circuits)
        check_width(batch, self.num_qubits, self.name)
        return self._pass_manager.run(batch) if self._needs_transpile(batch) else batch

    def _needs_transpile(self, circuits: list[QuantumCircuit]) -> bool:
        """Whether the circuits need the transpiler.

        Not when the device has no coupling map and supports every instruction:
        skipping the pass manager then also skips loading every transpiler plugin
        (the IQM one alone costs seconds per process).
        """
        target = self.device.target
        if target.build_coupling_map() is not None:
            return True
        supported = set(target.operation_names) | {"barrier"}
        return any(op.operation.name not in supported for circuit in circuits for op in circuit.data)

    def run(
        self,
        circuits: QuantumCircuit | Sequence[QuantumCircuit],
        shots: int,
        seed: int | None = None,
    ) -> list[dict[str, int]]:
        """Check, transpile and execute circuits; record timing; sleep.

        See :meth:`QuantumBackend.run` for parameters and return value, and
        :meth:`execute` for the same call returning its timing record too.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends import get_backend
        >>> circuit = QuantumCircuit(2, 2)
        >>> _ = circuit.h(0)
        >>> _ = circuit.cx(0, 1)
        >>> _ = circuit.measure([0, 1], [0, 1])
        >>> backend = get_backend("aer", seed=1)
        >>> [counts] = backend.run(circuit, shots=100)
        >>> sorted(counts), sum(counts.values()), len(backend.timings)
        (['00', '11'], 100, 1)
        """
        return self.execute(circuits, shots, seed).counts

    def execute(
        self,
        circuits: QuantumCircuit | Sequence[QuantumCircuit],
        shots: int,
        seed: int | None = None,
    ) -> Run:
        """Check, transpile and execute circuits; sleep; return the counts and this run's timing.

        The record is also appended to :attr:`timings` and handed to every
        :func:`~backends.timing.record_timings` block open in the calling context, so
        concurrent callers of one backend each see only their own executions.

        Parameters
        ----------
        circuits, shots, seed
            As in :meth:`QuantumBackend.run`.

        Returns
        -------
        Run

        Raises
        ------
        InvalidParameterError
            If ``circuits``, ``shots`` or ``seed`` is invalid, or ``shots`` exceeds
            :attr:`max_shots` (nothing is submitted).
        CircuitTooWideError
            If a circuit is wider than :attr:`num_qubits` (nothing is submitted).

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> from backends import get_backend
        >>> circuit = QuantumCircuit(1, 1)
        >>> _ = circuit.x(0)
        >>> _ = circuit.measure(0, 0)
        >>> backend = get_backend("aer", seed=1)
        >>> run = backend.execute([circuit, circuit], shots=10)
        >>> run.counts, run.timing.circuits, backend.timings == [run.timing]
        ([{'1': 10}, {'1': 10}], 2, True)
        """
        shots = check_shots(shots, self.max_shots, self.name)
        seed = check_seed(seed)
        native = self.transpile(circuits)
        sampling_seed = int(self._rng.integers(2**31)) if seed is None else seed

        submitted = time.time()
        tic = time.perf_counter()
        execution = self._execute(native, shots, sampling_seed)
        started, ended = execution.window or (submitted, submitted + time.perf_counter() - tic)

        quantum_seconds = ended - started
        sleep_seconds = self.sleep_factor * quantum_seconds
        if sleep_seconds > 0:  # time.sleep(0) still costs a system call
            time.sleep(sleep_seconds)
        record = TimingRecord(
            label=self.label,
            submitted=submitted,
            started=started,
            ended=ended,
            quantum_seconds=quantum_seconds,
            queue_seconds=max(0.0, started - submitted),
            sleep_seconds=sleep_seconds,
            circuits=len(native),
            shots=shots,
        )
        self.timings.append(record)
        if len(self.timings) > 2 * MAX_TIMINGS:  # dropped in bulk: amortised O(1) per record
            del self.timings[:-MAX_TIMINGS]
        publish(record)
        return Run(execution.counts, record)

    @abstractmethod
    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        """Run already transpiled circuits on the device.

        Parameters
        ----------
        circuits : list of QuantumCircuit
            Circuits in the device's native gates, one or more.
        shots : int
            Shots per circuit.
        seed : int
            Simulator seed, for devices that take one.

        Returns
        -------
        Execution
            Counts per circuit and, if the device reports them, its execution timestamps.
        """
