"""Where the workers of a malleable program run: the nodes it holds and how to start a worker there.

A :class:`NodePool` names the nodes a program holds, gets more (blocking, or asynchronously
with a future), gives named nodes back, and starts a worker process on a node.
:class:`SlurmNodes` is the running Slurm job (:class:`clustagg.slurm.SlurmAllocation`), whose
workers are ``srun`` steps on their nodes; :class:`FixedNodes` are the nodes a program
started on, for runs without Slurm (no grow gets a node). :mod:`clustagg.reconfiguration` uses them.

Examples
--------
>>> FixedNodes().names()
['localhost']
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

from .errors import InvalidParameterError
from .slurm import SlurmAllocation

__all__ = [
    "STEP_PREFIXES",
    "FixedNodes",
    "NodePool",
    "NodeRange",
    "SlurmNodes",
    "default_pool",
    "worker_environment",
]

#: Variables of the manager's own job step or launcher that must not reach a worker's ``srun``.
STEP_PREFIXES = ("SLURM_", "SLURMD_", "PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "OMPI_")


@dataclass(frozen=True)
class NodeRange:
    """The nodes a program can use: at least ``min``, at most ``max``, ideally ``preferred``.

    Raises
    ------
    InvalidParameterError
        Unless ``1 <= min <= preferred <= max``.

    Examples
    --------
    >>> NodeRange(2, 3).preferred
    3
    >>> NodeRange(2, 3, preferred=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: node counts must satisfy 1 <= min_nodes <= ...
    """

    min: int
    max: int
    preferred: int | None = None

    def __post_init__(self) -> None:
        if self.preferred is None:
            object.__setattr__(self, "preferred", self.max)
        if not 1 <= self.min <= (self.preferred or 0) <= self.max:
            raise InvalidParameterError(
                "node counts must satisfy 1 <= min_nodes <= preferred_nodes <= max_nodes; got "
                f"min_nodes={self.min}, preferred_nodes={self.preferred}, max_nodes={self.max}"
            )

    def clamp(self, nodes: int) -> int:
        """``nodes`` within ``[min, max]``.

        Examples
        --------
        >>> NodeRange(2, 3).clamp(1)
        2
        """
        return max(self.min, min(self.max, nodes))


class NodePool(Protocol):
    """Where workers run: the nodes held, how to get or return some, how to start a worker."""

    def names(self) -> list[str]:
        """Nodes held now, the first ones being those the program started on."""

    def grow(self, nodes: int) -> int:
        """Hold ``nodes`` nodes (blocking, may get fewer); return the nodes held."""

    def request(self, more: int) -> Future[int]:
        """Ask for ``more`` nodes without waiting."""

    def cancel_requests(self) -> None:
        """Withdraw requests not granted yet."""

    def release(self, nodes: Iterable[str]) -> int:
        """Return the named nodes; return the nodes held."""

    def launch(
        self, node: str, command: Sequence[str], env: dict[str, str], tasks: int
    ) -> subprocess.Popen[bytes]:
        """Start ``tasks`` processes of ``command`` on ``node``."""


class SlurmNodes:
    """The nodes of the running Slurm job; workers are ``srun`` steps on their nodes.

    Parameters
    ----------
    allocation : SlurmAllocation
        The job's allocation, which grows, shrinks and queues asynchronous requests.
    srun_options : sequence of str, default=()
        More ``srun`` options (``--mpi=pmi2``, ``--cpu-bind=none``...).
    """

    def __init__(self, allocation: SlurmAllocation, srun_options: Sequence[str] = ()) -> None:
        self.allocation = allocation
        self.srun_options = list(srun_options)

    def names(self) -> list[str]:
        """:meth:`SlurmAllocation.names`."""
        return self.allocation.names()

    def grow(self, nodes: int) -> int:
        """:meth:`SlurmAllocation.grow`."""
        return self.allocation.grow(nodes)

    def request(self, more: int) -> Future[int]:
        """:meth:`SlurmAllocation.request`."""
        return self.allocation.request(more)

    def cancel_requests(self) -> None:
        """:meth:`SlurmAllocation.cancel_requests`."""
        self.allocation.cancel_requests()

    def release(self, nodes: Iterable[str]) -> int:
        """:meth:`SlurmAllocation.release`."""
        return self.allocation.release(nodes)

    def launch(
        self, node: str, command: Sequence[str], env: dict[str, str], tasks: int
    ) -> subprocess.Popen[bytes]:
        """``srun --jobid=JOB --nodelist=NODE --nodes=1 --ntasks=TASKS --overlap COMMAND``."""
        srun = ["srun", f"--jobid={self.allocation.job}", f"--nodelist={node}", "--nodes=1"]
        srun += [f"--ntasks={tasks}", "--overlap", f"--job-name=worker-{node}", *self.srun_options]
        return subprocess.Popen([*srun, *command], env=env)


class FixedNodes:
    """The nodes a program started on, outside Slurm: nothing to add, nothing to give back.

    A malleable program runs unchanged on it, at its starting size (every grow gets no node).

    Examples
    --------
    >>> pool = FixedNodes()
    >>> pool.grow(3), pool.names()
    (1, ['localhost'])
    """

    def __init__(self, names: Sequence[str] = ("localhost",)) -> None:
        self._names = list(names)

    def names(self) -> list[str]:
        """The starting nodes."""
        return list(self._names)

    def grow(self, nodes: int) -> int:
        """No node to add: the nodes held."""
        return len(self._names)

    def request(self, more: int) -> Future[int]:
        """Refused at once (the future holds a :class:`InvalidParameterError`)."""
        future: Future[int] = Future()
        future.set_exception(InvalidParameterError(f"no Slurm job to add {more} node(s) to"))
        return future

    def cancel_requests(self) -> None:
        """Nothing waits."""

    def release(self, nodes: Iterable[str]) -> int:
        """The starting nodes stay: the nodes held."""
        return len(self._names)

    def launch(
        self, node: str, command: Sequence[str], env: dict[str, str], tasks: int
    ) -> subprocess.Popen[bytes]:
        """Never called (no node is ever added)."""
        raise InvalidParameterError(f"no Slurm job to start a worker on {node} in")


def default_pool(grow_timeout: float = 30.0) -> NodePool:
    """:class:`SlurmNodes` of the job ``SLURM_JOB_ID`` in ``SLURM_JOB_PARTITION``, else :class:`FixedNodes`.

    Examples
    --------
    >>> import os
    >>> type(default_pool()).__name__ if "SLURM_JOB_ID" not in os.environ else "FixedNodes"
    'FixedNodes'
    """
    job = os.environ.get("SLURM_JOB_ID")
    if not job:
        return FixedNodes()
    partition = os.environ.get("SLURM_JOB_PARTITION", "")
    return SlurmNodes(SlurmAllocation(job, partition, grow_timeout))


def worker_environment() -> dict[str, str]:
    """The environment of this process without its job step's and launcher's variables (``SLURM_CONF`` kept).

    Examples
    --------
    >>> any(name.startswith("PMI_") for name in worker_environment())
    False
    """
    return {
        name: value
        for name, value in os.environ.items()
        if name == "SLURM_CONF" or not name.startswith(STEP_PREFIXES)
    }
