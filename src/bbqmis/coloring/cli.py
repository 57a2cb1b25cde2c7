"""Command line: ``python -m bbqmis GRAPH`` colours a graph with the BBQ-MIS search.

Errors and exit status:

- bad input (an option out of range, a graph file that cannot be parsed, an unknown
  backend, a checkpoint of another graph, other settings or a damaged one): one line on
  stderr naming the option, the file and line, or the parameter; status 2;
- a limit reached (time, nodes, memory) or SIGINT/SIGTERM: the best colouring so far,
  its proven bound and the reason in ``stopped`` (``"interrupted"`` after a signal);
  status 0. A signal ends the search within about half a second once the tree is being
  searched (a phase before it finishes its own share of the time first), ends the pool
  workers and writes a final checkpoint; a second signal stops at once, without a result
  (status 130 for SIGINT, 143 for SIGTERM);
- an internal failure (a bug, a worker killed by the system): the traceback, then one line
  on stderr; status 1. The last checkpoint is kept, and the best result so far is written
  when the failure carries one (``exc.partial``);
- an output that cannot be written at the end (a full disk): one line on stderr; status 1.
  The outputs are tried up front (:func:`backends.utils.files.check_writable`), so this is rare,
  and the result is still printed (and written to ``--json`` when only ``--plot`` fails).

Outputs are written by :func:`backends.utils.files.atomic_write`: a new or regular file is
replaced atomically, a device such as ``/dev/null`` is written, not replaced.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

import networkx as nx

from backends.errors import BackendError, InvalidParameterError
from backends.registry import check_spec
from backends.utils.arguments import CommandParser, integer, real
from backends.utils.files import atomic_write_text, check_distinct, check_writable
from backends.utils.progress import ProgressLine

from ..mis.errors import BBQMISError
from ..mis.graphio import EXTENSIONS, FORMATS, read_graph
from ..mis.training import ANGLES, STARTS, Training
from ..mis.training import METHODS as TRAINING_METHODS
from .limits import StopRequest, stop_on_signals
from .pipeline import METHODS, color_graph
from .plot import MAX_DRAWN_VERTICES, plot_run
from .report import format_result, progress_view
from .result import ColoringResult
from .samplers import QAOASampler, get_sampler
from .tree.executors import KINDS, make_executor, mpi_world
from .tree.tree import STRATEGIES

#: Largest values the numeric options accept: beyond them a value is a typo, not a plan.
MAX_SHOTS = 1_000_000
MAX_QUBITS = 1000
MAX_SLEEP_FACTOR = 1000.0
MAX_SECONDS = 1e7  # about 115 days
MAX_MEMORY_GB = 1e5
MAX_NODES = 10**12
MAX_SEED = 2**63 - 1
MAX_WORKERS = 256
MAX_EVALUATIONS = 10_000

EXAMPLES = """\
examples:
  python -m bbqmis data/graphs/myciel3.col                       # QAOA on the local Aer simulator
  python -m bbqmis data/graphs/myciel4.col --sampler exact --json out.json
  python -m bbqmis data/graphs/myciel5.col --sampler exact --plot run.png   # colouring + search figure
  python -m bbqmis graph.col --backend iqm-fake:adonis --max-qubits 5
  python -m bbqmis data/graphs/myciel3.col --angles trained --training-evaluations 30   # hybrid loop
  python -m bbqmis graph.col --backend vqpu:http://127.0.0.1:8765 --sleep-factor 2
  python -m bbqmis big.col --time-limit 600 --checkpoint run.ckpt   # later: add --resume
  mpiexec -n 3 python -m bbqmis data/graphs/queen5_5.col          # 2 MPI workers

exit status: 0 on success, also when a limit or SIGINT/SIGTERM stopped the search early
(the reason is in the result); 2 on bad input (one line on stderr); 1 on an internal failure
or an output that could not be written at the end.
"""


def _prog_name() -> str:
    """How the user ran the command: ``bbqmis`` (the console script) or ``python -m bbqmis``."""
    return "bbqmis" if Path(sys.argv[0]).name == "bbqmis" else "python -m bbqmis"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m bbqmis``."""
    parser = CommandParser(
        prog=_prog_name(),
        name="bbqmis",
        description="Colour a graph by branch-and-bound over maximal independent sets sampled "
        "with single-layer QAOA (or a classical sampler); prove optimality where the bounds allow.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {importlib.metadata.version('bbqmis')}"
    )
    _add_graph_arguments(parser)
    _add_sampler_arguments(parser)
    _add_training_arguments(parser)
    _add_limit_arguments(parser)
    _add_tree_arguments(parser)
    _add_checkpoint_arguments(parser)
    _add_run_arguments(parser)
    return parser


