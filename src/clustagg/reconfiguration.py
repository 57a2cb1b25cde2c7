"""Malleable MPI programs: grow and shrink a running Slurm job at the program's safe points.

A reconfiguration library in the spirit of DMR (Iserte et al.), for any mpi4py program. The
program declares the nodes it can use (``min_nodes``, ``max_nodes``, ``preferred_nodes``) and
calls :meth:`Reconfiguration.reconfigure` on every process of its communicator at its safe
points. There rank 0 asks Slurm for nodes or gives nodes back
(:class:`clustagg.slurm.SlurmAllocation`), the library starts or stops one worker step per
node, and every process gets the new communicator back. Moving the program's data is a
callback, ``redistribute(comm, change)``, called on every process of the old and the new
communicator together (:class:`Change` says who joins and who leaves).

Placement. A worker is started by Slurm on the node it was granted for: ``srun
--jobid=JOB --nodelist=NODE --nodes=1 --overlap COMMAND``, so its ``SLURMD_NODENAME`` is that
node. It joins over MPI dynamic process management: once the worker's MPI runs, it creates
its ready file (``RECONFIGURATION_READY``, in a folder every node sees); rank 0 opens a port
(``MPI.Open_port``) for it alone and writes its name next to that file (``READY.port``);
the worker connects (``Connect``), the running processes ``Accept`` and
both sides ``Merge``. On a shrink the workers of the nodes being released disconnect and
exit first, and only then are their nodes returned (``scontrol update NodeList=...``).

Ranks. The processes that started the program keep ranks ``0..n-1``; a grow appends the new
workers after the others; a shrink removes the newest workers, whose ranks are the highest.

Asynchronous grow (``asynchronous=True``): a reconfiguration point that wants more nodes
only queues the request; Slurm grants it while the program works, the workers are started
then, and a later reconfiguration point adopts them once they are ready.

A worker runs the program's own command (``command``, default: this process's command line)
and constructs its :class:`Reconfiguration` as rank 0 does; its first :meth:`reconfigure`
joins. Outside Slurm (:class:`clustagg.node_pools.FixedNodes`) the program keeps its size.

Examples
--------
>>> NodeRange(1, 4, preferred=3).clamp(8)
4
>>> Change("grow", 1, 3, joined=False, leaving=False).added
2
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .errors import ClustAggError
from .node_pools import NodePool, NodeRange, default_pool, worker_environment

if TYPE_CHECKING:
    from mpi4py import MPI

__all__ = [
    "NODE_ENV",
    "READY_ENV",
    "Change",
    "NodeRange",
    "Reconfiguration",
    "ReconfigurationError",
    "ReconfigurationRecord",
]

#: Environment of a worker: a file it creates once MPI is initialised.
READY_ENV = "RECONFIGURATION_READY"
#: Environment of a worker: the node it was started for.
NODE_ENV = "RECONFIGURATION_NODE"


class ReconfigurationError(ClustAggError):
    """A worker could not be started or did not join in time.

    Examples
    --------
    >>> issubclass(ReconfigurationError, ClustAggError)
    True
    """


@dataclass(frozen=True)
class Change:
    """What a reconfiguration does, as the ``redistribute`` callback sees it on one process.

    Attributes
    ----------
    kind : {"grow", "shrink"}
    old_size, new_size : int
        Processes before and after; on a grow ranks ``old_size..new_size-1`` are new, on a
        shrink ranks ``new_size..old_size-1`` leave.
    joined : bool
        This process has just joined (it holds no data yet).
    leaving : bool
        This process leaves after the callback (it must hand its data over).

    Examples
    --------
    >>> Change("shrink", 3, 1, joined=False, leaving=True).removed
    2
    """

    kind: Literal["grow", "shrink"]
    old_size: int
    new_size: int
    joined: bool
    leaving: bool

    @property
    def added(self) -> int:
        """Processes added (0 on a shrink).

        Examples
        --------
        >>> Change("grow", 2, 5, joined=True, leaving=False).added
        3
        """
        return max(0, self.new_size - self.old_size)

    @property
    def removed(self) -> int:
        """Processes removed (0 on a grow).

        Examples
        --------
        >>> Change("grow", 2, 5, joined=True, leaving=False).removed
        0
        """
        return max(0, self.old_size - self.new_size)


@dataclass
class ReconfigurationRecord:
    """One completed resize, seen from rank 0 (seconds from ``time.perf_counter``).

    Attributes
    ----------
    kind : {"grow", "shrink"}
    nodes_before, nodes_after : int
    requested, completed : float
        When the nodes were asked for (or the shrink decided) and when the new
        communicator was ready (workers running and merged; released nodes returned).
    blocked_seconds : float
        Time the program spent inside :meth:`Reconfiguration.reconfigure` for this resize
        (for an asynchronous grow: the point that queued it plus the point that adopted it).

    Examples
    --------
    >>> ReconfigurationRecord("grow", 1, 3, 10.0, 12.5, 0.25).seconds
    2.5
    """

    kind: str
    nodes_before: int
    nodes_after: int
    requested: float
    completed: float
    blocked_seconds: float

    @property
    def seconds(self) -> float:
        """From the request to the new communicator.

        Examples
        --------
        >>> ReconfigurationRecord("shrink", 3, 1, 0.0, 0.5, 0.5).seconds
        0.5
        """
        return self.completed - self.requested


@dataclass
class _Worker:
    """One worker step: its node, its launcher process, the file it creates once MPI runs."""

    node: str
    process: subprocess.Popen[bytes]
    ready: Path
    tasks: int

    @property
    def port_file(self) -> Path:
        return self.ready.with_name(self.ready.name + ".port")

    def is_ready(self) -> bool:
        return self.ready.exists()


@dataclass
class _Pending:
    """An asynchronous grow: its request time, its Slurm future, the workers it started."""

    requested: float
    blocked: float
    future: Future[int]
    workers: list[_Worker] = field(default_factory=list)
    launched: threading.Event = field(default_factory=threading.Event)


class Reconfiguration:
    """Resize a running MPI program at its safe points; workers run on the nodes granted.

    Construct it on every process of the program (and of the workers, which run the same
    command); then call :meth:`reconfigure` on every process of the current communicator.

    Parameters
    ----------
    command : sequence of str, optional
        A worker's command; default: this process's own (``sys.orig_argv``).
    min_nodes, max_nodes : int, default=1
        Nodes the program can use, its starting nodes included.
    preferred_nodes : int, optional
        Nodes :meth:`reconfigure` aims at when not told; default ``max_nodes``.
    pool : NodePool, optional
        Default :func:`default_pool`: the Slurm job, or local processes outside Slurm.
    asynchronous : bool, default=False
        Queue grows and adopt the nodes at a later point instead of waiting for Slurm.
    tasks_per_node : int, default=1
        Worker processes per added node.
    start_timeout : float, default=60.0
        Seconds a worker may take to start (blocking grow) or to exit (shrink).
    workdir : path, optional
        Folder, seen by every node, for the workers' ready files (default: the working folder).
    log : callable, optional
        Called with one line per resize.

    Attributes
    ----------
    comm : mpi4py.MPI.Intracomm or None
        The current communicator (None on a worker before it joins or after it left).
    history : list of ReconfigurationRecord
        Completed resizes (rank 0 only).

    Examples
    --------
    >>> with Reconfiguration(max_nodes=3) as reconfiguration:  # outside Slurm: no node to add
    ...     reconfiguration.reconfigure().size
    1
    """

    def __init__(
        self,
        command: Sequence[str] | None = None,
        *,
        min_nodes: int = 1,
        max_nodes: int = 1,
        preferred_nodes: int | None = None,
        pool: NodePool | None = None,
        asynchronous: bool = False,
        tasks_per_node: int = 1,
        start_timeout: float = 60.0,
        workdir: str | Path | None = None,
        log: Callable[[str], None] = lambda line: None,
    ) -> None:
        from mpi4py import MPI

        self.nodes = NodeRange(min_nodes, max_nodes, preferred_nodes)
        self.command = list(command) if command is not None else [sys.executable, *sys.orig_argv[1:]]
        self.asynchronous, self.tasks_per_node = asynchronous, tasks_per_node
        self.start_timeout, self.log = start_timeout, log
        self.history: list[ReconfigurationRecord] = []
        self.joining = READY_ENV in os.environ
        self.comm: MPI.Intracomm | None = None if self.joining else MPI.COMM_WORLD.Dup()
        self._workers: list[_Worker] = []
        self._pending: _Pending | None = None
        self._closing = False
        self._released: dict[str, float] = {}
        self._manager = not self.joining and MPI.COMM_WORLD.rank == 0
        if self._manager:
            self.pool = pool if pool is not None else default_pool()
            self._base = self.pool.names()
            self._workdir = Path(workdir) if workdir is not None else Path.cwd()
            self._ready_dir: Path | None = None  # made at the first grow
        elif self.joining and MPI.COMM_WORLD.rank == 0:
            Path(os.environ[READY_ENV]).touch()  # MPI runs: rank 0 may accept this worker now

    @property
    def held(self) -> int:
        """Nodes the program's processes run on now (rank 0 only).

        Examples
        --------
        >>> Reconfiguration().held  # a program on one node, without workers
        1
        """
        return len(self._base) + len(self._workers)

    def reconfigure(
        self, redistribute: Callable[[MPI.Intracomm, Change], None] | None = None, *, nodes: int | None = None
    ) -> MPI.Intracomm | None:
        """A safe point: resize towards ``nodes`` (default ``preferred_nodes``); the new communicator.

        Collective over :attr:`comm` (and, on a grow, the joining workers, for which this is
        their first call). ``redistribute(comm, change)`` runs on every process of the old
        and the new communicator together, before the leaving processes leave.

        Returns
        -------
        mpi4py.MPI.Intracomm or None
            The new communicator, or None on a process that has left: it should exit.

        Raises
        ------
        ReconfigurationError
            If a worker fails to start within ``start_timeout`` seconds.

        Examples
        --------
        >>> Reconfiguration(max_nodes=1).reconfigure().size  # nothing to change
        1
        """
        if self.joining:
            return self._join(redistribute)
        if self.comm is None:
            return None
        started = time.perf_counter()
        action = self._decide(nodes) if self._manager else None
        kind, count = self.comm.bcast(action, root=0)
        if kind == "grow":
            return self._grow(count, redistribute, started)
        if kind == "shrink":
            return self._shrink(count, redistribute, started)
        return self.comm

    def close(self) -> None:
        """Release every worker and withdraw pending requests (collective, like :meth:`reconfigure`).

        Examples
        --------
        >>> Reconfiguration().close()
        """
        if self.comm is None:
            return
        if self._manager:
            self._closing = True
            self.pool.cancel_requests()
            self._drop_pending()
        self.reconfigure(nodes=0)
        if self._manager:
            if self._ready_dir is not None:
                shutil.rmtree(self._ready_dir, ignore_errors=True)
        self.comm.Free()
        self.comm = None

    def __enter__(self) -> Reconfiguration:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- rank 0's decisions
    def _decide(self, nodes: int | None) -> tuple[str, int]:
        """Rank 0: ``("grow", workers)``, ``("shrink", ranks)`` or ``("stay", 0)``."""
        target = len(self._base) if nodes == 0 else self.nodes.clamp(nodes or self.nodes.preferred or 1)
        target = max(target, len(self._base))
        pending = self._pending
        if pending is not None and pending.launched.is_set():
            if pending.future.exception() is not None:
                self.log(f"asynchronous grow failed: {pending.future.exception()}")
                self._pending = None
            elif all(worker.is_ready() for worker in pending.workers):
                return ("grow", len(pending.workers))
        if self.held > target:
            leaving = self._workers[target - len(self._base) :]
            return ("shrink", sum(worker.tasks for worker in leaving))
        if self.held < target and self._pending is None:
            if self.asynchronous:
                self._request(target - self.held)
            else:
                self._pending = self._grow_now(target)
                return ("grow", len(self._pending.workers)) if self._pending.workers else ("stay", 0)
        return ("stay", 0)

    def _drop_pending(self) -> None:
        """Rank 0, closing: stop the workers of an unadopted asynchronous grow and return their nodes."""
        pending, self._pending = self._pending, None
        if pending is None or not pending.future.done():
            return  # a grant arriving later is returned by the callback of _request
        pending.launched.wait(self.start_timeout)
        for worker in pending.workers:
            worker.process.kill()
            worker.process.wait()
        self.pool.release(self._new_nodes())

    def _new_nodes(self) -> list[str]:
        """Rank 0: nodes held that run no adopted worker and are not the starting ones."""
        busy = set(self._base) | {worker.node for worker in self._workers}
        return [name for name in self.pool.names() if name not in busy]

    def _grow_now(self, target: int) -> _Pending:
        """Rank 0, blocking grow: hold ``target`` nodes, start their workers, wait until they are ready."""
        requested = time.perf_counter()
        future: Future[int] = Future()
        future.set_result(self.pool.grow(target))
        pending = _Pending(requested, 0.0, future, self._launch_new())
        pending.launched.set()
        deadline = time.monotonic() + self.start_timeout
        while not all(worker.is_ready() for worker in pending.workers):
            failed = [w for w in pending.workers if w.process.poll() is not None and not w.is_ready()]
            if failed or time.monotonic() > deadline:
                for worker in pending.workers:
                    worker.process.kill()
                self.pool.release(worker.node for worker in pending.workers)
                why = f"exited ({failed[0].process.returncode})" if failed else "not ready"
                raise ReconfigurationError(
                    f"worker on {(failed or pending.workers)[0].node} {why} within {self.start_timeout:g} s"
                )
            time.sleep(0.005)
        return pending

    def _request(self, more: int) -> None:
        """Rank 0, asynchronous grow: queue ``more`` nodes; their workers start once Slurm grants them."""
        requested = time.perf_counter()
        pending = _Pending(requested, 0.0, self.pool.request(more))

        def launch(future: Future[int]) -> None:
            try:
                if future.exception() is None and self._closing:
                    self.pool.release(self._new_nodes())
                elif future.exception() is None:
                    pending.workers = self._launch_new()
            finally:
                pending.launched.set()

        pending.future.add_done_callback(launch)
        pending.blocked = time.perf_counter() - requested
        self._pending = pending
        self.log(f"asked for {more} more node(s) without waiting")

    def _launch_new(self) -> list[_Worker]:
        """Start a worker step on each node held that runs none yet."""
        workers = []
        if self._ready_dir is None:
            self._ready_dir = Path(tempfile.mkdtemp(prefix=".reconfiguration-", dir=self._workdir))
        for node in self._new_nodes():
            # slurmd revokes the job's credential on a node it releases; a step credential of the
            # same second would be refused ("Job credential revoked"): start in the next second
            time.sleep(max(0.0, int(self._released.get(node, 0.0)) + 1.05 - time.time()))
            ready = self._ready_dir / f"{node}-{time.monotonic_ns()}"
            env = {**worker_environment(), READY_ENV: str(ready), NODE_ENV: node}
            process = self.pool.launch(node, self.command, env, self.tasks_per_node)
            workers.append(_Worker(node, process, ready, self.tasks_per_node))
        return workers

    # ---------------------------------------------------------------- every process
    def _accept(self, comm: MPI.Intracomm, remaining: int | None) -> MPI.Intracomm:
        """Accept ``remaining`` worker steps (told by rank 0) one by one, merging each into ``comm``."""
        from mpi4py import MPI

        while True:
            remaining = comm.bcast(remaining, root=0)
            if not remaining:
                return comm
            port = ""
            if self._manager:  # one port per worker: one connection at a time
                assert self._pending is not None
                worker = self._pending.workers[-remaining]
                port = MPI.Open_port()
                worker.port_file.with_suffix(".tmp").write_text(port)
                worker.port_file.with_suffix(".tmp").rename(worker.port_file)
            inter = comm.Accept(port, root=0)
            if port:
                MPI.Close_port(port)
            merged = inter.Merge(high=False)
            inter.Disconnect()
            comm.Disconnect()
            comm = merged
            remaining -= 1

    def _join(self, redistribute: Callable[[MPI.Intracomm, Change], None] | None) -> MPI.Intracomm:
        """A new worker's first reconfiguration point: connect to rank 0 and join the grow."""
        from mpi4py import MPI

        port_file = Path(os.environ[READY_ENV] + ".port")
        while not port_file.exists():  # rank 0 writes it when it accepts this worker
            time.sleep(0.002)
        inter = MPI.COMM_WORLD.Connect(port_file.read_text(), root=0)
        comm = inter.Merge(high=True)
        inter.Disconnect()
        self.joining = False
        return self._merged(self._accept(comm, None), None, redistribute, joined=True)

    def _merged(
        self,
        comm: MPI.Intracomm,
        old_size: int | None,
        redistribute: Callable[[MPI.Intracomm, Change], None] | None,
        *,
        joined: bool,
    ) -> MPI.Intracomm:
        """After a grow's merges, on every process: learn the old size, map ranks to nodes, redistribute."""
        old_size = comm.bcast(old_size, root=0)
        nodes = comm.gather(os.environ.get(NODE_ENV, ""), root=0)
        self.comm = comm
        if self._manager and nodes is not None:
            self._adopt(nodes)
        if redistribute is not None:
            redistribute(comm, Change("grow", old_size, comm.size, joined=joined, leaving=False))
        return comm

    def _grow(
        self, count: int, redistribute: Callable[[MPI.Intracomm, Change], None] | None, started: float
    ) -> MPI.Intracomm:
        """Every old process: accept the ``count`` new worker steps and redistribute."""
        assert self.comm is not None
        old_size = self.comm.size
        comm = self._merged(self._accept(self.comm, count), old_size, redistribute, joined=False)
        if self._manager:
            pending, self._pending = self._pending, None
            assert pending is not None
            now = time.perf_counter()
            blocked = pending.blocked + (now - started)
            before = self.held - len(pending.workers)
            record = ReconfigurationRecord("grow", before, self.held, pending.requested, now, blocked)
            self.history.append(record)
            self.log(f"grew to {self.held} node(s) in {record.seconds:.3f} s (blocked {blocked:.3f} s)")
        return comm

    def _adopt(self, nodes: list[str]) -> None:
        """Rank 0: record the pending workers in the order of their ranks (``nodes``: node of each rank)."""
        assert self._pending is not None
        by_node = {worker.node: worker for worker in self._pending.workers}
        order = list(dict.fromkeys(node for node in nodes if node in by_node))
        self._workers.extend(by_node[node] for node in order)

    def _shrink(
        self, count: int, redistribute: Callable[[MPI.Intracomm, Change], None] | None, started: float
    ) -> MPI.Intracomm | None:
        """Every process: redistribute, then the highest ``count`` ranks leave; rank 0 returns their nodes."""
        from mpi4py import MPI

        old = self.comm
        assert old is not None
        leaving = old.rank >= old.size - count
        if redistribute is not None:
            redistribute(old, Change("shrink", old.size, old.size - count, joined=False, leaving=leaving))
        new = old.Split(MPI.UNDEFINED if leaving else 0, old.rank)
        old.Disconnect()
        self.comm = None if leaving else new
        if self._manager:
            self._release(count, started)
        return self.comm

    def _release(self, count: int, started: float) -> None:
        """Rank 0: wait until the workers of the last ``count`` ranks have exited, then return their nodes."""
        before, going = self.held, []
        while count > 0:
            going.append(self._workers.pop())
            count -= going[-1].tasks
        deadline = time.monotonic() + self.start_timeout
        for worker in going:
            try:
                worker.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.log(f"worker on {worker.node} still running after {self.start_timeout:g} s: killed")
                worker.process.kill()
                worker.process.wait()
        self.pool.release([worker.node for worker in going])
        self._released.update((worker.node, time.time()) for worker in going)
        now = time.perf_counter()
        self.history.append(ReconfigurationRecord("shrink", before, self.held, started, now, now - started))
        self.log(f"shrank to {self.held} node(s) in {now - started:.3f} s")
