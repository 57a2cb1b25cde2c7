"""The workflow's quantum step submitted to HyperQueue, as the reference application does.

The reference code sends its quantum job to a HyperQueue server with ``hq submit``; with the
environment variable ``CLUSTAGG_HQ_SERVER_DIR=DIR`` the ``workflow`` mode does the same
through HyperQueue's Python client (package ``hyperqueue``, extra ``hpc``): the quantum step
of every round becomes a one-task HyperQueue job on the server whose directory is ``DIR``,
and runs on whichever worker the server gives it. On a cluster the workers run where the
QPU is reached, for instance ``hq worker start`` inside a job on the quantum partition, or
HyperQueue's automatic allocator (``hq alloc add slurm -- --partition=qpu``). Without the
``hq`` binary, ``python -m clustagg.hq_server DIR`` runs a server and one worker in one process
(:mod:`clustagg.hq_server`), for instance as a job on the quantum partition
(``examples/slurm/cluster/hq_qpu.sh``): the tasks then run inside that job. The task's
standard output and error go next to the step's output file (``round-NNN/selection.hq.out``
and ``.hq.err``).
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

from .errors import InvalidParameterError

__all__ = ["HyperQueueStep", "hq_server_dir"]

VARIABLE = "CLUSTAGG_HQ_SERVER_DIR"


def hq_server_dir() -> Path | None:
    """The HyperQueue server directory named by ``CLUSTAGG_HQ_SERVER_DIR``; None when unset.

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.mkdtemp()
    >>> with mock.patch.dict(os.environ, {"CLUSTAGG_HQ_SERVER_DIR": folder}):
    ...     hq_server_dir() == Path(folder)
    True

    Raises
    ------
    InvalidParameterError
        If the variable names no directory.
    """
    text = os.environ.get(VARIABLE)
    if not text:
        return None
    if not Path(text).is_dir():
        raise InvalidParameterError(f"{VARIABLE}={text}: no such directory (a HyperQueue server directory)")
    return Path(text)


class HyperQueueStep:
    r"""Runs a step's command as a one-task job of a HyperQueue server.

    Connecting happens here, before any step runs, so a server that does not answer is
    reported at once.

    Parameters
    ----------
    server_dir : Path
        The server's directory (``hq server start --server-dir``, or a
        ``hyperqueue.LocalCluster``'s).

    Raises
    ------
    InvalidParameterError
        If the ``hyperqueue`` package is missing or no server answers in ``server_dir``.

    Examples
    --------
    A server with one worker, here in this process (on a cluster: ``hq server start``):

    >>> import sys, tempfile
    >>> from hyperqueue import LocalCluster
    >>> from hyperqueue.cluster import WorkerConfig
    >>> folder = Path(tempfile.mkdtemp())
    >>> with LocalCluster(str(folder)) as cluster:
    ...     cluster.start_worker(WorkerConfig(cores=1))
    ...     step = HyperQueueStep(folder)
    ...     step([sys.executable, "-c", "print('on a worker')"], None, folder / "step.json")
    ...     step([sys.executable, "-c", "import sys; sys.exit('no clusters')"], None, folder / "bad.json")
    'HyperQueue job 2: Program terminated with exit code 1.\nno clusters'
    >>> (folder / "step.hq.out").read_text()
    'on a worker\n'
    """

    def __init__(self, server_dir: Path) -> None:
        try:
            from hyperqueue import Client
        except ImportError as exc:
            raise InvalidParameterError(
                f"{VARIABLE} needs the hyperqueue package: pip install 'bbqmis[hpc]'"
            ) from exc
        try:
            self.client = Client(str(server_dir))
        except Exception as exc:  # a bare Exception from its Rust core, with a backtrace
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InvalidParameterError(
                f"{VARIABLE}={server_dir}: no HyperQueue server answers there ({first_line})"
            ) from exc
        self.server_dir = server_dir

    def __call__(self, command: list[str], timeout: float | None, logs: Path) -> str | None:
        """Submit ``command``, wait for it; None if it succeeded, else why it failed.

        Parameters
        ----------
        command : list of str
            The step's command line, run on a HyperQueue worker.
        timeout : float, optional
            Seconds after which the task is killed (coreutils ``timeout`` on the worker).
        logs : Path
            Stem of the task's output files: ``logs.hq.out`` and ``logs.hq.err``.
        """
        from hyperqueue import Job

        if timeout is not None:
            command = ["timeout", "--kill-after=5", f"{timeout:g}", *command]
        out, err = logs.with_suffix(".hq.out"), logs.with_suffix(".hq.err")
        job = Job()
        job.program(command, stdout=str(out), stderr=str(err), cwd=str(Path.cwd()))
        submitted = self.client.submit(job)
        with contextlib.redirect_stderr(io.StringIO()):  # its tqdm bar would cut our progress line
            if self.client.wait_for_jobs([submitted], raise_on_error=False):
                return None
        return _failure(self.client.get_failed_tasks(submitted), submitted.id, timeout, err)


def _failure(tasks: dict[int, Any], job_id: int, timeout: float | None, err: Path) -> str:
    """One text from a failed job's task errors and its stderr file."""
    errors = "; ".join(task.error for task in tasks.values()) or "failed"
    if timeout is not None and "exit code 124" in errors:
        errors = f"timed out after {timeout:g} s"
    printed = err.read_text(errors="replace").strip() if err.exists() else ""
    return f"HyperQueue job {job_id}: {errors}" + (f"\n{printed}" if printed else "")
