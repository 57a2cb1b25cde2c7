"""Command line: ``python -m clustagg {run,workflow,cluster,aggregate,score,generate}``.

``run`` and ``workflow`` show the phase of every round on stderr
(:class:`backends.utils.progress.ProgressLine`: live on a terminal, plain lines in a pipe;
``--quiet`` silences it); ``--help`` shows every default and examples. Exit status: 0 on
success, 1 on an internal failure, 2 on bad input or environment, 130 when interrupted,
each failure with a one-line reason on stderr.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from backends.registry import check_spec
from backends.utils.arguments import CommandParser
from backends.utils.files import check_distinct, check_folder_writable, check_writable
from backends.utils.progress import ProgressLine
from backends.utils.validation import check_positive_int

from . import steps
from .clusterers import MAX_CLUSTERS
from .data import REFERENCE_SAMPLES, make_reference_points, read_points
from .errors import ClustAggError, DataFormatError, InvalidParameterError
from .quantum_step import OFFLOADED, QUANTUM_STEPS, check_quantum_step
from .reference import check_reference_run
from .runner import GROWS, MODES, run
from .solvers import ANGLES, SOLVERS, TRAINING_METHODS, TRAINING_STARTS, get_solver

if TYPE_CHECKING:
    from mpi4py import MPI

    from .result import AggregationResult

__all__ = ["main"]

#: Most points ``--n-samples`` may ask for (160 MB of 2-D points; the loop is far slower
#: than that on one node).
MAX_SAMPLES = 10_000_000

#: Examples shown by ``--help``, per subcommand (the top level shows them all).
EXAMPLES = {
    "run": """\
  python -m clustagg run --n-samples 5000 --seed 1 --json result.json --plot clusters.png
  python -m clustagg run --reference --plot reference.png      # the reference run, 80,000 points
  python -m clustagg run --n-samples 20000 --exact-silhouette --quiet
  mpiexec -n 3 python -m clustagg run --points data.csv --quantum-delay 2
  python -m clustagg run --mode malleable --n-samples 5000 --workdir ckpt/
  CLUSTAGG_ARGS="--grow async" sbatch examples/slurm/cluster/clustagg_malleable.sh
  python -m clustagg run --solver qaoa --backend aer --max-qubits 20 --n-samples 2000
  srun -p cpu -N 1 python -m clustagg run --quantum-step qpu-partition --quantum-delay 2 --workdir run/

quantum step (--quantum-step, modes baseline and malleable):
  qpu-partition  a Slurm job on the quantum partition (qpu, or QPU of CLUSTAGG_SRUN_PARTITIONS=CPU:QPU)
  hyperqueue     a job of the HyperQueue server of CLUSTAGG_HQ_SERVER_DIR=DIR
  vqpu           on rank 0, circuits on the vQPU of --solver qaoa --backend vqpu:URL
  local          on rank 0, sleeping --quantum-delay
  default: vqpu for a vqpu: backend; inside a Slurm job (SLURM_JOB_ID set) hyperqueue when
  CLUSTAGG_HQ_SERVER_DIR is set, else qpu-partition; outside Slurm local
""",
    "workflow": """\
  python -m clustagg workflow --n-samples 5000 --workdir wf/
  python -m clustagg workflow --points points.csv --cluster-processes 1 --workdir wf/ --json result.json
  CLUSTAGG_SRUN_PARTITIONS=cpu:qpu python -m clustagg workflow --n-samples 5000 --workdir wf/

environment:
  CLUSTAGG_SRUN_PARTITIONS=CPU:QPU  every step a Slurm job (srun) on these partitions
  CLUSTAGG_SRUN_HETJOB=1            every step a job step of the current heterogeneous job
                                    (component 0 classical, 1 quantum)
  CLUSTAGG_HQ_SERVER_DIR=DIR        the quantum step as a job of the HyperQueue server of DIR
  CLUSTAGG_MALLEABLE_CLUSTER=1      the cluster step grows its own job (as --malleable-cluster)
  CLUSTAGG_STEP_TIMEOUT=S           a step running longer than S seconds is killed and rerun
