"""Command line: ``python -m bbqmis GRAPH`` colours a graph with the BBQ-MIS search."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

import networkx as nx

from ..mis.errors import BBQMISError
from ..mis.graphio import read_graph
from .executors import KINDS, make_executor
from .result import ColoringResult
from .samplers import QAOASampler, get_sampler
from .search import color_graph
from .tree import STRATEGIES

EXAMPLES = """\
examples:
  python -m bbqmis data/graphs/myciel3.col                       # QAOA on the local Aer simulator
  python -m bbqmis data/graphs/myciel4.col --sampler exact --json out.json
  python -m bbqmis graph.col --backend iqm-fake:adonis --max-qubits 5
  python -m bbqmis graph.col --backend vqpu:http://127.0.0.1:8765 --sleep-factor 2
  python -m bbqmis big.col --time-limit 600 --checkpoint run.ckpt   # later: add --resume
  mpiexec -n 3 python -m bbqmis data/graphs/queen5_5.col          # 2 MPI workers

exit status: 0 on success, 2 on bad input (one line on stderr), 1 on an unexpected failure.
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m bbqmis``."""
    parser = argparse.ArgumentParser(
        prog="python -m bbqmis",
        description="Colour a graph by branch-and-bound over maximal independent sets sampled "
        "with single-layer QAOA (or a classical sampler); prove optimality where the bounds allow.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("graph", help="graph file: DIMACS .col, edge list, GraphML or node-link JSON")
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
    parser.add_argument("--shots", type=int, default=1024, help="shots per QAOA circuit (default: 1024)")
    parser.add_argument(
        "--sleep-factor",
        type=float,
        default=0.0,
        metavar="A",
        help="after each quantum execution sleep A x its quantum seconds (default: 0)",
    )
    parser.add_argument(
        "--max-qubits",
        type=int,
        default=None,
        metavar="Q",
        help="widest circuit to run; wider components are cut or solved classically "
        "(default: the backend's qubits, at most 24)",
    )
    parser.add_argument("--time-limit", type=float, default=None, metavar="S", help="stop after S seconds")
    parser.add_argument(
        "--memory-limit",
        type=float,
        default=None,
        metavar="GB",
        help="resident memory of the search (default: half of the memory available)",
    )
    parser.add_argument(
        "--exact-share",
        type=float,
        default=0.3,
        metavar="F",
        help="share of the time for exact DSATUR on cores of <= 200 vertices; 0: tree alone (default 0.3)",
    )
    parser.add_argument(
        "--node-limit", type=int, default=None, metavar="N", help="stop after N node expansions"
    )
    parser.add_argument("--strategy", default="best-first", choices=STRATEGIES, help="queue order")
    parser.add_argument(
        "--heuristic",
        action="store_true",
        help="branch only on sampled sets, as the reference implementation (no exhaustive proof)",
    )
    parser.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the search state to FILE periodically and at the end",
    )
    parser.add_argument(
        "--checkpoint-interval",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds between checkpoint writes (default: 30)",
    )
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint FILE if it exists")
    parser.add_argument(
        "--json", type=Path, default=None, metavar="OUT", help="write the result as JSON to OUT"
    )
    parser.add_argument("--seed", type=int, default=None, help="makes a simulator run reproducible")
    parser.add_argument(
        "--executor",
        default="auto",
        choices=KINDS,
        help="where nodes are expanded (auto: mpi under mpiexec, process with --workers > 1)",
    )
    parser.add_argument("--workers", type=int, default=None, help="local worker processes")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    return parser


def _sampler_options(args: argparse.Namespace) -> dict[str, Any]:
    if args.sampler == "qaoa":
        return {
            "backend": args.backend,
            "shots": args.shots,
            "max_qubits": args.max_qubits,
            "sleep_factor": args.sleep_factor,
        }
    if args.sampler in ("random", "anneal"):
        return {"shots": args.shots}
    return {}


class _Progress:
    """One self-overwriting status line on a terminal; otherwise a line per phase and every 10 s."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last = -10.0
        self.phase = ""

    def __call__(self, state: dict) -> None:
        if not self.tty and state["elapsed"] - self.last < 10.0 and state["phase"] == self.phase:
            return
        self.last, self.phase = state["elapsed"], state["phase"]
        where = f"component {state['component']}/{state['components']} {state['phase']:<6}"
        line = f"{where} | {state['elapsed']:8.1f} s | {state['memory_gb']:6.2f} GB"
        if state["phase"] == "search":
            bound = "-" if state["bound"] is None else state["bound"]
            line += (
                f" | nodes {state['nodes']:>7} | open {state['open']:>6} | colours {state['incumbent']:>3}"
                f" | bound {bound:>3}"
            )
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


