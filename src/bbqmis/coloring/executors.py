"""Executors for node expansions: serial, a local process pool, or MPI workers.

The search takes any :class:`concurrent.futures.Executor`. :func:`make_executor`
builds one by name; under ``mpiexec -n P`` it gives rank 0 an executor over the other
``P - 1`` ranks (mpi4py's :class:`~mpi4py.futures.MPICommExecutor`) and ``None`` to the
workers, which serve tasks until rank 0 is done.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from backends.validation import check_choice, check_positive_int

__all__ = ["SerialExecutor", "executor_workers", "make_executor", "under_mpi"]

KINDS = ("auto", "serial", "process", "mpi")

_T = TypeVar("_T")


class SerialExecutor(Executor):
    """Runs each task at submission, in this process; for reproducible, single-core runs."""

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:  # noqa: D102
        future: Future[_T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # handed to the caller through the future
            future.set_exception(exc)
        return future


def executor_workers(executor: Executor) -> int:
    """Number of tasks worth keeping in flight on ``executor`` (1 when unknown)."""
    for attribute in ("num_workers", "_max_workers"):
        value = getattr(executor, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    return 1


def under_mpi() -> bool:
    """Whether this process was started by ``mpiexec`` with more than one rank."""
    for variable in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"):
        if int(os.environ.get(variable, "1") or 1) > 1:
            return True
    return False


@contextmanager
def make_executor(kind: str = "auto", workers: int | None = None) -> Iterator[Executor | None]:
    """Context manager yielding an executor by name.

    Parameters
    ----------
    kind : {"auto", "serial", "process", "mpi"}, default="auto"
        ``auto`` is ``mpi`` under ``mpiexec`` with several ranks, ``process`` when
        ``workers`` > 1, else ``serial``.
    workers : int, optional
        Processes of the local pool (default: the machine's cores).

    Yields
    ------
    Executor, or None on MPI ranks other than 0 (they serve tasks meanwhile).
    """
    kind = check_choice(kind, "kind", KINDS)
    if workers is not None:
        workers = check_positive_int(workers, "workers")
    if kind == "auto":
        kind = "mpi" if under_mpi() else "process" if (workers or 1) > 1 else "serial"
    if kind == "serial":
        yield SerialExecutor()
    elif kind == "process":
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count(), mp_context=context) as pool:
            yield pool
    else:
        from mpi4py import MPI
        from mpi4py.futures import MPICommExecutor

        with MPICommExecutor(MPI.COMM_WORLD, root=0) as pool:
            yield pool