""",
    "generate": """\
  python -m clustagg generate --n-samples 5000 --out points.csv
""",
    "cluster": """\
  mpiexec -n 3 python -m clustagg cluster --points points.csv --seed 0 --out clusters.npz
  python -m clustagg cluster --points points.csv --seed 0 --out clusters.npz
""",
    "aggregate": """\
  python -m clustagg aggregate --clusters clusters.npz --seed 0 --out selection.json
  python -m clustagg aggregate --clusters clusters.npz --seed 0 --out selection.json --solver exact
""",
    "score": """\
  python -m clustagg score --points points.csv --clusters clusters.npz --selection selection.json \\
      --seed 0 --out score.json --labels-out labels.npy
""",
}

EXIT_STATUS = """\
exit status:
  0  success: the best clustering found (also when --max-iter ends the loop below --threshold)
  1  internal failure (one line on stderr)
  2  bad input or environment: a bad option, unreadable points, a step input of another round,
     no mpiexec for the malleable mode (one line on stderr naming the file, line or option)
  130  interrupted (Ctrl-C)
"""


def _epilog(*commands: str) -> str:
    """The examples of ``commands`` and the exit statuses, for an ``--help`` epilog."""
    return "examples:\n" + "".join(EXAMPLES[c] for c in commands) + "\n" + EXIT_STATUS


class _HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Epilogs as written; option defaults appended to their help (except None and False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.required:
            return action.help
        return super()._get_help_string(action)


def _solver_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("solver")
    group.add_argument("--solver", choices=sorted(SOLVERS), default="anneal", help="MWIS solver")
    group.add_argument("--backend", help="backend spec for --solver qaoa (default: aer)")
    group.add_argument("--shots", type=int, help="QAOA shots (default: 1024)")
    group.add_argument(
        "--max-qubits", type=int, help="QAOA width limit; wider graphs are cut or annealed (default: 20)"
    )
    group.add_argument("--num-reads", type=int, help="annealing reads (default: 50)")
    group.add_argument(
        "--quantum-delay", type=float, default=0.0, metavar="S", help="emulated QPU seconds per step"
    )
    angles = parser.add_argument_group("QAOA angles (--solver qaoa)")
    angles.add_argument(
        "--angles",
        choices=ANGLES,
        help="the closed-form p = 1 optimum (exact, no circuit), or trained on the backend by a scipy "
        "optimiser from sampled energies (default: closed-form)",
    )
    angles.add_argument(
        "--training-evaluations", type=int, metavar="N", help="evaluations per problem (default: 40)"
    )
    angles.add_argument(
        "--training-shots", type=int, metavar="N", help="shots per evaluation (default: --shots)"
    )
    angles.add_argument(
        "--training-start", choices=TRAINING_STARTS, help="optimiser start (default: closed-form)"
    )
    angles.add_argument(
        "--training-method", choices=TRAINING_METHODS, help="scipy optimiser (default: cobyla)"
    )


#: Training options, which need ``--angles trained``, and the positive integers among them.
_TRAINING = ("training_evaluations", "training_shots", "training_start", "training_method")
_POSITIVE = ("training_evaluations", "training_shots")


def _solver_options(args: argparse.Namespace) -> dict[str, Any]:
    qaoa = ("backend", "shots", "max_qubits", "angles", *_TRAINING)
    applies = {"qaoa": qaoa, "anneal": ("num_reads",), "exact": ()}
    options: dict[str, Any] = {}
    for name in ("backend", "shots", "max_qubits", "num_reads", "angles", *_TRAINING):
        value = getattr(args, name)
        if value is None:
            continue
        option = f"--{name.replace('_', '-')}"
        if name not in applies[args.solver]:
            raise InvalidParameterError(f"{option} does not apply to --solver {args.solver}")
        if name in _TRAINING and args.angles != "trained":
            raise InvalidParameterError(
                f"{option} needs --angles trained, got --angles {args.angles or 'closed-form'}"
            )
        if name in _POSITIVE:
            check_positive_int(value, option)
        # a bad spec is refused here, before the points are read, not after the backend's import
        options[name] = check_spec(value) if name == "backend" else value
    return options


def _silhouette_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--sample-size", type=int, default=20000, help="silhouette sample size")
    group.add_argument(
        "--exact-silhouette", action="store_true", help="exact silhouette over all points (numba, every core)"
    )


def _add_parser(
    commands: argparse._SubParsersAction[CommandParser], name: str, text: str, *examples: str
) -> argparse.ArgumentParser:
    """Add subcommand ``name`` with help ``text``, shown defaults and its examples."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=text,
        description=text,
        epilog=_epilog(*(examples or (name,))),
        formatter_class=_HelpFormatter,
    )
    return parser


