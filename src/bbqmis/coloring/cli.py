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
import contextlib
import dataclasses
import importlib
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from backends.errors import BackendError, InvalidParameterError
from backends.registry import check_spec
from backends.utils.files import atomic_write_text, check_distinct, check_writable

from .options import build_parser
from .plot import plot_run

if TYPE_CHECKING:
    from pathlib import Path

    import networkx as nx

    from ..mis.training import Training
    from .limits import StopRequest
    from .result import ColoringResult
    from .samplers import QAOASampler

#: Names a test may replace (``monkeypatch.setattr(cli, "color_graph", ...)``), imported on first
#: use like everything a run needs (``--help`` and ``--version`` need none of it), read through
#: :func:`_late`: name -> module.
_LATE = {"color_graph": ".pipeline"}


def __getattr__(name: str) -> Any:
    """Import a name of :data:`_LATE` on first use (PEP 562)."""
    if name not in _LATE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LATE[name], __package__), name)
    globals()[name] = value
    return value


def _late(name: str) -> Any:
    """The module attribute ``name``: imported on first use, or what a test put there."""
    return globals()[name] if name in globals() else __getattr__(name)


def _training(args: argparse.Namespace) -> str | Training:
    """The ``angles`` of the QAOA sampler; a training option without ``--angles trained`` is bad input."""
    from ..mis.errors import BBQMISError

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
    from ..mis.training import Training  # the quantum stack: only for a trained run

    return Training(**dict(given.values()))


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
    from .limits import stop_on_signals

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
    from ..mis.errors import BBQMISError
    from .tree.executors import mpi_world

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
    status = _write_result(result, args, graph, started)
    if args.plot is not None:
        status = max(status, _write_plot(graph, result, history, args.plot))
    return status


def _prepare(args: argparse.Namespace, stop: StopRequest, root: bool) -> tuple[nx.Graph, Any, float]:
    """Check the options and outputs, read the graph (on ``root``), build the sampler and reach its backend.

    Returns the graph (empty on an MPI worker rank), the sampler and the
    :func:`time.monotonic` time the time limit counts from.
    """
    import networkx as nx

    from ..mis.errors import BBQMISError
    from ..mis.graphio import read_graph
    from .samplers import QAOASampler, get_sampler

    if args.resume and args.checkpoint is None:
        raise BBQMISError("--resume needs --checkpoint FILE")
    if args.sampler == "qaoa":
        check_spec(args.backend)  # cheap: a bad --backend fails here, not after the backend's import
    if args.checkpoint is not None and args.checkpoint.exists() and not args.checkpoint.is_file():
        raise BBQMISError(f"--checkpoint {args.checkpoint}: not a regular file (--resume reads it back)")
    outputs = {
        "--json": args.json,
        "--certificate": args.certificate,
        "--checkpoint": args.checkpoint,
        "--plot": args.plot,
    }
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
    from .report import progress_view
    from .tree.executors import make_executor

    color_graph = _late("color_graph")
    with make_executor(args.executor, args.workers, finish_tasks=False) as executor:
        if executor is None:  # an MPI worker rank: it served tasks until rank 0 finished
            return None

        def report(snapshot: dict[str, Any]) -> None:
            progress(progress_view(snapshot))
            if "incumbent" in snapshot:
                history.append((snapshot["elapsed"], snapshot["incumbent"], snapshot["bound"]))

        with _progress_line(args.quiet) as progress:
            return color_graph(
                graph,
                sampler,
                executor,
                time_limit=_seconds_left(args.time_limit, started),
                node_limit=args.node_limit,
                memory_limit=args.memory_limit,
                exact_share=args.exact_share,
                lp_share=args.lp_share,
                mycielski=not args.no_mycielski,
                method=args.method,
                checkpoint=args.checkpoint,
                resume=args.resume,
                checkpoint_interval=args.checkpoint_interval,
                strategy=args.strategy,
                exhaustive=not args.heuristic,
                seed=args.seed,
                progress=report,
            )


def _progress_line(quiet: bool) -> contextlib.AbstractContextManager[Callable[[dict[str, Any]], None]]:
    """The progress line on stderr; with ``--quiet`` a no-op, without importing rich."""
    if quiet:
        return contextlib.nullcontext(lambda view: None)
    from backends.utils.progress import ProgressLine

    return ProgressLine(sys.stderr, label="bbqmis")


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
    from .result import ColoringResult

    traceback.print_exc()
    partial = getattr(exc, "partial", None)
    written = isinstance(partial, ColoringResult) and _write_result(partial, args, graph) == 0
    kept = [f"the last checkpoint {args.checkpoint} is kept (add --resume)"] if args.checkpoint else []
    if written:
        kept.insert(0, "the best result so far was written" + (f" to {args.json}" if args.json else ""))
    summary = " ".join(f"{type(exc).__name__}: {exc}".split())
    print(f"bbqmis: internal error: {summary}" + "".join(f"; {k}" for k in kept), file=sys.stderr)
    return 1


def _write_result(
    result: ColoringResult, args: argparse.Namespace, graph: nx.Graph, started: float | None = None
) -> int:
    """Write ``--json`` and ``--certificate`` (atomically, first: stdout may be closed), then the table.

    ``started`` is the :func:`time.monotonic` time the run's clock started (None: unknown).
    """
    from .report import format_result

    if args.json is not None and not _write_json(args.json, "--json", "the result", result.to_json()):
        return 1
    if args.certificate is not None and not _write_certificate(result, args, graph, started):
        return 1
    try:
        print(format_result(result, graph, args.sampler, args.backend if args.sampler == "qaoa" else None))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (``| head``): the result is in --json, if asked for
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _write_certificate(
    result: ColoringResult, args: argparse.Namespace, graph: nx.Graph, started: float | None
) -> bool:
    """Build and write ``--certificate``; a failure is one line on stderr (the result stands).

    A SAT refutation for it takes at most what ``--time-limit`` leaves, or as long as the
    run took without a limit, and at least
    :data:`~bbqmis.coloring.certificate.WITNESS_SECONDS` (also when ``started`` is None).
    """
    from .certificate import WITNESS_SECONDS, build_certificate

    path = args.certificate
    budget = WITNESS_SECONDS
    if started is not None:
        left = _seconds_left(args.time_limit, started)
        budget = max(budget, time.monotonic() - started if left is None else left)
    try:
        document = build_certificate(graph, result, refutation_seconds=budget, memory_gb=args.memory_limit)
    except Exception as exc:  # a result that does not colour the graph it came with: a bug, said in one line
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())
        print(f"bbqmis: error: --certificate {path}: cannot build the certificate: {reason}", file=sys.stderr)
        return False
    return _write_json(path, "--certificate", "the certificate", document)


def _write_json(path: Path, option: str, what: str, document: dict[str, Any]) -> bool:
    """Write ``document`` to ``path`` atomically; a failure is one line on stderr naming ``option``."""
    text = json.dumps(document, indent=2) + "\n"
    try:
        atomic_write_text(path, lambda file: file.write(text))
    except OSError as exc:
        reason = exc.strerror or exc
        print(f"bbqmis: error: {option} {path}: cannot write {what}: {reason}", file=sys.stderr)
        return False
    return True


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