def format_result(result: ColoringResult, graph: nx.Graph, sampler: str, backend: str | None) -> str:
    """Human-readable summary table of a result."""
    stats = result.stats
    s = stats["sampler"]
    classes: dict[int, list] = {}
    for label, color in result.coloring.items():
        classes.setdefault(color, []).append(label)
    work = f"{sampler}" + (
        f" on {backend}: {int(s.get('circuits', 0))} circuits, {int(s.get('shots', 0))} shots, "
        f"{s.get('quantum_seconds', 0.0):.3f} quantum s, {int(s.get('fallbacks', 0))} fallbacks, "
        f"{int(s.get('cut_components', 0))} cut"
        if backend
        else ""
    )
    rows = [
        (
            "graph",
            f"{graph.graph.get('name', '')} "
            f"({graph.number_of_nodes()} vertices, {graph.number_of_edges()} edges)",
        ),
        ("colours", str(result.num_colors)),
        (
            "lower bound",
            f"{result.lower_bound} "
            f"(root {stats['root_lower_bound']}, first colouring {stats['initial_colors']})",
        ),
        ("optimal", "yes" if result.optimal else "not proven"),
        (
            "nodes",
            f"{stats['nodes_explored']} explored, {stats['nodes_pruned']} pruned, "
            f"{stats['duplicates']} duplicates, {stats['open_nodes']} open",
        ),
        ("sampler", work),
        ("time", f"{stats['seconds']:.2f} s ({stats['stop_reason']})"),
    ]
    lines = [f"{key:<12} {value}" for key, value in rows]
    for color in sorted(classes):
        members = " ".join(str(v) for v in sorted(classes[color], key=lambda v: (str(type(v)), v)))
        lines.append(f"{'colour ' + str(color):<12} {members}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.resume and args.checkpoint is None:
            raise BBQMISError("--resume needs --checkpoint FILE")
        for option, path in (("--json", args.json), ("--checkpoint", args.checkpoint)):
            _check_writable(option, path)
        graph = read_graph(args.graph)
        sampler = get_sampler(args.sampler, **_sampler_options(args))
        if isinstance(sampler, QAOASampler):
            sampler.solver.device()  # fail now on a bad spec or a missing token, not in a worker
        with make_executor(args.executor, args.workers) as executor:
            if executor is None:  # an MPI worker rank: it served tasks until rank 0 finished
                return 0
            progress = None if args.quiet else _Progress(sys.stderr)
            result = color_graph(
                graph,
                sampler,
                executor,
                time_limit=args.time_limit,
                node_limit=args.node_limit,
                memory_limit=args.memory_limit,
                exact_share=args.exact_share,
                checkpoint=args.checkpoint,
                resume=args.resume,
                checkpoint_interval=args.checkpoint_interval,
                strategy=args.strategy,
                exhaustive=not args.heuristic,
                seed=args.seed,
                progress=progress,
            )
            if progress is not None:
                progress.close()
    except (BBQMISError, ValueError, FileNotFoundError, ConnectionError) as exc:
        print(f"bbqmis: error: {exc}", file=sys.stderr)
        return 2
    if args.json is not None:  # first: a closed stdout must not lose the result
        tmp = Path(f"{args.json}.tmp")
        tmp.write_text(json.dumps(result.to_json(), indent=2) + "\n")
        os.replace(tmp, args.json)
    try:
        print(format_result(result, graph, args.sampler, args.backend if args.sampler == "qaoa" else None))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader left (``| head``): the result is in --json, if asked for
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _check_writable(option: str, path: Path | None) -> None:
    """Refuse an output path that cannot be written, before any long work starts."""
    if path is None:
        return
    folder = Path(path).resolve().parent
    if Path(path).is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
        raise BBQMISError(f"{option} {path}: cannot write there (no such folder, or not writable)")
