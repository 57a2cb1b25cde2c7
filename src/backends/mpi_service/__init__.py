"""A quantum service over MPI: circuits go to a process that owns the real backend.

The service (:func:`~backends.mpi_service.service.serve`, ``python -m backends.mpi_service
serve``) runs as the quantum component of a heterogeneous Slurm job and owns one backend
(Aer, IQM, a vQPU); classical processes reach it with the backend spec ``mpi:NAME``
(:class:`~backends.mpi_service.client.MPIServiceBackend`), either

* through MPI dynamic process management, each component in its own ``MPI_COMM_WORLD``:
  the service opens a port and publishes it under ``NAME``, a client looks it up and
  connects (:mod:`~backends.mpi_service.names`); or
* in one shared ``MPI_COMM_WORLD`` (``srun --het-group=0,1``), with the spec
  ``mpi:world`` (the service is the last rank) or ``mpi:world:RANK``.

Requests are answered in order; a client's :meth:`~MPIServiceBackend.submit` returns at
once and the result arrives through a non-blocking receive, so classical work goes on
while the circuits run.
"""

from backends.mpi_service.client import MPIServiceBackend, PendingRun
from backends.mpi_service.service import ServiceStats, serve

__all__ = ["MPIServiceBackend", "PendingRun", "ServiceStats", "serve"]
