"""Where the quantum step of the baseline and malleable modes runs, and running it there.

The quantum step (the round's MWIS QUBO, :func:`clustagg.steps.aggregate`) runs in one of
four places, chosen by ``quantum_step`` (``--quantum-step`` on the command line):

``qpu-partition``
    A Slurm job of its own on the quantum partition: ``srun --partition=QPU --nodes=1
    python -m clustagg aggregate ...``, the command the ``workflow`` mode builds
    (:class:`clustagg.workflow.StepCommands`). ``QPU`` is the second name of
    ``CLUSTAGG_SRUN_PARTITIONS=CPU:QPU`` when set, else ``qpu``. Started from inside a job,
    the step is still a job of its own: ``srun`` gets the environment without the job's
    ``SLURM_*`` variables (``SLURM_CONF`` kept).
``hyperqueue``
    A one-task job of the HyperQueue server named by ``CLUSTAGG_HQ_SERVER_DIR``
    (:class:`clustagg.hq.HyperQueueStep`), as the reference application submits it.
``vqpu``
    On rank 0, its circuits on the vQPU of ``--solver qaoa --backend vqpu:URL``; the
    latency is the vQPU server's (``--latency``), so ``quantum_delay`` must be 0.
``local``
    On rank 0 itself, with ``quantum_delay`` seconds of sleep emulating a remote QPU.

The first two run ``python -m clustagg aggregate --quantum-delay S`` there: the same
emulated latency as the workflow mode, spent on the quantum side. They pass files:
``round-NNN/clusters.npz`` in and ``round-NNN/selection.json`` out
(:class:`clustagg.rounds.RoundFiles`), in a directory that the quantum node must see.

Default (:func:`default_quantum_step`): a vQPU backend means ``vqpu``; otherwise, inside a
Slurm job (``SLURM_JOB_ID`` set) with a named solver, ``hyperqueue`` when
``CLUSTAGG_HQ_SERVER_DIR`` is set and ``qpu-partition`` when not; everywhere else
(outside Slurm, or a solver given as a callable, which cannot travel) ``local``.
The result records where the step ran (``AggregationResult.quantum_step_on``):
``qpu-partition``, ``hyperqueue``, ``vqpu`` or ``rank0``.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Mapping
from typing import Any

from backends.utils.validation import check_choice

from . import steps
from .aggregate import Candidates
from .errors import InvalidParameterError
from .hq import HyperQueueStep, hq_server_dir
from .loop import LoopSettings
from .rounds import RoundFiles
from .solvers import MWISSolver, get_solver
from .workflow import StepCommands, run_local, run_step, srun_partitions, step_timeout

__all__ = [
    "QUANTUM_STEPS",
    "QuantumStep",
    "check_quantum_step",
    "default_quantum_step",
    "outside_job_environment",
    "reported_place",
]

#: The places a quantum step can run (``--quantum-step``).
QUANTUM_STEPS = ("qpu-partition", "hyperqueue", "vqpu", "local")

#: The steps that leave this process: they run a command and pass files.
OFFLOADED = ("qpu-partition", "hyperqueue")


def reported_place(quantum_step: str) -> str:
    """The result's ``quantum_step_on`` for a ``quantum_step``: ``local`` is ``rank0``.

    Examples
    --------
    >>> reported_place("local"), reported_place("qpu-partition")
    ('rank0', 'qpu-partition')
    """
    return "rank0" if quantum_step == "local" else quantum_step


def _is_vqpu(options: Mapping[str, Any]) -> bool:
    return str(options.get("backend") or "").startswith("vqpu:")


def default_quantum_step(
    solver: str | MWISSolver, options: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> str:
    """Where the quantum step runs when nobody says (see the module's description).

    Parameters
    ----------
    solver : str or callable
    options : mapping
        The solver's options; a ``backend`` of ``vqpu:URL`` means ``vqpu``.
    environ : mapping, optional
        ``os.environ`` by default.

    Examples
    --------
    >>> default_quantum_step("exact", {}, {})
    'local'
    >>> default_quantum_step("exact", {}, {"SLURM_JOB_ID": "7"})
    'qpu-partition'
    >>> default_quantum_step("exact", {}, {"SLURM_JOB_ID": "7", "CLUSTAGG_HQ_SERVER_DIR": "hq"})
    'hyperqueue'
    >>> default_quantum_step("qaoa", {"backend": "vqpu:http://q1:8000"}, {"SLURM_JOB_ID": "7"})
    'vqpu'
    """
    env = os.environ if environ is None else environ
    if _is_vqpu(options):
        return "vqpu"
    if not env.get("SLURM_JOB_ID") or not isinstance(solver, str):
        return "local"
    return "hyperqueue" if env.get("CLUSTAGG_HQ_SERVER_DIR") else "qpu-partition"


def check_quantum_step(
    quantum_step: str | None,
    solver: str | MWISSolver,
    options: Mapping[str, Any],
    quantum_delay: float,
    *,
    name: str = "quantum_step",
) -> str:
    """``quantum_step``, or its default when None, once it can run here.

    Parameters
    ----------
    quantum_step : {"qpu-partition", "hyperqueue", "vqpu", "local"} or None
    solver : str or callable
        An offloaded step runs ``python -m clustagg aggregate --solver NAME``: a name only.
    options : mapping
        Solver options.
    quantum_delay : float
        Must be 0 for ``vqpu`` (the vQPU server emulates the latency).
    name : str, default="quantum_step"
        The parameter's name in messages (``--quantum-step`` on the command line).

    Returns
    -------
    str

    Raises
    ------
    InvalidParameterError
        If the value is not one of :data:`QUANTUM_STEPS`, ``srun`` is missing for
        ``qpu-partition``, ``CLUSTAGG_HQ_SERVER_DIR`` is unset for ``hyperqueue``, the solver
        is a callable for either, or ``vqpu`` has no ``--solver qaoa --backend vqpu:URL`` or
        a nonzero ``quantum_delay``.

    Examples
    --------
    >>> check_quantum_step("local", "exact", {}, 2.0)
    'local'
    >>> check_quantum_step("vqpu", "exact", {}, 0.0, name="--quantum-step")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: --quantum-step vqpu needs --solver qaoa --backend vqpu:URL
    """
    if quantum_step is None:
        return default_quantum_step(solver, options)
    where = check_choice(quantum_step, name, QUANTUM_STEPS)
    if where in OFFLOADED and not isinstance(solver, str):
        raise InvalidParameterError(f"{name} {where} runs the solver by name; got a callable")
    if where == "qpu-partition" and shutil.which("srun") is None:
        raise InvalidParameterError(f"{name} qpu-partition needs srun on PATH (a Slurm cluster)")
    if where == "hyperqueue" and hq_server_dir() is None:
        raise InvalidParameterError(
            f"{name} hyperqueue needs CLUSTAGG_HQ_SERVER_DIR=DIR (a HyperQueue server)"
        )
    if where == "vqpu" and not (solver == "qaoa" and _is_vqpu(options)):
        raise InvalidParameterError(f"{name} vqpu needs --solver qaoa --backend vqpu:URL")
    if where == "vqpu" and quantum_delay:
        raise InvalidParameterError(
            f"{name} vqpu takes its latency from the vQPU server (--latency); "
            f"drop --quantum-delay {quantum_delay:g}"
        )
    return where


def outside_job_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without the current job's ``SLURM_*`` variables (``SLURM_CONF`` kept).

    ``srun`` started with it makes a job of its own instead of a step of the current job.

    Examples
    --------
    >>> outside_job_environment({"SLURM_JOB_ID": "7", "SLURM_CONF": "/etc/slurm.conf", "HOME": "/root"})
    {'SLURM_CONF': '/etc/slurm.conf', 'HOME': '/root'}
    """
    env = os.environ if environ is None else environ
    return {key: value for key, value in env.items() if not key.startswith("SLURM_") or key == "SLURM_CONF"}


class QuantumStep:
    """Runs the quantum step of a round where :func:`check_quantum_step` chose.

    Parameters
    ----------
    where : {"qpu-partition", "hyperqueue", "vqpu", "local"}
        Checked by :func:`check_quantum_step`.
    solver : str or callable
        A name for the offloaded steps; for a local step a name, or a solver already built
        (with ``options``, which are then not applied again).
    options : mapping
        Solver options.
    loop : LoopSettings
        Its ``quantum_delay`` is spent where the step runs (not for ``vqpu``).
    rounds : RoundFiles, optional
        The run's files: an offloaded step reads round ``i``'s clusters there and writes its
        selection; needed for the offloaded steps and for :meth:`__call__`.

    Raises
    ------
    InvalidParameterError
        If the HyperQueue server does not answer (``hyperqueue``), or ``rounds`` is
        missing for an offloaded step.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from clustagg.data import make_reference_points
    >>> X = make_reference_points(300)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rounds = RoundFiles(Path(folder), X, seed=0)
    ...     steps.cluster_file(X, 0, rounds.outputs(0)["cluster"])
    ...     step = QuantumStep("local", "exact", {}, LoopSettings(), rounds)
    ...     selection = step(0)
    ...     written = steps.load_json(rounds.outputs(0)["quantum"], seed=0)
    ...     step.on, step.offloaded, selection["chosen"] == written["chosen"]
    ('rank0', False, True)
    >>> sorted(selection["ran_on"])  # the Slurm job, partition and node the step ran on
    ['job', 'node', 'partition']
    """

    def __init__(
        self,
        where: str,
        solver: str | MWISSolver,
        options: Mapping[str, Any],
        loop: LoopSettings,
        rounds: RoundFiles | None = None,
    ) -> None:
        self.where, self.rounds, self.loop = where, rounds, loop
        self.on = reported_place(where)
        self.offloaded = where in OFFLOADED
        built = solver if not isinstance(solver, str) else None  # built with the options already
        self._solver: MWISSolver | None = (
            None if self.offloaded else built if built is not None else get_solver(solver, **options)
        )
        self._timeout = step_timeout()
        self._hyperqueue: HyperQueueStep | None = None
        if where == "hyperqueue":
            server = hq_server_dir()
            if server is None:
                raise InvalidParameterError("quantum_step hyperqueue needs CLUSTAGG_HQ_SERVER_DIR=DIR")
            self._hyperqueue = HyperQueueStep(server)
        if self.offloaded:
            if rounds is None:
                raise InvalidParameterError(
                    f"quantum_step {where} passes files: it needs the run's RoundFiles"
                )
            partitions = srun_partitions() or (os.environ.get("SLURM_JOB_PARTITION", "cpu"), "qpu")
            self._commands = StepCommands(
                rounds, str(solver), options, loop, 1, partitions, hyperqueue=self._hyperqueue is not None
            )

    @property
    def _delay(self) -> float:
        """Seconds slept in this process: the local step's ``quantum_delay``, else none."""
        return self.loop.quantum_delay if self.where == "local" else 0.0

    def solve(self, i: int, seed: int, candidates: Candidates, meta: Mapping[str, Any]) -> dict[str, Any]:
        """The selection of round ``i`` (seed ``seed``) from its candidates in memory.

        An offloaded step gets them through round ``i``'s ``clusters.npz`` (written here,
        with ``meta``: ``seed``, ``n_samples``, ``parameters``); the others solve them here.

        Examples
        --------
        >>> import numpy as np
        >>> from clustagg.aggregate import Candidates
        >>> candidates = Candidates(np.array([[0, 0, 1, 1], [0, 1, 1, 1]]), ("a", "b"))
        >>> step = QuantumStep("local", "exact", {}, LoopSettings())
        >>> step.solve(0, 5, candidates, {})["chosen"]
        [2, 3]
        """
        if not self.offloaded:
            assert self._solver is not None  # made on construction for a step here
            return steps.aggregate(candidates, self._solver, seed, quantum_delay=self._delay)
        assert self.rounds is not None  # checked on construction
        steps.save_clusters(self.rounds.outputs(i)["cluster"], candidates, dict(meta))
        return self(i)

    def __call__(self, i: int) -> dict[str, Any]:
        """Write round ``i``'s ``selection.json`` from its ``clusters.npz``; return the selection."""
        if self.rounds is None:
            raise InvalidParameterError("QuantumStep(rounds=None) solves in memory only: call solve()")
        out = self.rounds.outputs(i)
        seed = self.rounds.seed + i
        if self._solver is not None:  # a step here
            return steps.aggregate_file(
                out["cluster"], seed, out["quantum"], self._solver, quantum_delay=self._delay
            )
        if self._hyperqueue is not None:
            hyperqueue = self._hyperqueue
            attempt: Any = functools.partial(hyperqueue, logs=out["quantum"])
        else:
            attempt = functools.partial(run_local, env=outside_job_environment())
        run_step(self._commands(i, "quantum"), f"quantum of round {i}", self._timeout, attempt)
        return steps.load_json(out["quantum"], seed=seed)
