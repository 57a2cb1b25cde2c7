"""Executors for node expansions: serial, a local process pool, or MPI workers.

The search takes any :class:`concurrent.futures.Executor`. :func:`make_executor`
builds one by name; under ``mpiexec -n P`` it gives rank 0 an executor over the other
``P - 1`` ranks (mpi4py's :class:`~mpi4py.futures.MPICommExecutor`) and ``None`` to the
workers, which serve tasks until rank 0 is done.

The workers of a local process pool end with the run: they leave SIGINT and SIGTERM to
the managing process (a Ctrl-C or a ``kill`` of the whole process group reaches them
too, and must not break the pool while the manager writes its result), and exit as soon
as the manager is gone (Linux's parent-death signal, and a watchdog thread elsewhere), so
even a manager killed with SIGKILL leaves no worker behind. When the ``with`` block of
:func:`make_executor` ends by an exception or after a stop request
(:data:`~bbqmis.coloring.limits.STOP`), queued tasks are cancelled and running ones
killed instead of awaited.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from backends.utils.validation import check_choice, check_positive_int

from ..limits import STOP

__all__ = [
    "SerialExecutor",
    "executor_workers",
    "make_executor",
    "mpi_world",
    "serve_manager",
    "stop_pool",
    "under_mpi",
]

KINDS = ("auto", "serial", "process", "mpi")

#: Seconds between a pool worker's looks at whether its manager is still alive.
_WATCH_SECONDS = 0.5
#: Seconds that pool workers get to exit by themselves after an early shutdown.
_GRACE_SECONDS = 1.0
#: ``prctl`` option that sends a signal to a process when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1

_T = TypeVar("_T")


class SerialExecutor(Executor):
    """Runs each task at submission, in this process; for reproducible, single-core runs.

    Examples
    --------
    >>> with SerialExecutor() as executor:
    ...     futures = [executor.submit(pow, 2, n) for n in range(4)]
    >>> [future.result() for future in futures]
    [1, 2, 4, 8]
    """

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Run ``fn(*args, **kwargs)`` now; return a done future with its result or exception.

        Examples
        --------
        >>> future = SerialExecutor().submit(divmod, 7, 2)
        >>> future.done(), future.result()
        (True, (3, 1))
        >>> SerialExecutor().submit(int, "x").exception()
        ValueError("invalid literal for int() with base 10: 'x'")
        """
        future: Future[_T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the caller through the future
            future.set_exception(exc)
        return future


def executor_workers(executor: Executor) -> int:
    """Number of tasks worth keeping in flight on ``executor`` (1 when unknown).

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(max_workers=3) as pool:
    ...     executor_workers(pool)
    3
    >>> executor_workers(SerialExecutor())
    1
    """
    for attribute in ("num_workers", "_max_workers"):
        value = getattr(executor, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    return 1


def under_mpi() -> bool:
    """Whether this process was started by ``mpiexec`` with more than one rank.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"OMPI_COMM_WORLD_SIZE": "4"}):
    ...     under_mpi()
    True
    >>> one_rank = {"PMI_SIZE": "1", "OMPI_COMM_WORLD_SIZE": "1", "MPI_LOCALNRANKS": "1"}
    >>> with mock.patch.dict(os.environ, one_rank):
    ...     under_mpi()
    False
    """
    for variable in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"):
        if int(os.environ.get(variable, "1") or 1) > 1:
            return True
    return False


def _resolve(kind: str, workers: int | None) -> str:
    """The executor ``auto`` stands for: ``mpi`` under ``mpiexec``, ``process`` with ``workers`` > 1."""
    kind = check_choice(kind, "kind", KINDS)
    if kind == "auto":
        return "mpi" if under_mpi() else "process" if (workers or 1) > 1 else "serial"
    return kind


def mpi_world(kind: str = "auto") -> Any | None:
    """MPI's world communicator when executor ``kind`` runs on MPI ranks, else None.

    ``kind`` is read as by :func:`make_executor`: ``mpi``, or ``auto`` under
    ``mpiexec`` with several ranks. The caller can then let rank 0 alone do what only
    the search's manager needs (reading the graph) and share its outcome.

    Examples
    --------
    >>> mpi_world("serial") is None
    True
    """
    if _resolve(kind, None) != "mpi":
        return None
    from mpi4py import MPI

    return MPI.COMM_WORLD


@contextmanager
def make_executor(
    kind: str = "auto", workers: int | None = None, *, finish_tasks: bool = True
) -> Iterator[Executor | None]:
    """Context manager yielding an executor by name.

    Parameters
    ----------
    kind : {"auto", "serial", "process", "mpi"}, default="auto"
        ``auto`` is ``mpi`` under ``mpiexec`` with several ranks, ``process`` when
        ``workers`` > 1, else ``serial``.
    workers : int, optional
        Processes of the local pool (default: the machine's cores).
    finish_tasks : bool, default=True
        Whether leaving the block waits for the tasks submitted to a local pool, as
        :class:`concurrent.futures.Executor` does; False cancels and ends them (for a
        caller that has what it needs, such as a search stopped by its node limit).
        An exception or a stop request always ends them.

    Yields
    ------
    Executor, or None on MPI ranks other than 0 (they serve tasks meanwhile).

    Examples
    --------
    >>> with make_executor("serial") as executor:
    ...     executor.submit(sum, [1, 2, 3]).result()
    6
    >>> with make_executor("threads"):  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: kind must be one of 'auto', 'serial', ...; got 'threads'
    """
    if workers is not None:
        workers = check_positive_int(workers, "workers")
    kind = _resolve(kind, workers)
    if kind == "serial":
        yield SerialExecutor()
    elif kind == "process":
        pool = ProcessPoolExecutor(
            max_workers=workers or os.cpu_count(),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=serve_manager,
            initargs=(os.getpid(),),
        )
        try:
            yield pool
        except BaseException:
            stop_pool(pool)
            raise
        if STOP.is_set() or not finish_tasks:
            stop_pool(pool)
        else:
            pool.shutdown(wait=True)
    else:
        from mpi4py import MPI
        from mpi4py.futures import MPICommExecutor

        with MPICommExecutor(MPI.COMM_WORLD, root=0) as pool:
            yield pool


def serve_manager(manager: int) -> None:
    """Initialiser of a pool worker: leave signals to the manager, and exit when it is gone.

    Parameters
    ----------
    manager : int
        Process id of the managing process (the worker's parent).

    Examples
    --------
    A worker of a pool made with it ignores the signals that the manager handles:

    >>> from concurrent.futures import ProcessPoolExecutor
    >>> fork = multiprocessing.get_context("fork")
    >>> pool = ProcessPoolExecutor(1, mp_context=fork, initializer=serve_manager, initargs=(os.getpid(),))
    >>> pool.submit(signal.getsignal, signal.SIGINT).result(timeout=60) == signal.SIG_IGN
    True
    >>> stop_pool(pool)
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):  # no usable libc: the watchdog alone
            pass
    threading.Thread(target=_watch_manager, args=(manager,), name="watch-manager", daemon=True).start()


def _watch_manager(manager: int) -> None:
    """Exit this process as soon as its parent is no longer ``manager``."""
    while os.getppid() == manager:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)


def stop_pool(pool: ProcessPoolExecutor, grace: float = _GRACE_SECONDS) -> None:
    """Shut ``pool`` down now: cancel queued tasks, and kill the workers still busy after ``grace`` s.

    Parameters
    ----------
    pool : concurrent.futures.ProcessPoolExecutor
    grace : float, default=1.0
        Seconds the idle workers get to take their stop sentinel and exit.

    Examples
    --------
    >>> pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    >>> futures = [pool.submit(time.sleep, 60) for _ in range(5)]
    >>> start = time.monotonic()
    >>> stop_pool(pool, grace=0.1)
    >>> sum(future.cancelled() for future in futures) >= 3, time.monotonic() - start < 30
    (True, True)
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    end = time.monotonic() + grace
    for process in processes:
        process.join(max(0.0, end - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()  # SIGKILL: the workers ignore SIGTERM
    for process in processes:
        process.join(_GRACE_SECONDS)
