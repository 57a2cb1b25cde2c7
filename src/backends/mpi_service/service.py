"""The quantum service: one process that owns a backend and runs its clients' circuits in order.

:func:`serve` answers the messages of :mod:`backends.mpi_service.protocol` until its
clients have said goodbye or one of them shuts it down. With a ``name`` it opens an MPI
port, publishes it (:mod:`backends.mpi_service.names`) and accepts one connection at a
time, serving each until it says goodbye (MPI dynamic process management, each component
in its own ``MPI_COMM_WORLD``; the sub-jobs of a chain connect one after another); without,
it serves the other ranks of ``MPI_COMM_WORLD`` (one shared world, as
``srun --het-group=0,1`` gives). Between messages the service probes and sleeps, so it
takes no core from the classical ranks that share a node with it.

MPICH cannot serve one connection while another thread waits in ``MPI_Comm_accept``
(the pending accept stalls the other connection's progress), hence one client at a time
in DPM mode; clients that run at the same time share a world instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from backends.base import QuantumBackend
from backends.mpi_service import protocol
from backends.mpi_service.names import check_name, publish, unpublish
from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_nonnegative, check_positive_int

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = ["ServiceStats", "serve"]

#: Seconds between two probes of an idle service.
POLL_SECONDS = 0.002


@dataclass
class ServiceStats:
    """What a service did, for its log and the QPU idle fraction.

    Attributes
    ----------
    clients : int
        Clients that said hello.
    requests, circuits : int
        RUN requests answered, and the circuits in them.
    busy_seconds : float
        Seconds spent executing batches (with the emulated latency).
    wall_seconds : float
        Seconds from the start of :func:`serve` to its end.
    stopped : str
        ``"goodbye"`` (every expected client left) or ``"shutdown"`` (a client stopped it).

    Examples
    --------
    >>> stats = ServiceStats(clients=2, requests=10, circuits=40, busy_seconds=3.0, wall_seconds=12.0)
    >>> round(1 - stats.busy_seconds / stats.wall_seconds, 2)  # the QPU's idle fraction
    0.75
    """

    clients: int = 0
    requests: int = 0
    circuits: int = 0
    busy_seconds: float = 0.0
    wall_seconds: float = 0.0
    stopped: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain-dict form with the attribute names as keys.

        Examples
        --------
        >>> import json
        >>> data = ServiceStats(clients=1, stopped="goodbye").to_json()
        >>> list(data), data["stopped"]
        (['clients', 'requests', 'circuits', 'busy_seconds', 'wall_seconds', 'stopped'], 'goodbye')
        >>> json.loads(json.dumps(data)) == data
        True
        """
        return asdict(self)


class _Loop:
    """The message loop over a list of communicators."""

    def __init__(self, backend: QuantumBackend, clients: int, latency: float, log: Callable[[str], None]):
        self.backend = backend
        self.clients = clients
        self.latency = latency
        self.log = log
        self.links: list[MPI.Comm] = []
        self.stats = ServiceStats()
        self.byes = 0

    def poll(self, status: MPI.Status) -> bool:
        """Handle one waiting message, if any; return whether one was handled."""
        from mpi4py import MPI

        for link in self.links:
            if link.iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG, status):
                self.handle(link, status.Get_source(), status.Get_tag())
                return True
        return False

    def handle(self, link: MPI.Comm, source: int, tag: int) -> None:
        """Answer one message of ``source`` on ``link``."""
        message = link.recv(source=source, tag=tag)
        if tag == protocol.HELLO:
            self.stats.clients += 1
            link.send((self.backend.name, self.backend.num_qubits), dest=source, tag=protocol.REPLY)
        elif tag == protocol.RUN:
            link.send(self.execute(*message), dest=source, tag=protocol.REPLY)
        elif tag in (protocol.BYE, protocol.SHUTDOWN):
            self.byes += 1
            if link.Is_inter():
                self.links.remove(link)
                link.Disconnect()
            if tag == protocol.SHUTDOWN:
                self.stats.stopped = "shutdown"
            elif self.byes >= self.clients:
                self.stats.stopped = "goodbye"

    def execute(self, circuits: list[Any], shots: int, seed: int) -> protocol.Reply:
        """Run one batch on the backend, then the emulated latency."""
        started = time.time()
        error: str | None = None
        try:
            counts = self.backend.run(circuits, shots, seed)
        except Exception as exc:  # noqa: BLE001 - any failure goes back to the client
            counts, error = [], f"{type(exc).__name__}: {exc}"
        time.sleep(self.latency)
        ended = time.time()
        self.stats.requests += 1
        self.stats.circuits += len(circuits)
        self.stats.busy_seconds += ended - started
        return protocol.Reply(counts, started, ended, error)


def serve(
    backend: QuantumBackend,
    *,
    name: str | None = None,
    clients: int = 1,
    latency: float = 0.0,
    log: Callable[[str], None] = lambda line: None,
) -> ServiceStats:
    """Run circuits for MPI clients until ``clients`` of them said goodbye or one shut it down.

    Parameters
    ----------
    backend : QuantumBackend
        The backend that runs every batch (it transpiles for its device).
    name : str, optional
        Publish an MPI port under this name and accept clients that connect to it
        (``mpi:NAME``), one at a time; default: serve the other ranks of ``MPI_COMM_WORLD``
        (``mpi:world``).
    clients : int, default=1
        Goodbyes after which the service stops (with a ``name``: connections served).
    latency : float, default=0.0
        Seconds added to every batch, emulating a remote QPU's turnaround.
    log : callable, optional
        Called with one line per event (start, stop).

    Returns
    -------
    ServiceStats

    Raises
    ------
    InvalidParameterError
        If ``name``, ``clients`` or ``latency`` is invalid, or there is no ``name`` and
        this process is the only rank of ``MPI_COMM_WORLD`` (no client could ever come).

    Examples
    --------
    On the quantum component of a heterogeneous job (clients connect with ``mpi:qpu``):

    >>> from backends import get_backend
    >>> backend = get_backend("null:8", seed=1)
    >>> stats = serve(backend, name="qpu", clients=2, log=print)  # doctest: +SKIP
    serving null:8 as 'qpu'
    stopped (goodbye) after 4 requests
    >>> stats.stopped, stats.clients  # doctest: +SKIP
    ('goodbye', 2)
    """
    from mpi4py import MPI

    loop = _Loop(backend, check_positive_int(clients, "clients"), check_nonnegative(latency, "latency"), log)
    name = None if name is None else check_name(name)
    if name is None and MPI.COMM_WORLD.size < 2:
        raise InvalidParameterError(
            "serving MPI_COMM_WORLD needs client ranks, but this process is its only rank; start "
            "the clients in the same launch (mpiexec ... : ...) or publish the service under a name (--name)"
        )
    tic = time.perf_counter()
    port = None
    if name is None:
        loop.links.append(MPI.COMM_WORLD)
        log(f"serving {backend.name} to MPI_COMM_WORLD as rank {MPI.COMM_WORLD.rank}")
    else:
        port = MPI.Open_port()
        publish(name, port)
        log(f"serving {backend.name} as {name!r}")
    status = MPI.Status()
    try:
        while not loop.stats.stopped:
            if port is not None and not loop.links:
                loop.links.append(MPI.COMM_SELF.Accept(port))
            if not loop.poll(status):
                time.sleep(POLL_SECONDS)
    finally:
        if port is not None and name is not None:
            unpublish(name, port)
            MPI.Close_port(port)
    loop.stats.wall_seconds = time.perf_counter() - tic
    log(f"stopped ({loop.stats.stopped}) after {loop.stats.requests} requests")
    return loop.stats
