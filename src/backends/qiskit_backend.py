"""Any backend as a Qiskit ``BackendV2``: ``get_qiskit_backend(spec).run(circuits, shots=...)``.

.. code-block:: python

    from qiskit import transpile
    from backends import get_qiskit_backend

    backend = get_qiskit_backend("vqpu:http://127.0.0.1:8765")
    job = backend.run(transpile(circuit, backend), shots=1000)
    job.result().get_counts()  # {'00': 497, '11': 503}

:class:`QiskitBackend` wraps any :class:`~backends.base.QuantumBackend`, using only its
``run(circuits, shots, seed)`` and ``num_qubits``, so every registered spec (Aer, IQM,
the vQPU and any later one) is reachable from code written against Qiskit's
``BackendV2``. Its :class:`~qiskit.transpiler.Target` has the wrapped backend's qubits,
all-to-all connectivity and every standard gate: the wrapped backend transpiles for
its device itself, so ``transpile(circuit, qiskit_backend)`` only checks the width and
keeps the circuit's qubit order.

A job's :class:`~qiskit.result.Result` holds per-circuit counts (hexadecimal keys, as
every Qiskit backend; ``get_counts`` separates classical registers by spaces) and, with
``memory=True``, one outcome per shot. The wrapped backends return counts only, so the
per-shot memory is the counts' outcomes in a seeded random order. ``result.timings``
holds the :class:`~backends.timing.TimingRecord` of the execution, which is also
appended to the wrapped backend's ``timings``.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library.standard_gates import get_standard_gate_name_mapping
from qiskit.providers import BackendV2, JobStatus, JobV1, Options
from qiskit.result import Result
from qiskit.result.models import ExperimentResult, ExperimentResultData
from qiskit.transpiler import Target

from backends._validation import check_circuits, check_shots
from backends.base import QuantumBackend
from backends.registry import get_backend
from backends.timing import record_timings
from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_random_state, check_seed

__all__ = ["QiskitBackend", "QiskitJob", "get_qiskit_backend"]

#: Options of :meth:`QiskitBackend.run` and their defaults.
RUN_OPTIONS = {"shots": 1024, "memory": False, "seed_simulator": None}


class QiskitJob(JobV1):
    """The job of one :meth:`QiskitBackend.run` call, executed on a thread of its own.

    The thread runs in a copy of the submitting context, so a
    :func:`~backends.timing.record_timings` block around ``run(...).result()`` gets the
    job's timing record.

    Parameters
    ----------
    backend : QiskitBackend
        The backend that made the job.
    job_id : str
        Unique id.
    function : callable
        Called without arguments on the job's thread; returns the job's ``Result``.

    Examples
    --------
    >>> from qiskit import QuantumCircuit
    >>> circuit = QuantumCircuit(1, 1)
    >>> _ = circuit.x(0)
    >>> _ = circuit.measure(0, 0)
    >>> job = get_qiskit_backend("aer", seed=1).run(circuit, shots=5)
    >>> isinstance(job, QiskitJob), job.result().get_counts()
    (True, {'1': 5})
    """

    def __init__(self, backend: QiskitBackend, job_id: str, function: Callable[[], Result]) -> None:
        super().__init__(backend, job_id)
        self._function = function
        self._future: Future[Result] | None = None

    def submit(self) -> None:
        """Start the job (once; :meth:`QiskitBackend.run` does it).

        Raises
        ------
        InvalidParameterError
            If the job was submitted already.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(1, 1)
        >>> _ = circuit.measure(0, 0)
        >>> job = get_qiskit_backend("aer", seed=1).run(circuit, shots=5)
        >>> job.submit()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        backends.utils.errors.InvalidParameterError: job ... was submitted already, got a second submit()
        """
        if self._future is not None:
            raise InvalidParameterError(f"job {self.job_id()} was submitted already, got a second submit()")
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"qiskit-job-{self.job_id()}")
        self._future = executor.submit(contextvars.copy_context().run, self._function)
        executor.shutdown(wait=False)

    def _submitted(self) -> Future[Result]:
        if self._future is None:
            raise InvalidParameterError(f"job {self.job_id()} must be submitted first, got no submit()")
        return self._future

    def result(self, timeout: float | None = None) -> Result:
        """Wait for the job and return its ``Result`` (or raise what the execution raised).

        Parameters
        ----------
        timeout : float or None, optional
            Seconds to wait; ``None`` (default) waits until the job ends.

        Returns
        -------
        qiskit.result.Result

        Raises
        ------
        TimeoutError
            If the job has not ended within ``timeout`` seconds.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(2, 2)
        >>> _ = circuit.x(1)
        >>> _ = circuit.measure([0, 1], [0, 1])
        >>> get_qiskit_backend("aer", seed=1).run(circuit, shots=7).result(timeout=60).get_counts()
        {'10': 7}
        """
        return self._submitted().result(timeout)

    def cancel(self) -> bool:
        """Cancel the job if it has not started; return whether it was cancelled.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(1, 1)
        >>> _ = circuit.measure(0, 0)
        >>> job = get_qiskit_backend("aer", seed=1).run(circuit, shots=5)
        >>> _ = job.result()
        >>> job.cancel()
        False
        """
        return self._submitted().cancel()

    def status(self) -> JobStatus:
        """Return ``QUEUED``, ``RUNNING``, ``CANCELLED``, ``ERROR`` or ``DONE``.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(1, 1)
        >>> _ = circuit.measure(0, 0)
        >>> job = get_qiskit_backend("aer", seed=1).run(circuit, shots=5)
        >>> _ = job.result()
        >>> job.status().name
        'DONE'
        """
        future = self._submitted()
        if future.cancelled():
            return JobStatus.CANCELLED
        if future.running():
            return JobStatus.RUNNING
        if not future.done():
            return JobStatus.QUEUED
        return JobStatus.ERROR if future.exception() is not None else JobStatus.DONE


class QiskitBackend(BackendV2):
    """A :class:`~backends.base.QuantumBackend` as a Qiskit ``BackendV2``.

    Parameters
    ----------
    backend : QuantumBackend
        The backend that executes the circuits.
    seed : int or None, optional
        Seed of the generator that draws each run's seed when the run gives no
        ``seed_simulator``; drawn when ``run`` is called, so jobs that run at once (as
        Qiskit's primitives submit them) stay reproducible. Default ``None``.

    Attributes
    ----------
    backend : QuantumBackend
        The wrapped backend; its ``timings`` hold one record per job.

    Raises
    ------
    InvalidParameterError
        If ``backend`` is not a ``QuantumBackend`` or ``seed`` is invalid.

    Examples
    --------
    >>> from qiskit import QuantumCircuit, transpile
    >>> qiskit_backend = get_qiskit_backend("aer", seed=3)
    >>> circuit = QuantumCircuit(2, 2)
    >>> _ = circuit.x(1)
    >>> _ = circuit.measure([0, 1], [0, 1])
    >>> qiskit_backend.run(transpile(circuit, qiskit_backend), shots=5).result().get_counts()
    {'10': 5}
    """

    def __init__(self, backend: QuantumBackend, *, seed: int | None = None) -> None:
        if not isinstance(backend, QuantumBackend):
            raise InvalidParameterError(f"backend must be a QuantumBackend, got {type(backend).__name__}")
        super().__init__(name=backend.name, description=f"{backend.name} through backends.QuantumBackend")
        self.backend = backend
        self._rng = check_random_state(check_seed(seed))
        self._target = Target.from_configuration(
            basis_gates=list(get_standard_gate_name_mapping()), num_qubits=backend.num_qubits
        )
        self._target.description = f"{backend.name}: {backend.num_qubits} qubits, all-to-all, standard gates"

    def __repr__(self) -> str:
        return f"QiskitBackend({self.backend!r})"

    @property
    def target(self) -> Target:
        """The wrapped backend's qubits, all-to-all, every standard gate."""
        return self._target

    @property
    def max_circuits(self) -> int | None:
        """Most circuits per job: the wrapped backend's ``max_circuits`` if it has one, else ``None``."""
        return getattr(self.backend, "max_circuits", None)

    @classmethod
    def _default_options(cls) -> Options:
        return Options(**RUN_OPTIONS)

    def run(self, run_input: QuantumCircuit | Sequence[QuantumCircuit], **options: Any) -> QiskitJob:
        """Submit circuits; return the (already running) job.

        Parameters
        ----------
        run_input : QuantumCircuit or sequence of QuantumCircuit
            Measured circuits with all parameters bound, in any standard gates.
        **options
            ``shots`` (per circuit, default 1024), ``memory`` (per-shot outcomes in the
            result, default ``False``), ``seed_simulator`` (seed of this run's sampling
            and memory order, default drawn from ``seed``).

        Returns
        -------
        QiskitJob

        Raises
        ------
        InvalidParameterError
            If an option is unknown or out of range (``shots`` above the wrapped
            backend's ``max_shots``), or a circuit is unmeasured or has unbound or
            non-finite parameters (nothing is submitted).

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(1, 1)
        >>> _ = circuit.x(0)
        >>> _ = circuit.measure(0, 0)
        >>> result = get_qiskit_backend("aer", seed=1).run(circuit, shots=3, memory=True).result()
        >>> result.get_counts(), result.get_memory()
        ({'1': 3}, ['1', '1', '1'])
        """
        unknown = sorted(set(options) - set(RUN_OPTIONS))
        if unknown:
            raise InvalidParameterError(
                f"run options must be among {sorted(RUN_OPTIONS)}, got {unknown} (backend '{self.name}')"
            )
        settings = {name: options.get(name, getattr(self.options, name)) for name in RUN_OPTIONS}
        circuits = check_circuits(run_input)  # measured, parameters bound and finite
        shots = check_shots(settings["shots"], getattr(self.backend, "max_shots", None), self.name)
        seed = check_seed(settings["seed_simulator"], "seed_simulator")
        if seed is None:
            seed = int(self._rng.integers(2**31))
        memory = bool(settings["memory"])
        job_id = uuid.uuid4().hex
        job = QiskitJob(self, job_id, lambda: self._execute(job_id, circuits, shots, seed, memory))
        job.submit()
        return job

    def _execute(
        self, job_id: str, circuits: list[QuantumCircuit], shots: int, seed: int, memory: bool
    ) -> Result:
        """Run ``circuits`` on the wrapped backend and return a Qiskit ``Result``."""
        with record_timings() as timings:
            counts = self.backend.run(circuits, shots, seed)
        rng = np.random.default_rng(seed)
        return Result(
            backend_name=self.name,
            backend_version=str(self.backend_version),
            job_id=job_id,
            success=True,
            results=[
                experiment_result(circuit, circuit_counts, shots, rng if memory else None)
                for circuit, circuit_counts in zip(circuits, counts, strict=True)
            ],
            time_taken=sum(record.quantum_seconds for record in timings),
            timings=timings,
        )


def experiment_result(
    circuit: QuantumCircuit, counts: dict[str, int], shots: int, rng: np.random.Generator | None
) -> ExperimentResult:
    """Return the Qiskit ``ExperimentResult`` of one circuit's counts.

    Parameters
    ----------
    circuit : QuantumCircuit
        The executed circuit (its name, clbits and registers go to the header).
    counts : dict of str to int
        Outcome (all clbits, clbit 0 rightmost, no spaces) -> count.
    shots : int
        Shots of the execution.
    rng : numpy.random.Generator or None
        Order of the per-shot memory; ``None`` for no memory.

    Returns
    -------
    qiskit.result.models.ExperimentResult
        ``data.counts`` keyed by hexadecimal outcomes, ``data.memory`` one hexadecimal
        outcome per shot if ``rng`` is given.

    Examples
    --------
    >>> from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
    >>> circuit = QuantumCircuit(QuantumRegister(3), ClassicalRegister(1, "a"), ClassicalRegister(2, "b"))
    >>> result = experiment_result(circuit, {"101": 2, "010": 1}, 3, np.random.default_rng(0))
    >>> result.data.counts, sorted(result.data.memory)
    ({'0x5': 2, '0x2': 1}, ['0x2', '0x5', '0x5'])
    >>> Result(results=[result], backend_name="b", backend_version="1", job_id="j", success=True).get_counts()
    {'10 1': 2, '01 0': 1}
    """
    hex_counts = {hex(int(bits, 2)): count for bits, count in counts.items()}
    memory = None
    if rng is not None:
        memory = rng.permutation(np.repeat(list(hex_counts), list(hex_counts.values()))).tolist()
    data = ExperimentResultData(counts=hex_counts, memory=memory)
    header: dict[str, Any] = {
        "name": circuit.name,
        "memory_slots": circuit.num_clbits,
        "n_qubits": circuit.num_qubits,
        "metadata": circuit.metadata,
    }
    if sum(register.size for register in circuit.cregs) == circuit.num_clbits:
        # The registers partition the clbits: get_counts shows them separated by spaces.
        header["creg_sizes"] = [[register.name, register.size] for register in circuit.cregs]
    return ExperimentResult(shots=shots, success=True, data=data, header=header)


def get_qiskit_backend(spec: str | QuantumBackend, **options: Any) -> QiskitBackend:
    """Make the backend named by ``spec`` and return it as a Qiskit ``BackendV2``.

    Parameters
    ----------
    spec : str or QuantumBackend
        Any spec :func:`~backends.registry.get_backend` accepts, or a backend.
    **options
        As for :func:`~backends.registry.get_backend`; ``seed`` also seeds the seeds of
        runs that give no ``seed_simulator`` (see :class:`QiskitBackend`).

    Returns
    -------
    QiskitBackend

    Raises
    ------
    UnknownBackendError, BackendUnavailableError, InvalidParameterError
        As :func:`~backends.registry.get_backend`.

    Examples
    --------
    >>> from qiskit import QuantumCircuit, transpile
    >>> backend = get_qiskit_backend("aer", seed=1)
    >>> circuit = QuantumCircuit(2, 2)
    >>> _ = circuit.h(0)
    >>> _ = circuit.cx(0, 1)
    >>> _ = circuit.measure([0, 1], [0, 1])
    >>> counts = backend.run(transpile(circuit, backend), shots=50).result().get_counts()
    >>> sorted(counts), sum(counts.values())
    (['00', '11'], 50)
    """
    return QiskitBackend(get_backend(spec, **options), seed=options.get("seed"))