def _add_loop_command(commands: argparse._SubParsersAction[CommandParser], name: str, text: str) -> None:
    """Add ``run`` or ``workflow``: the whole loop, with its data, loop and mode options."""
    sub = _add_parser(commands, name, text)
    source = sub.add_mutually_exclusive_group()
    source.add_argument("--points", type=Path, help="CSV (x,y,... per line, optional header) or .npy")
    source.add_argument(
        "--n-samples", type=int, default=REFERENCE_SAMPLES, help="size of the generated reference data"
    )
    if name == "run":
        sub.add_argument("--mode", choices=MODES, default="baseline", help="resource mode")
        sub.add_argument(
            "--quantum-step",
            choices=QUANTUM_STEPS,
            help="where the baseline and malleable modes run the quantum step (default: see below)",
        )
        sub.add_argument(
            "--reference",
            action="store_true",
            help="replay the reference application's run: its parameters per round, k-means to "
            "convergence, on the 80,000 reference points (baseline mode, seed 0)",
        )
    sub.add_argument("--seed", type=int, default=0, help="run seed; round i uses seed + i")
    sub.add_argument("--threshold", type=float, default=0.8, help="stop after a round above this silhouette")
    sub.add_argument("--max-iter", type=int, default=10, help="at most this many rounds")
    _solver_arguments(sub)
    _silhouette_arguments(sub)
    sub.add_argument(
        "--workdir",
        type=Path,
        help="files of the malleable/workflow modes (resumable) and of offloaded quantum steps",
    )
    sub.add_argument("--workers", type=int, default=2, help="processes spawned per malleable cluster phase")
    if name == "run":
        sub.add_argument(
            "--grow",
            choices=GROWS,
            default="blocking",
            help="malleable mode in a Slurm job: wait for the nodes before each cluster phase, or ask "
            "for them as the quantum step starts and adopt them once granted",
        )
    sub.add_argument(
        "--cluster-processes", type=int, default=3, help="MPI processes of the workflow cluster step"
    )
    if name == "workflow":
        grow = "cluster step on one node, grown to --cluster-processes (CLUSTAGG_MALLEABLE_CLUSTER=1)"
        sub.add_argument("--malleable-cluster", action="store_true", help=grow)
    sub.add_argument("--json", type=Path, help="write the AggregationResult as JSON")
    sub.add_argument("--plot", type=Path, help="draw the chosen clustering (.png, .pdf or .svg)")
    sub.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _add_step_commands(commands: argparse._SubParsersAction[CommandParser]) -> None:
    """Add ``generate`` and the three workflow steps ``cluster``, ``aggregate`` and ``score``."""
    sub = _add_parser(commands, "generate", "write the reference data (CSV, or .npy by the --out suffix)")
    sub.add_argument("--n-samples", type=int, default=REFERENCE_SAMPLES, help="number of points")
    sub.add_argument(
        "--out", type=Path, required=True, help="output file: .npy for a numpy array, anything else CSV"
    )

    sub = _add_parser(commands, "cluster", "step 1: the three base clusterings (one per MPI rank)")
    sub.add_argument("--points", type=Path, required=True, help="CSV or .npy points")
    sub.add_argument("--seed", type=int, required=True, help="the round's seed (run seed + round)")
    sub.add_argument("--out", type=Path, required=True, help="clusters .npz")
    grow = "malleable: start on one node, grow the Slurm job to this many nodes to cluster, shrink back"
    sub.add_argument("--grow-to", type=int, help=grow)

    sub = _add_parser(commands, "aggregate", "step 2: MWIS over the candidate clusters (the quantum step)")
    sub.add_argument("--clusters", type=Path, required=True, help="clusters .npz of the cluster step")
    sub.add_argument("--seed", type=int, required=True, help="the round's seed")
    sub.add_argument("--out", type=Path, required=True, help="selection .json")
    _solver_arguments(sub)

    sub = _add_parser(commands, "score", "step 3: labels, silhouette and the loop state")
    sub.add_argument("--points", type=Path, required=True, help="CSV or .npy points")
    sub.add_argument("--clusters", type=Path, required=True, help="clusters .npz of the cluster step")
    sub.add_argument("--selection", type=Path, required=True, help="selection .json of the aggregate step")
    sub.add_argument("--seed", type=int, required=True, help="the round's seed")
    sub.add_argument("--out", type=Path, required=True, help="score .json (loop state)")
    sub.add_argument("--labels-out", type=Path, required=True, help="best labels so far (.npy)")
    sub.add_argument("--previous", type=Path, help="previous round's score .json")
    sub.add_argument("--previous-labels", type=Path, help="previous round's labels .npy")
    _silhouette_arguments(sub)