def _add_graph_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the graph file and how to read it."""
    parser.add_argument("graph", help="graph file: DIMACS .col, edge list, GraphML or node-link JSON")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="graph file format (default: from the extension: "
        + ", ".join(f"{ext} {name}" for ext, name in EXTENSIONS.items())
        + ")",
    )
    parser.add_argument(
        "--allow-empty", action="store_true", help="accept a graph without vertices (0 colours)"
    )
    parser.add_argument(
        "--allow-isolated",
        action="store_true",
        help="accept a DIMACS header declaring far more vertices than its edges touch",
    )


def _add_sampler_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the branching sampler and where its QAOA circuits run."""
    parser.add_argument(
        "--sampler",
        default="qaoa",
        choices=["qaoa", "exact", "greedy", "random", "anneal"],
        help="branching sampler (default: qaoa)",
    )
    parser.add_argument(
        "--backend",
        default="aer",
        help="where QAOA circuits run: aer, aer:mps, aer:noisy-<device>, iqm-fake:<device>, "
        "iqm:<url>[#<computer>], vqpu:<http://host:port> (default: aer)",
    )
    parser.add_argument(
        "--shots",
        type=integer(1, MAX_SHOTS),
        default=1024,
        help=f"shots per QAOA circuit, 1 to {MAX_SHOTS} (default: 1024)",
    )
    parser.add_argument(
        "--sleep-factor",
        type=real(0.0, MAX_SLEEP_FACTOR),
        default=0.0,
        metavar="A",
        help="after each quantum execution sleep A x its quantum seconds (default: 0)",
    )
    parser.add_argument(
        "--max-qubits",
        type=integer(1, MAX_QUBITS),
        default=None,
        metavar="Q",
        help="widest circuit to run; wider components are cut or solved classically "
        "(default: the backend's qubits, at most 24)",
    )


def _add_training_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the QAOA angles: closed form, or trained on the backend."""
    parser.add_argument(
        "--angles",
        default="closed-form",
        choices=ANGLES,
        help="QAOA angles: the closed-form p = 1 optimum (exact, no circuit), or trained on the backend "
        "by a classical optimiser from sampled energies (cut circuits: reconstructed) (default: closed-form)",
    )
    parser.add_argument(
        "--training-evaluations",
        type=integer(1, MAX_EVALUATIONS),
        default=None,
        metavar="N",
        help=f"with --angles trained: energy evaluations per problem, 1 to {MAX_EVALUATIONS} (default: 40)",
    )
    parser.add_argument(
        "--training-shots",
        type=integer(1, MAX_SHOTS),
        default=None,
        metavar="N",
        help="with --angles trained: shots per circuit of an evaluation (default: --shots)",
    )
    parser.add_argument(
        "--training-start",
        default=None,
        choices=STARTS,
        help="with --angles trained: start at the closed-form optimum or at a random point "
        "(seeded by --seed) (default: closed-form)",
    )
    parser.add_argument(
        "--training-method",
        default=None,
        choices=tuple(TRAINING_METHODS),
        help="with --angles trained: the scipy optimiser (default: cobyla)",
    )


def _training(args: argparse.Namespace) -> str | Training:
    """The ``angles`` of the QAOA sampler; a training option without ``--angles trained`` is bad input."""
    options = {
        "--training-evaluations": ("evaluations", args.training_evaluations),
        "--training-shots": ("shots", args.training_shots),
        "--training-start": ("start", args.training_start),
        "--training-method": ("method", args.training_method),
    }
    given = {option: pair for option, pair in options.items() if pair[1] is not None}
    if args.angles == "closed-form":
        if given:
            raise BBQMISError(f"{next(iter(given))} needs --angles trained")
        return "closed-form"
    if args.sampler != "qaoa":
        raise BBQMISError(f"--angles trained needs --sampler qaoa, got --sampler {args.sampler}")
    return Training(**dict(given.values()))


def _add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the limits of the run and the time shares of its phases."""
    parser.add_argument(
        "--time-limit",
        type=real(0.0, MAX_SECONDS),
        default=None,
        metavar="S",
        help="stop after S seconds of this run, reading the graph included (a resumed run: S more)",
    )
    parser.add_argument(
        "--memory-limit",
        type=real(0.0, MAX_MEMORY_GB),
        default=None,
        metavar="GB",
        help="resident memory of the search; 0: no limit (default: half of the memory available)",
    )
    parser.add_argument(
        "--exact-share",
        type=real(0.0, 1.0),
        default=0.3,
        metavar="F",
        help="share of the time for the classical exact phase (SAT, or DSATUR branch-and-bound); "
        "0: the BBQ-MIS tree alone proves (default 0.3)",
    )
    parser.add_argument(
        "--lp-share",
        type=real(0.0, 1.0),
        default=0.1,
        metavar="F",
        help="share of the time for the root LP bound; its columns and the tree's samples then bound "
        "the tree's nodes by LP; 0: no LP bounds (default 0.1)",
    )
    parser.add_argument(
        "--node-limit",
        type=integer(1, MAX_NODES),
        default=None,
        metavar="N",
        help="stop after N node expansions",
    )


