"""A HyperQueue server and worker in one process, for the workflow's quantum step.

``python -m clustagg.hq_server DIR`` stands in for ``hq server start`` plus ``hq worker
start`` where the ``hq`` binary is missing (the ``hyperqueue`` Python package runs both in
its ``LocalCluster``). Run as a job on the quantum partition
(``examples/slurm/cluster/hq_qpu.sh``), the quantum steps that the workflow submits with
``CLUSTAGG_HQ_SERVER_DIR=DIR`` (:mod:`clustagg.hq`) run inside that job.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "serve"]


def serve(server_dir: Path, *, cores: int = 1, ready: Path | None = None) -> None:
    """Run a HyperQueue server with one worker of ``cores`` cores until SIGTERM or SIGINT.

    The server and the worker live in this process (``hyperqueue.LocalCluster``), so
    their tasks run where this process runs, with its environment (inside a Slurm job:
    on that job's node, with its ``SLURM_*`` variables). Clients connect through
    ``server_dir``, which must be on a file system they share.

    Parameters
    ----------
    server_dir : Path
        An existing directory; the server writes its access file there.
    cores : int, default=1
        Cores the worker offers.
    ready : Path, optional
        File written (with this process's id) once the server and worker are up, and
        removed when they stop (a stale one is removed at the start).
    """
    from hyperqueue import LocalCluster
    from hyperqueue.cluster import WorkerConfig

    signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, signals)  # also in the server's threads
    if ready is not None:
        ready.unlink(missing_ok=True)
    try:
        with LocalCluster(str(server_dir)) as cluster:
            cluster.start_worker(WorkerConfig(cores=cores))
            if ready is not None:
                ready.write_text(f"{os.getpid()}\n")
            signal.sigwait(signals)
    finally:
        if ready is not None:
            ready.unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m clustagg.hq_server DIR [--cores N] [--ready FILE]``: :func:`serve`; bad input exits 2."""
    parser = argparse.ArgumentParser(
        prog="python -m clustagg.hq_server",
        description="A HyperQueue server with one worker in this process, until SIGTERM (for "
        "CLUSTAGG_HQ_SERVER_DIR=DIR, e.g. as a job on the quantum partition).",
    )
    parser.add_argument("server_dir", type=Path, help="the server directory (must exist)")
    parser.add_argument("--cores", type=int, default=1, help="cores of the worker (default 1)")
    parser.add_argument("--ready", type=Path, help="file written once the server is up")
    args = parser.parse_args(argv)
    if not args.server_dir.is_dir():
        parser.error(f"server_dir {args.server_dir}: no such directory")
    if args.cores < 1:
        parser.error(f"--cores must be >= 1, got {args.cores}")
    serve(args.server_dir, cores=args.cores, ready=args.ready)
    return 0


if __name__ == "__main__":
    sys.exit(main())