def _build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="clustagg" if Path(sys.argv[0]).name == "clustagg" else "python -m clustagg",
        description="Clustering aggregation: k-means, DBSCAN and single linkage combined by a "
        "maximum-weight independent set (annealing, exact or QAOA), looped until the silhouette "
        "exceeds a threshold.",
        epilog=_epilog(*EXAMPLES),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {importlib.metadata.version('bbqmis')}"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    _add_loop_command(commands, "run", "run the whole loop")
    _add_loop_command(commands, "workflow", "run the loop as file-passing steps")
    _add_step_commands(commands)
    return parser


def _read_points(path: Path) -> NDArray[np.float64]:
    """:func:`read_points`, refusing binary files other than ``.npy`` as an unsupported format."""
    if path.suffix != ".npy":
        try:
            with path.open("rb") as handle:
                binary = b"\0" in handle.read(8192)
        except OSError:
            binary = False  # read_points reports why it cannot be read
        if binary:
            raise DataFormatError(
                f"{path}: unsupported format (binary data); points must be CSV text "
                "(x,y,... per line, optional header) or a .npy array"
            )
    return read_points(path)


def _check_n_samples(n_samples: int, minimum: int = 1) -> None:
    """Refuse ``--n-samples`` outside ``minimum..MAX_SAMPLES`` before generating anything."""
    if not minimum <= n_samples <= MAX_SAMPLES:
        raise InvalidParameterError(f"--n-samples must be in {minimum}..{MAX_SAMPLES}, got {n_samples}")


def _clustered_points(path: Path | None, n_samples: int) -> NDArray[np.float64]:
    """The points of ``--points`` or ``--n-samples``, enough for every round's clusterings."""
    if path is None:
        _check_n_samples(n_samples, MAX_CLUSTERS)
        return make_reference_points(n_samples)
    points = _read_points(path)
    if len(points) < MAX_CLUSTERS:
        raise InvalidParameterError(
            f"--points {path}: {len(points)} points; rounds ask for up to {MAX_CLUSTERS} clusters, "
            f"so at least {MAX_CLUSTERS} points are needed"
        )
    return points


