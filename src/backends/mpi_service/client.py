"""The ``mpi:`` backend: a client of a quantum service process reached over MPI.

.. code-block:: python

    backend = get_backend("mpi:qpu")  # DPM: look up the service 'qpu' and connect
    backend.run([circuit], shots=1000)  # [{'00': 497, '11': 503}]
    pending = backend.submit([circuit], shots=1000)  # returns at once
    ...  # classical work while the circuits run
    counts = pending.result().counts

Specs: ``mpi:NAME`` connects (``MPI.COMM_SELF.Connect``) to the service published under
``NAME`` (:mod:`backends.mpi_service.names`); ``mpi:world`` talks to the last rank of a
shared ``MPI_COMM_WORLD`` (the quantum component of ``srun --het-group=0,1``), and
``mpi:world:RANK`` to that rank. Checks, timing records and the sleep factor come from
:class:`~backends.base.BaseBackend`; the service's backend transpiles, and its start and
end timestamps are the record's quantum execution.

A client says goodbye to the service when :meth:`MPIServiceBackend.close` is called or,
failing that, when the process exits (before MPI is finalised).
"""

from __future__ import annotations

import atexit
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from qiskit import QuantumCircuit

from backends._validation import check_circuits, check_width
from backends.base import BaseBackend, Execution
from backends.errors import BackendError, InvalidParameterError
from backends.mpi_service import protocol
from backends.mpi_service.names import check_name, lookup
from backends.utils.validation import check_nonnegative, check_positive_int, check_seed
from backends.vqpu.client import RemoteDevice

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["MPIServiceBackend", "PendingRun"]

#: Seconds between two tests of a pending receive: waiting ranks sleep instead of spinning.
POLL_SECONDS = 0.002


def wait(request: MPI.Request, poll: float = POLL_SECONDS) -> Any:
    """Complete ``request`` by testing it every ``poll`` seconds; return the received object.

    MPICH busy-polls in blocking calls, which would take a core from the classical work
    that shares it.
    """
    while True:
        done, message = request.test()
        if done:
            return message
        time.sleep(poll)


class PendingRun:
    """A RUN request on its way: :meth:`done` tests it, :meth:`result` waits for it.

    Parameters
    ----------
    request : mpi4py.MPI.Request
        The non-blocking receive of the service's :class:`~backends.mpi_service.protocol.Reply`.
    service : str
        Backend name, for error messages.

    Examples
    --------
    >>> from backends.mpi_service.protocol import Reply
    >>> class Arrived:  # stands in for an mpi4py request whose reply has arrived
    ...     def __init__(self, reply):
    ...         self.reply = reply
    ...     def test(self):
    ...         return True, self.reply
    >>> pending = PendingRun(Arrived(Reply([{"1": 100}], 5.0, 5.5)), "mpi:qpu")
    >>> pending.done(), pending.result().counts, pending.result().window
    (True, [{'1': 100}], (5.0, 5.5))
    """

    def __init__(self, request: MPI.Request, service: str) -> None:
        self._request = request
        self._service = service
        self._reply: protocol.Reply | None = None

    def done(self) -> bool:
        """Whether the reply has arrived (never blocks).

        Examples
        --------
        >>> class NotYet:  # stands in for an mpi4py request still waiting for its reply
        ...     def test(self):
        ...         return False, None
        >>> PendingRun(NotYet(), "mpi:qpu").done()
        False
        """
        if self._reply is None:
            done, message = self._request.test()
            if done:
                self._reply = message
        return self._reply is not None

    def result(self) -> Execution:
        """Wait for the reply and return its counts and execution window.

        Raises
        ------
        BackendError
            If the service's backend refused or failed the batch.

        Examples
        --------
        >>> from backends.mpi_service.protocol import Reply
        >>> class Arrived:  # stands in for an mpi4py request whose reply has arrived
        ...     def __init__(self, reply):
        ...         self.reply = reply
        ...     def test(self):
        ...         return True, self.reply
        >>> PendingRun(Arrived(Reply([{"0": 10}], 1.0, 2.0)), "mpi:qpu").result().counts
        [{'0': 10}]
        >>> PendingRun(Arrived(Reply([], 1.0, 1.0, "ValueError: bad shots")), "mpi:qpu").result()
        Traceback (most recent call last):
        ...
        backends.errors.BackendError: MPI quantum service 'mpi:qpu' failed the batch: ValueError: bad shots
        """
        if self._reply is None:
            self._reply = wait(self._request)
        reply = self._reply
        if reply.error is not None:
            raise BackendError(f"MPI quantum service {self._service!r} failed the batch: {reply.error}")
        return Execution(reply.counts, (reply.started, reply.ended))


def _parse_target(target: str) -> tuple[str | None, int | None]:
    """``"NAME"`` -> ``("NAME", None)``; ``"world[:RANK]"`` -> ``(None, RANK or -1)``."""
    if target == "world":
        return None, -1
    if target.startswith("world:"):
        text = target.removeprefix("world:")
        if not text.isdigit():
            raise InvalidParameterError(f"spec 'mpi:world:RANK' needs RANK >= 0, got {text!r}")
        return None, int(text)
    return check_name(target), None


