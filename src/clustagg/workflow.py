"""The ``workflow`` resource mode: every step is a separate command passing files.

Each step runs as ``python -m clustagg cluster|aggregate|score`` (:mod:`clustagg.cli`);
the cluster step runs under ``mpiexec -n cluster_processes``. A step whose output is
already on disk is skipped (:class:`clustagg.rounds.RoundFiles`), a failed step is rerun
once (as is one that runs past ``CLUSTAGG_STEP_TIMEOUT`` seconds, when set), so a killed
step or runner is recovered by running again on the same directory.
The same loop is described for workflow managers in ``examples/clustagg/workflow.cwl``.
Node-seconds: floor 0; ``cluster_processes`` nodes for the cluster step, 0 for the
quantum step (it holds no classical node), 1 for the score step.

With the environment variable ``CLUSTAGG_SRUN_PARTITIONS=CPU:QPU`` (e.g. ``cpu:qpu``) each
step is a Slurm job of its own, started with ``srun``: the cluster step on
``cluster_processes`` nodes of partition CPU (one MPI task per node, through Slurm's PMI),
the quantum step on one node of partition QPU, the score step on one node of CPU. Nodes are
then held only while a step runs, and Slurm's job records show what each step held.
Inside a heterogeneous Slurm job, ``CLUSTAGG_SRUN_HETJOB=1`` starts the steps with ``srun`` on
its components instead: classical steps on component 0, the quantum step on component 1 (a
sub-job of a chain, ``examples/slurm/cluster/clustagg_chain_step.sh``). With
``CLUSTAGG_HQ_SERVER_DIR=DIR`` the quantum step is a HyperQueue job instead
(:mod:`clustagg.hq`), as the reference application submits it. The result's
``quantum_step_on`` says which: ``hyperqueue``, ``qpu-partition`` (``srun`` on a partition or
a component), or ``rank0`` (a local process, where ``--quantum-delay`` is slept).

With ``CLUSTAGG_MALLEABLE_CLUSTER=1`` (``python -m clustagg workflow --malleable-cluster``) the
cluster step is itself malleable (:func:`clustagg.steps.cluster_file_malleable`): it starts
on one node (``srun --nodes=1``, or a local process) and grows its Slurm job to
``cluster_processes`` nodes with :mod:`clustagg.reconfiguration` for the clusterings, a worker
started by Slurm on each added node; the workers leave and the nodes are returned before the
step ends and the quantum step starts. The step waits for one free node instead of
``cluster_processes`` and holds the others only while it clusters; a grow Slurm does not grant
within ``CLUSTAGG_GROW_TIMEOUT`` seconds clusters with fewer. Each step's stderr is kept in
its round folder (``round-NNN/PHASE.log``: the resizes and the workers' nodes).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .environment import seconds_from_env
from .errors import ClustAggError, InvalidParameterError
from .hq import HyperQueueStep, hq_server_dir
from .loop import LoopSettings
from .result import AggregationResult
from .rounds import PHASES, RoundFiles
from .timeline import Timeline

__all__ = [
    "StepCommands",
    "malleable_cluster",
    "run_local",
    "run_step",
    "run_workflow",
    "srun_hetjob",
    "srun_partitions",
    "step_timeout",
]


def _flags(options: Mapping[str, object]) -> list[str]:
    """``{"max_qubits": 20}`` -> ``["--max-qubits=20"]``."""
    return [f"--{key.replace('_', '-')}={value}" for key, value in options.items()]


@dataclass(frozen=True)
class StepCommands:
    """Command lines of the steps of every round, for one run directory.

    Parameters
    ----------
    rounds : RoundFiles
        The run directory.
    solver : str
        Solver name (:data:`clustagg.solvers.SOLVERS`).
    options : dict
        Solver options, passed as ``--key=value`` flags.
    loop : LoopSettings
    processes : int
        MPI processes of the cluster step (1: no ``mpiexec``).
    partitions : (str, str), optional
        Slurm partitions ``(cpu, qpu)``: every step becomes ``srun`` on them (see the
        module's description); default: local processes.
    hyperqueue : bool
        The quantum step goes to a HyperQueue worker (:mod:`clustagg.hq`): no ``srun``.
    hetjob : bool
        Every step becomes ``srun`` on a component of the heterogeneous job it runs in
        (component 0 classical, 1 quantum) instead of on a partition.
    malleable : bool
        The cluster step starts on one node and grows to ``processes`` nodes
        (``python -m clustagg cluster --grow-to processes``; no ``mpiexec``).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     rounds = RoundFiles(Path(folder), np.eye(2), seed=0)
    ...     commands = StepCommands(rounds, "exact", {}, LoopSettings(), 3, ("cpu", "qpu"), malleable=True)
    ...     " ".join(commands.cluster(0)[:4]), commands.cluster(0)[-2:]
    ('srun --partition=cpu --nodes=1 --ntasks=1', ['--grow-to', '3'])
    """

    rounds: RoundFiles
    solver: str
    options: Mapping[str, Any]
    loop: LoopSettings
    processes: int
    partitions: tuple[str, str] | None = None
    hyperqueue: bool = False
    hetjob: bool = False
    malleable: bool = False

    def __call__(self, i: int, phase: str) -> list[str]:
        """Command of ``phase`` of round ``i``."""
        build = {"cluster": self.cluster, "quantum": self.aggregate, "score": self.score}[phase]
        out = self.rounds.outputs(i)
        return [*build(i), "--seed", str(self.rounds.seed + i), "--out", str(out[phase])]

    @property
    def python(self) -> list[str]:
        """``python -m clustagg`` with this interpreter."""
        return [sys.executable, "-m", "clustagg"]

    def srun(self, partition: int, nodes: int) -> list[str]:
        """``srun`` on ``nodes`` nodes, one task each; [] when steps are local.

        The nodes are those of ``partitions[partition]``, or of component ``partition`` of the
        heterogeneous job (``hetjob``).
        """
        if self.hetjob:
            where = f"--het-group={partition}"
        elif self.partitions is not None:
            where = f"--partition={self.partitions[partition]}"
        else:
            return []
        return ["srun", where, f"--nodes={nodes}", f"--ntasks={nodes}"]

    def cluster(self, i: int) -> list[str]:
        """``[mpiexec -n p | srun ...] python -m clustagg cluster ...`` without ``--seed`` and ``--out``."""
        if self.malleable:  # one node, grown to ``processes`` by the step itself
            grow = ["--grow-to", str(self.processes)]
            return [*self.srun(0, 1), *self.python, "cluster", "--points", str(self.rounds.points), *grow]
        launcher = self.srun(0, self.processes)  # Slurm's tasks are the MPI ranks
        if not launcher and self.processes > 1:
            launcher = ["mpiexec", "-n", str(self.processes)]
        return [*launcher, *self.python, "cluster", "--points", str(self.rounds.points)]

    def aggregate(self, i: int) -> list[str]:
        """``python -m clustagg aggregate ...`` without ``--seed`` and ``--out``."""
        return [
            *([] if self.hyperqueue else self.srun(1, 1)),
            *self.python,
            "aggregate",
            "--clusters",
            str(self.rounds.outputs(i)["cluster"]),
            "--solver",
            self.solver,
            *_flags(self.options),
            "--quantum-delay",
            str(self.loop.quantum_delay),
        ]

    def score(self, i: int) -> list[str]:
        """``python -m clustagg score ...`` without ``--seed`` and ``--out``."""
        out = self.rounds.outputs(i)
        size = self.loop.sample_size
        sample = ["--exact-silhouette"] if size is None else ["--sample-size", str(size)]
        return [
            *self.srun(0, 1),
            *self.python,
            "score",
            "--points",
            str(self.rounds.points),
            "--clusters",
            str(out["cluster"]),
            "--selection",
            str(out["quantum"]),
            "--labels-out",
            str(self.rounds.labels(i)),
            *sample,
            *_flags(self.rounds.previous(i)),
        ]


def srun_partitions() -> tuple[str, str] | None:
    """``(cpu, qpu)`` from ``CLUSTAGG_SRUN_PARTITIONS=cpu:qpu``; None when it is unset.

    Raises
    ------
    InvalidParameterError
        If the variable is set but not two names joined by ``:``.
    """
    text = os.environ.get("CLUSTAGG_SRUN_PARTITIONS")
    if not text:
        return None
    cpu, sep, qpu = text.partition(":")
    if not (sep and cpu and qpu) or ":" in qpu:
        raise InvalidParameterError(
            f"CLUSTAGG_SRUN_PARTITIONS must be CPU_PARTITION:QPU_PARTITION, e.g. cpu:qpu, got {text!r}"
        )
    return cpu, qpu


def srun_hetjob() -> bool:
    """Whether ``CLUSTAGG_SRUN_HETJOB=1``: steps run on the components of the current heterogeneous job.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"CLUSTAGG_SRUN_HETJOB": "1"}):
    ...     srun_hetjob()
    True

    Raises
    ------
    InvalidParameterError
        If the variable is set to anything but 0 or 1, or ``CLUSTAGG_SRUN_PARTITIONS`` is
        set too.
    """
    text = os.environ.get("CLUSTAGG_SRUN_HETJOB", "0")
    if text not in ("0", "1"):
        raise InvalidParameterError(f"CLUSTAGG_SRUN_HETJOB must be 0 or 1, got {text!r}")
    if text == "1" and os.environ.get("CLUSTAGG_SRUN_PARTITIONS"):
        raise InvalidParameterError("CLUSTAGG_SRUN_HETJOB=1 and CLUSTAGG_SRUN_PARTITIONS exclude each other")
    return text == "1"


def malleable_cluster(flag: bool | None = None) -> bool:
    """Whether the cluster step grows its own job: ``flag``, else ``CLUSTAGG_MALLEABLE_CLUSTER=1``.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"CLUSTAGG_MALLEABLE_CLUSTER": "1"}):
    ...     malleable_cluster(), malleable_cluster(False)
    (True, False)

    Raises
    ------
    InvalidParameterError
        If the variable is set to anything but 0 or 1, or the answer is yes while
        ``CLUSTAGG_SRUN_HETJOB=1`` is set too (a component of a heterogeneous job cannot grow).
    """
    text = os.environ.get("CLUSTAGG_MALLEABLE_CLUSTER", "0")
    if text not in ("0", "1"):
        raise InvalidParameterError(f"CLUSTAGG_MALLEABLE_CLUSTER must be 0 or 1, got {text!r}")
    malleable = text == "1" if flag is None else flag
    if malleable and os.environ.get("CLUSTAGG_SRUN_HETJOB", "0") == "1":
        raise InvalidParameterError(
            "a malleable cluster step needs steps that are jobs of their own; a component of "
            "CLUSTAGG_SRUN_HETJOB=1 cannot grow"
        )
    return malleable


def step_timeout() -> float | None:
    """Seconds after which a step is killed and rerun: ``CLUSTAGG_STEP_TIMEOUT``, unset for none.

    A step that hangs (a lost node, an MPI start-up that never completes) is then treated
    as a failed one.

    Examples
    --------
    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"CLUSTAGG_STEP_TIMEOUT": "90"}):
    ...     step_timeout()
    90.0

    Raises
    ------
    InvalidParameterError
        If the variable is set but not a positive number of seconds.
    """
    return seconds_from_env("CLUSTAGG_STEP_TIMEOUT")


def run_local(
    command: list[str],
    timeout: float | None = None,
    *,
    env: Mapping[str, str] | None = None,
    log: Path | None = None,
) -> str | None:
    """Run a step's command in a child process; None if it succeeded, else why it failed.

    ``env`` is the child's environment (this process's by default); what it printed on
    stderr is written to ``log`` when given.

    Examples
    --------
    >>> import sys
    >>> run_local([sys.executable, "-c", "pass"]) is None
    True
    >>> run_local([sys.executable, "-c", "import sys; sys.exit('no clusters')"])
    'no clusters'
    """
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        printed = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else exc.stderr
        reason = f"timed out after {timeout:g} s"
        return reason + (f"; it printed:\n{printed.strip()}" if printed else "")
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(done.stderr)
    return None if done.returncode == 0 else done.stderr.strip()


def run_step(
    command: list[str],
    description: str,
    timeout: float | None = None,
    attempt: Callable[[list[str], float | None], str | None] = run_local,
) -> None:
    """Run a step's command; rerun it once if it fails or runs longer than ``timeout`` seconds.

    Parameters
    ----------
    command : list of str
    description : str
        The step, for the error message (``"cluster of round 0"``).
    timeout : float, optional
        Seconds after which an attempt is killed.
    attempt : callable
        ``attempt(command, timeout)`` runs the command once and returns None if it succeeded,
        else why it failed: :func:`run_local`, or a :class:`~clustagg.hq.HyperQueueStep`.

    Raises
    ------
    ClustAggError
        If both attempts fail; the message ends with the second attempt's reason (its
        stderr, or what it had printed when it timed out).
    """
    for _attempt in (1, 2):
        reason = attempt(command, timeout)
        if reason is None:
            return
    raise ClustAggError(f"workflow step {description} failed twice:\n{reason}")


def run_workflow(
    X: NDArray[np.float64],
    solver: str,
    options: Mapping[str, Any],
    seed: int,
    loop: LoopSettings,
    workdir: Path,
    processes: int,
    malleable: bool | None = None,
) -> AggregationResult:
    """Run the loop as separate step commands passing files in ``workdir``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    solver : str
        Solver name.
    options : mapping
        Solver options.
    seed : int
        The run's seed; round ``i`` uses ``seed + i``.
    loop : LoopSettings
    workdir : Path
        Run directory; rerunning on it resumes.
    processes : int
        MPI processes of the cluster step (nodes, for a malleable one).
    malleable : bool, optional
        Grow the cluster step from one node to ``processes`` (:func:`malleable_cluster`);
        default ``CLUSTAGG_MALLEABLE_CLUSTER``.

    Returns
    -------
    AggregationResult

    Raises
    ------
    InvalidParameterError
        If ``processes > 1`` and ``mpiexec`` is not on ``PATH``, or
        ``CLUSTAGG_HQ_SERVER_DIR`` names no HyperQueue server.
    ClustAggError
        If a step fails twice.
    """
    rounds = RoundFiles(workdir, X, seed)
    timeline = Timeline(floor=0)
    partitions, hetjob, malleable = srun_partitions(), srun_hetjob(), malleable_cluster(malleable)
    timeout, server = step_timeout(), hq_server_dir()
    if partitions is None and not (hetjob or malleable) and processes > 1 and shutil.which("mpiexec") is None:
        raise InvalidParameterError(
            f"cluster_processes={processes} needs mpiexec on PATH; use 1 to run serially"
        )
    hyperqueue = None if server is None else HyperQueueStep(server)
    commands = StepCommands(
        rounds, solver, options, loop, processes, partitions, hyperqueue is not None, hetjob, malleable
    )

    def attempt(i: int, phase: str) -> Callable[[list[str], float | None], str | None]:
        if phase != "quantum" or hyperqueue is None:
            log = rounds.outputs(i)[phase].with_name(f"{phase}.log")
            return lambda command, limit: run_local(command, limit, log=log)
        return lambda command, limit: hyperqueue(command, limit, rounds.outputs(i)[phase])

    def execute(phase: str) -> Callable[[int], None]:
        return lambda i: run_step(commands(i, phase), f"{phase} of round {i}", timeout, attempt(i, phase))

    nodes = {"cluster": processes, "quantum": 0, "score": 1}
    on = "hyperqueue" if hyperqueue else "qpu-partition" if partitions or hetjob else "rank0"
    execute_phase = {phase: execute(phase) for phase in PHASES}
    return rounds.run(timeline, loop, execute_phase, nodes, "workflow", quantum_step_on=on)