def _add_tree_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the tree: its queue order, its method, exhaustive or not."""
    parser.add_argument(
        "--strategy", default="best-first", choices=STRATEGIES, help="queue order (default: best-first)"
    )
    parser.add_argument(
        "--method",
        default="bbq",
        choices=METHODS,
        help="the tree: bbq (BBQ-MIS over sampled maximal independent sets) or price "
        "(branch-and-price: the set-cover LP at every node, columns priced by the sampler) (default: bbq)",
    )
    parser.add_argument(
        "--heuristic",
        action="store_true",
        help="branch only on sampled sets, as the reference implementation (no exhaustive proof)",
    )


def _add_checkpoint_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the checkpoint: its file, its interval, resume."""
    parser.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the search state to FILE periodically and at the end",
    )
    parser.add_argument(
        "--checkpoint-interval",
        type=real(0.0, MAX_SECONDS),
        default=30.0,
        metavar="S",
        help="seconds between checkpoint writes (default: 30)",
    )
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint FILE if it exists")


def _add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the outputs, the seed, the executor and its workers, and progress."""
    parser.add_argument(
        "--json", type=Path, default=None, metavar="OUT", help="write the result as JSON to OUT"
    )
    parser.add_argument(
        "--seed", type=integer(0, MAX_SEED), default=None, help="makes a simulator run reproducible"
    )
    parser.add_argument(
        "--executor",
        default="auto",
        choices=KINDS,
        help="where nodes are expanded (auto: mpi under mpiexec, process with --workers > 1) (default: auto)",
    )
    parser.add_argument(
        "--workers",
        type=integer(1, MAX_WORKERS),
        default=None,
        help=f"local worker processes, 1 to {MAX_WORKERS}",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="PNG",
        help=f"draw the colouring (graphs of up to {MAX_DRAWN_VERTICES} vertices) and the incumbent and "
        "bound over time into PNG",
    )


def _sampler_options(args: argparse.Namespace) -> dict[str, Any]:
    angles = _training(args)  # checked for every sampler: --angles trained needs QAOA
    if args.sampler == "qaoa":
        return {
            "backend": args.backend,
            "shots": args.shots,
            "max_qubits": args.max_qubits,
            "sleep_factor": args.sleep_factor,
            "angles": angles,
        }
    if args.sampler in ("random", "anneal"):
        return {"shots": args.shots}
    return {}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0), or a bad option: one line was written (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with stop_on_signals(notify=_stopping) as stop:
            return _run(args, stop)
    except KeyboardInterrupt as exc:  # a second signal: stop at once
        name = str(exc) if str(exc) in ("SIGINT", "SIGTERM") else "SIGINT"
        kept = f"; the last checkpoint {args.checkpoint} is kept" if args.checkpoint else ""
        print(f"bbqmis: stopped at once by a second {name}, without a result{kept}", file=sys.stderr)
        return 128 + signal.Signals[name].value


def _stopping(name: str) -> None:
    """Say, from the signal handler, that the run is stopping (an unbuffered write: never reentrant)."""
    message = f"\nbbqmis: {name} received: stopping with the best colouring so far (again: stop at once)\n"
    try:
        os.write(sys.stderr.fileno(), message.encode())
    except (OSError, ValueError):  # no stderr: the result says "interrupted" all the same
        pass


def _run(args: argparse.Namespace, stop: StopRequest) -> int:
    """Check the inputs, search, write the result; the exit status.

    Under MPI only rank 0 reads the graph and reaches the backend (the other ranks
    serve its tasks, which carry what they need); every rank makes the cheap checks,
    and all stop with exit status 2, rank 0 printing the line, when any of them fails.
    """
    try:
        world = mpi_world(args.executor)
    except ImportError as exc:  # mpi4py is a dependency, but its MPI library may fail to load
        return _bad_input(f"--executor {args.executor}: MPI is not available here ({exc})")
    root = world is None or world.Get_rank() == 0
    failure: Exception | None = None
    prepared = None
    try:
        prepared = _prepare(args, stop, root)
    except (BBQMISError, BackendError, ValueError, OSError) as exc:
        failure = exc
    message = _first_failure(failure, world)
    if message is not None or prepared is None:  # prepared is None only if this rank failed
        return _bad_input(message or str(failure)) if root else 2
    graph, sampler, started = prepared
    history: list[tuple[float, int | None, int | None]] = []
    try:
        result = _color(args, graph, sampler, started, history)
    except (BBQMISError, BackendError, InvalidParameterError, ConnectionError) as exc:
        return _bad_input(exc)
    except Exception as exc:  # a bug, or a worker the system killed
        return _internal_failure(exc, args, graph)
    if result is None:  # an MPI worker rank: it served tasks until rank 0 finished
        return 0
    if stop.is_set() and result.stopped is not None:
        result = dataclasses.replace(
            result, stopped="interrupted", stats={**result.stats, "stop_reason": "interrupted"}
        )
    status = _write_result(result, args, graph)
    if args.plot is not None:
        status = max(status, _write_plot(graph, result, history, args.plot))
    return status


def _prepare(args: argparse.Namespace, stop: StopRequest, root: bool) -> tuple[nx.Graph, Any, float]:
    """Check the options and outputs, read the graph (on ``root``), build the sampler and reach its backend.

    Returns the graph (empty on an MPI worker rank), the sampler and the
    :func:`time.monotonic` time the time limit counts from.
    """
    if args.resume and args.checkpoint is None:
        raise BBQMISError("--resume needs --checkpoint FILE")
    if args.sampler == "qaoa":
        check_spec(args.backend)  # cheap: a bad --backend fails here, not after the backend's import
    if args.checkpoint is not None and args.checkpoint.exists() and not args.checkpoint.is_file():
        raise BBQMISError(f"--checkpoint {args.checkpoint}: not a regular file (--resume reads it back)")
    outputs = {"--json": args.json, "--checkpoint": args.checkpoint, "--plot": args.plot}
    check_distinct(outputs)
    for option, path in outputs.items():
        if path is not None:
            check_writable(path, option)
    started = time.monotonic()  # the time limit counts from here: reading is part of the run
    graph = nx.Graph()  # on an MPI worker rank; rank 0 reads the graph
    if root:
        graph = read_graph(
            args.graph,
            format=args.format,
            allow_empty=args.allow_empty,
            allow_isolated=args.allow_isolated,
        )
    sampler = get_sampler(args.sampler, **_sampler_options(args))
    if root and isinstance(sampler, QAOASampler):
        _connect(sampler, args.backend, stop, _seconds_left(args.time_limit, started))
    return graph, sampler, started


def _color(
    args: argparse.Namespace,
    graph: nx.Graph,
    sampler: Any,
    started: float,
    history: list[tuple[float, int | None, int | None]],
) -> ColoringResult | None:
    """Run :func:`color_graph` with the options and a progress line; None on an MPI worker rank.

    ``history`` receives (seconds, incumbent colours, bound) of every progress report that has them.
    """
    with make_executor(args.executor, args.workers, finish_tasks=False) as executor:
        if executor is None:  # an MPI worker rank: it served tasks until rank 0 finished
            return None

        def report(snapshot: dict[str, Any]) -> None:
            progress(progress_view(snapshot))
            if "incumbent" in snapshot:
                history.append((snapshot["elapsed"], snapshot["incumbent"], snapshot["bound"]))

        with ProgressLine(sys.stderr, label="bbqmis", enabled=not args.quiet) as progress:
            return color_graph(
                graph,
                sampler,
                executor,
                time_limit=_seconds_left(args.time_limit, started),
                node_limit=args.node_limit,
                memory_limit=args.memory_limit,
                exact_share=args.exact_share,
                lp_share=args.lp_share,
                method=args.method,
                checkpoint=args.checkpoint,
                resume=args.resume,
                checkpoint_interval=args.checkpoint_interval,
                strategy=args.strategy,
                exhaustive=not args.heuristic,
                seed=args.seed,
                progress=report,
            )


def _seconds_left(time_limit: float | None, started: float) -> float | None:
    """What ``--time-limit`` leaves after the seconds since ``started`` (:func:`time.monotonic`).

    >>> _seconds_left(None, time.monotonic()) is None, 9 < _seconds_left(10.0, time.monotonic()) <= 10
    (True, True)
    >>> _seconds_left(1.0, time.monotonic() - 5)
    0.0
    """
    return None if time_limit is None else max(0.0, time_limit - (time.monotonic() - started))


def _connect(sampler: QAOASampler, spec: str, stop: StopRequest, seconds: float | None) -> None:
    """Build the sampler's backend now, so that a bad spec or a missing token fails here, not in a worker.

    A remote backend may keep retrying an unreachable server for a minute; the wait ends
    after ``seconds`` (the time limit left; the search then finds no time for the
    sampler) or at a signal (the search then stops at once with the greedy colouring,
    as the signal's handler said), and the run goes on without the backend, saying so
    on stderr.
    """
    outcome: list[BaseException | None] = []

    def build() -> None:
        try:
            sampler.solver.device()
            outcome.append(None)
        except BaseException as exc:  # handed to the main thread
            outcome.append(exc)

    worker = threading.Thread(target=build, name="bbqmis-connect", daemon=True)
    worker.start()
    end = math.inf if seconds is None else time.monotonic() + seconds
    while worker.is_alive() and not stop.is_set() and time.monotonic() < end:
        worker.join(0.05)
    if outcome and outcome[0] is not None:
        raise outcome[0]
    if not outcome:
        why = f"before {stop.reason}" if stop.is_set() else "within the time limit"
        print(f"bbqmis: the backend {spec} did not answer {why}; colouring without it", file=sys.stderr)


def _first_failure(failure: Exception | None, world: Any | None) -> str | None:
    """The message of ``failure``; under MPI (``world``), that of the first rank that failed.

    >>> _first_failure(ValueError("no such file"), None), _first_failure(None, None)
    ('no such file', None)
    """
    message = None if failure is None else str(failure)
    if world is None:
        return message
    return next((line for line in world.allgather(message) if line is not None), None)


def _bad_input(exc: BaseException | str) -> int:
    print(f"bbqmis: error: {' '.join(str(exc).split())}", file=sys.stderr)
    return 2


def _internal_failure(exc: Exception, args: argparse.Namespace, graph: nx.Graph) -> int:
    """Report a failure that is not the input's fault; write the best result it carries, if any."""
    traceback.print_exc()
    partial = getattr(exc, "partial", None)
    written = isinstance(partial, ColoringResult) and _write_result(partial, args, graph) == 0
    kept = [f"the last checkpoint {args.checkpoint} is kept (add --resume)"] if args.checkpoint else []
    if written:
        kept.insert(0, "the best result so far was written" + (f" to {args.json}" if args.json else ""))
    summary = " ".join(f"{type(exc).__name__}: {exc}".split())
    print(f"bbqmis: internal error: {summary}" + "".join(f"; {k}" for k in kept), file=sys.stderr)
    return 1


def _write_result(result: ColoringResult, args: argparse.Namespace, graph: nx.Graph) -> int:
    """Write ``--json`` (atomically, first: a closed stdout must not lose it), then the table."""
    if args.json is not None:
        document = json.dumps(result.to_json(), indent=2) + "\n"
        try:
            atomic_write_text(args.json, lambda file: file.write(document))
        except OSError as exc:
            reason = exc.strerror or exc
            print(f"bbqmis: error: --json {args.json}: cannot write the result: {reason}", file=sys.stderr)
            return 1
    try:
        print(format_result(result, graph, args.sampler, args.backend if args.sampler == "qaoa" else None))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (``| head``): the result is in --json, if asked for
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _write_plot(
    graph: nx.Graph, result: ColoringResult, history: list[tuple[float, int | None, int | None]], path: Path
) -> int:
    """Write ``--plot`` after the result; a failure is one line on stderr and status 1, the result stands."""
    try:
        plot_run(graph, result, history, path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
    except Exception as exc:  # a figure that cannot be drawn: the result is out all the same
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
    else:
        return 0
    print(f"bbqmis: error: --plot {path}: cannot write the figure: {reason}", file=sys.stderr)
    return 1