def _check_workdir(path: Path | None, mode: str, quantum_step: str | None = None) -> None:
    """Create ``--workdir`` (malleable, workflow, offloaded quantum steps) or refuse it, before long work."""
    if path is None or (mode == "baseline" and quantum_step not in OFFLOADED):
        return
    if path.exists() and not path.is_dir():
        raise InvalidParameterError(f"--workdir {path}: not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or error
        raise InvalidParameterError(f"--workdir {path}: cannot create it ({reason})") from None
    check_folder_writable(path, "--workdir")


def _check_output(path: Path | None, option: str) -> None:
    """Refuse an output that cannot be written, before any long work."""
    if path is not None:
        check_writable(path, option)


def _check_loop_arguments(args: argparse.Namespace) -> None:
    """Checks of ``run``/``workflow`` arguments that argparse cannot make."""
    _check_output(args.json, "--json")
    _check_output(args.plot, "--plot")
    check_distinct({"--json": args.json, "--plot": args.plot})
    if args.plot is not None:
        from .plotting import PLOT_FORMATS

        if args.plot.suffix.lstrip(".").lower() not in PLOT_FORMATS:
            raise InvalidParameterError(
                f"--plot {args.plot}: format must be one of {', '.join(sorted(PLOT_FORMATS))} (by suffix), "
                f"got {args.plot.suffix or 'no suffix'}"
            )
    if getattr(args, "reference", False):
        if args.points is not None or args.n_samples != REFERENCE_SAMPLES:
            raise InvalidParameterError(
                f"--reference replays the run on the {REFERENCE_SAMPLES} reference points; "
                "drop --points and --n-samples"
            )
        check_reference_run(args.mode, args.seed, args.max_iter)


def _check_quantum_step(args: argparse.Namespace, options: dict[str, Any]) -> None:
    """Set ``args.quantum_step`` to where the quantum step runs (its default resolved), or refuse it."""
    if not hasattr(args, "quantum_step"):  # the workflow command places it by its environment
        return
    if args.mode == "workflow":
        if args.quantum_step is not None:
            raise InvalidParameterError(
                "--quantum-step applies to --mode baseline and malleable; the workflow mode places its "
                "quantum step by CLUSTAGG_SRUN_PARTITIONS, CLUSTAGG_SRUN_HETJOB or CLUSTAGG_HQ_SERVER_DIR"
            )
        return
    args.quantum_step = check_quantum_step(
        args.quantum_step, args.solver, options, args.quantum_delay, name="--quantum-step"
    )


def _read_inputs(
    args: argparse.Namespace, comm: MPI.Intracomm | None
) -> tuple[dict[str, Any], NDArray[np.float64] | None]:
    """Solver options (on every rank) and points (on rank 0; None elsewhere).

    Rank 0 checks the arguments and outputs, reads the points and broadcasts the options,
    or the reason it could not, so that every rank fails alike.
    """
    error: str | None = None
    options: dict[str, Any] = {}
    points = None
    if comm is None or comm.rank == 0:
        try:
            _check_loop_arguments(args)
            options = _solver_options(args)
            _check_quantum_step(args, options)
            _check_workdir(
                args.workdir, getattr(args, "mode", "workflow"), getattr(args, "quantum_step", None)
            )
            points = _clustered_points(args.points, args.n_samples)
        except ValueError as exc:
            error = str(exc)
    if comm is not None:
        error, options, where = comm.bcast((error, options, getattr(args, "quantum_step", None)), root=0)
        if hasattr(args, "quantum_step"):
            args.quantum_step = where
    if error:
        raise InvalidParameterError(error)
    return options, points


def _report(
    args: argparse.Namespace, mode: str, result: AggregationResult, points: NDArray[np.float64]
) -> None:
    """Write ``--json`` and ``--plot`` (atomically) if asked, and print a one-line summary."""
    if args.json:
        steps.save_json(args.json, result.to_json())
    if args.plot:
        from .plotting import plot_clustering

        winners = sorted({c["algorithm"] for c in result.chosen_clusters})
        title = (
            f"silhouette {result.silhouette:.3f}, round {result.best_iteration + 1}, "
            f"{len(result.chosen_clusters)} clusters ({'+'.join(winners)})"
        )
        steps.atomic_write(
            args.plot,
            lambda handle: plot_clustering(
                points, result.labels, handle, title=title, format=args.plot.suffix.lstrip(".").lower()
            ),
        )
    scores = ", ".join(f"{s:.3f}" for s in result.iterations)
    print(
        f"{mode}: silhouette {result.silhouette:.3f} at round {result.best_iteration + 1} "
        f"from {len(result.chosen_clusters)} clusters; rounds [{scores}]; "
        f"wall {result.wall_seconds:.2f} s, {result.node_seconds:.2f} node-s" + result.training_note()
    )


def _run(args: argparse.Namespace) -> None:
    """``run`` and ``workflow``: the whole loop (every rank calls it under ``mpiexec``)."""
    mode = getattr(args, "mode", "workflow")
    comm = None
    if mode == "baseline":
        from .mpi import world

        comm = world()
    options, points = _read_inputs(args, comm)
    rank0 = points is not None
    with ProgressLine(label=f"clustagg {mode}", enabled=rank0 and not args.quiet) as progress:
        result = run(
            points,
            mode,
            args.solver,
            args.seed,
            threshold=args.threshold,
            max_iter=args.max_iter,
            quantum_delay=args.quantum_delay,
            sample_size=None if args.exact_silhouette else args.sample_size,
            reference=getattr(args, "reference", False),
            progress=progress,
            solver_options=options,
            workdir=args.workdir,
            workers=args.workers,
            cluster_processes=args.cluster_processes,
            comm=comm,
            quantum_step=getattr(args, "quantum_step", None),
            grow=getattr(args, "grow", "blocking"),
            malleable_cluster=getattr(args, "malleable_cluster", False) or None,
        )
    if points is not None:  # rank 0
        _report(args, mode, result, points)


def _score(args: argparse.Namespace) -> None:
    """The ``score`` step; prints the round's and the best silhouette as JSON."""
    if (args.previous is None) != (args.previous_labels is None):
        raise InvalidParameterError("--previous and --previous-labels go together")
    state = steps.score_file(
        _read_points(args.points),
        args.clusters,
        args.selection,
        args.seed,
        args.out,
        args.labels_out,
        previous=args.previous,
        previous_labels=args.previous_labels,
        sample_size=None if args.exact_silhouette else args.sample_size,
    )
    summary = {"silhouette": state.iterations[-1], "best": state.silhouette, "rounds": len(state.iterations)}
    print(json.dumps(summary))


def _step(args: argparse.Namespace) -> None:
    """``generate`` or one workflow step."""
    if args.command == "generate":
        from .data import write_points

        _check_output(args.out, "--out")  # the workflow steps below create their run folders
        _check_n_samples(args.n_samples)
        write_points(make_reference_points(args.n_samples), args.out)
    elif args.command == "cluster" and args.grow_to is not None:
        check_positive_int(args.grow_to, "--grow-to")
        steps.cluster_file_malleable(_clustered_points(args.points, 0), args.seed, args.out, args.grow_to)
    elif args.command == "cluster":
        from .mpi import world

        steps.cluster_file(_clustered_points(args.points, 0), args.seed, args.out, world())
    elif args.command == "aggregate":
        solver = get_solver(args.solver, **_solver_options(args))
        steps.aggregate_file(args.clusters, args.seed, args.out, solver, quantum_delay=args.quantum_delay)
    else:
        _score(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments after ``python -m clustagg``; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        0 on success, 1 on an internal failure, 2 on bad input or environment, 130 when
        interrupted; every failure with a one-line reason on stderr (see ``--help``).

    Examples
    --------
    Generate points, run the cluster step on them, then give the next step the wrong
    round's seed (status 2, with the reason on stderr):

    >>> import tempfile
    >>> from clustagg.steps import load_clusters
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     main(["generate", "--n-samples", "200", "--out", f"{folder}/points.csv"])
    ...     main(["cluster", "--points", f"{folder}/points.csv", "--seed", "0", "--out", f"{folder}/c.npz"])
    ...     load_clusters(f"{folder}/c.npz", seed=0)[1]["n_samples"]
    ...     main(["aggregate", "--clusters", f"{folder}/c.npz", "--seed", "1", "--out", f"{folder}/s.json"])
    0
    0
    200
    2
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or --version (0), or a bad option: one line was written (2)
        return exc.code if isinstance(exc.code, int) else 2
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    where = f"{parser.prog} {args.command}"
    try:
        if args.command in ("run", "workflow"):
            _run(args)
        else:
            _step(args)
    except (ValueError, ClustAggError) as error:
        print(f"{where}: error: {error}".splitlines()[0], file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{where}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - any other failure is ours: one line, status 1
        print(f"{where}: internal error: {type(error).__name__}: {error}".splitlines()[0], file=sys.stderr)
        return 1
    return 0