class MPIServiceBackend(BaseBackend):
    """A client of the MPI quantum service: ``mpi:NAME``, ``mpi:world`` or ``mpi:world:RANK``.

    Parameters
    ----------
    target : str
        The part of the spec after ``mpi:``: a service name (DPM), ``world`` or
        ``world:RANK`` (shared ``MPI_COMM_WORLD``).
    name : str, optional
        Backend name; default ``mpi:<target>``.
    timeout : float, default=60.0
        Seconds to wait for a service name to be published.
    **options
        ``num_qubits``, ``sleep_factor``, ``seed``, ``label`` of
        :class:`~backends.base.BaseBackend`.

    Raises
    ------
    InvalidParameterError
        If ``target`` is malformed or names this process's own rank, or ``timeout`` is
        negative or not finite.
    BackendConnectionError
        If no service is published under the name within ``timeout``.

    Examples
    --------
    The spec is checked before MPI is touched:

    >>> MPIServiceBackend("world:last")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: spec 'mpi:world:RANK' needs RANK >= 0, got 'last'
    >>> MPIServiceBackend("qpu", timeout=float("nan"))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: timeout must be a finite number >= 0, got nan

    Connecting needs a running service (``python -m backends.mpi_service serve --name qpu``):

    >>> backend = MPIServiceBackend("qpu", timeout=30.0)  # doctest: +SKIP
    >>> backend.device.name, backend.num_qubits  # doctest: +SKIP
    ('aer', 30)
    """

    def __init__(self, target: str, /, *, name: str | None = None, timeout: float = 60.0, **options: Any):
        service, rank = _parse_target(target)
        timeout = check_nonnegative(timeout, "timeout")
        from mpi4py import MPI

        if service is not None:
            self._comm: MPI.Comm = MPI.COMM_SELF.Connect(lookup(service, timeout))
            self._peer = 0
        else:
            world = MPI.COMM_WORLD
            self._comm, self._peer = world, world.size - 1 if rank in (None, -1) else rank
            if not 0 <= self._peer < world.size or self._peer == world.rank:
                raise InvalidParameterError(
                    f"spec 'mpi:{target}' needs a service rank in 0..{world.size - 1} other than this "
                    f"process's rank {world.rank}, got {self._peer}"
                )
        self._open = True
        self._comm.send(None, dest=self._peer, tag=protocol.HELLO)
        device, qubits = wait(self._comm.irecv(source=self._peer, tag=protocol.REPLY))
        super().__init__(RemoteDevice(device, qubits), name=name or f"mpi:{target}", **options)
        if not _OPEN:
            atexit.unregister(_close_all)
            atexit.register(_close_all)
        _OPEN.add(self)

    def _needs_transpile(self, circuits: list[QuantumCircuit]) -> bool:
        """Never here: the service's backend transpiles for its device."""
        return False

    def submit(
        self, circuits: QuantumCircuit | Sequence[QuantumCircuit], shots: int, seed: int | None = None
    ) -> PendingRun:
        """Send circuits to the service and return at once; the reply comes through a non-blocking receive.

        Unlike :meth:`run`, no timing record is kept and no sleep factor applied.

        Parameters
        ----------
        circuits, shots, seed
            As in :meth:`~backends.base.QuantumBackend.run`.

        Returns
        -------
        PendingRun

        Raises
        ------
        InvalidParameterError, CircuitTooWideError
            On bad input (nothing is sent).
        BackendError
            If the backend is closed.

        Examples
        --------
        >>> from qiskit import QuantumCircuit
        >>> circuit = QuantumCircuit(1, 1); _ = circuit.x(0); _ = circuit.measure(0, 0)
        >>> backend = MPIServiceBackend("qpu")  # doctest: +SKIP
        >>> pending = backend.submit([circuit], shots=100, seed=1)  # doctest: +SKIP
        >>> pending.result().counts  # doctest: +SKIP
        [{'1': 100}]
        """
        batch = check_circuits(circuits)
        check_width(batch, self.num_qubits, self.name)
        shots = check_positive_int(shots, "shots")
        seed = check_seed(seed)
        return self._send(batch, shots, int(self._rng.integers(2**31)) if seed is None else seed)

    def _send(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> PendingRun:
        if not self._open:
            raise BackendError(f"backend {self.name!r} is closed")
        # Posted before the request, so the reply is matched the moment it arrives.
        reply = self._comm.irecv(source=self._peer, tag=protocol.REPLY)
        self._comm.send((circuits, shots, seed), dest=self._peer, tag=protocol.RUN)
        return PendingRun(reply, self.name)

    def _execute(self, circuits: list[QuantumCircuit], shots: int, seed: int) -> Execution:
        return self._send(circuits, shots, seed).result()

    def close(self, *, shutdown: bool = False) -> None:
        """Say goodbye to the service (or stop it, with ``shutdown``) and disconnect; idempotent.

        Parameters
        ----------
        shutdown : bool, default=False
            Stop the service for every client, not only this connection.

        Examples
        --------
        >>> backend = MPIServiceBackend("qpu")  # doctest: +SKIP
        >>> backend.close(shutdown=True); backend.close()  # doctest: +SKIP
        >>> MPIServiceBackend.close.__kwdefaults__
        {'shutdown': False}
        """
        if not self._open:
            return
        self._open = False
        _OPEN.discard(self)
        self._comm.send(None, dest=self._peer, tag=protocol.SHUTDOWN if shutdown else protocol.BYE)
        if self._peer == 0 and self._comm.Is_inter():
            self._comm.Disconnect()


#: Backends not closed yet; each says goodbye at exit (held strongly: a dropped one must too).
_OPEN: set[MPIServiceBackend] = set()


def _close_all() -> None:
    """Say goodbye for every backend still open (registered after MPI's exit handler: runs first)."""
    for backend in list(_OPEN):
        backend.close()
