"""The options of ``python -m bbqmis``: its argument parser, built without importing the search.

``--help`` and ``--version`` answer from this module alone: it imports neither networkx,
numpy, matplotlib nor qiskit. The choices of the options are therefore written here, not
imported from the modules that define them (``tests/bbqmis/test_startup.py`` keeps the two
equal): :data:`FORMATS` and :data:`EXTENSIONS` (:mod:`bbqmis.mis.graphio`), :data:`ANGLES`,
:data:`STARTS` and :data:`TRAINING_METHODS` (:mod:`bbqmis.mis.training`), :data:`METHODS`
(:mod:`bbqmis.coloring.pipeline`), :data:`STRATEGIES` (:mod:`bbqmis.coloring.tree.tree`) and
:data:`KINDS` (:mod:`bbqmis.coloring.tree.executors`).

>>> parser = build_parser()
>>> parser.parse_args(["graph.col"]).sampler
'qaoa'
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from pathlib import Path

from backends.utils.arguments import CommandParser, integer, real

from .plot import MAX_DRAWN_VERTICES

__all__ = [
    "ANGLES",
    "EXAMPLES",
    "EXTENSIONS",
    "FORMATS",
    "KINDS",
    "METHODS",
    "STARTS",
    "STRATEGIES",
    "TRAINING_METHODS",
    "build_parser",
    "prog_name",
]

#: Graph file extensions and their formats, as :data:`bbqmis.mis.graphio.EXTENSIONS`.
EXTENSIONS = {
    ".col": "dimacs",
    ".dimacs": "dimacs",
    ".txt": "edgelist",
    ".edges": "edgelist",
    ".edgelist": "edgelist",
    ".el": "edgelist",
    ".graphml": "graphml",
    ".json": "json",
}
#: Graph formats, as :data:`bbqmis.mis.graphio.FORMATS`.
FORMATS = ("dimacs", "edgelist", "graphml", "json", "nodelink")
#: QAOA angles and training starts and optimisers, as :mod:`bbqmis.mis.training`'s.
ANGLES = ("closed-form", "trained")
STARTS = ("closed-form", "random")
TRAINING_METHODS = ("cobyla", "nelder-mead", "powell")
#: Tree methods, as :data:`bbqmis.coloring.pipeline.METHODS`.
METHODS = ("bbq", "price")
#: Queue orders, as :data:`bbqmis.coloring.tree.tree.STRATEGIES`.
STRATEGIES = ("best-first", "depth-first")
#: Executor kinds, as :data:`bbqmis.coloring.tree.executors.KINDS`.
KINDS = ("auto", "serial", "process", "mpi")

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


def prog_name() -> str:
    """How the user ran the command: ``bbqmis`` (the console script) or ``python -m bbqmis``.

    Examples
    --------
    >>> prog_name() in ("bbqmis", "python -m bbqmis")
    True
    """
    return "bbqmis" if Path(sys.argv[0]).name == "bbqmis" else "python -m bbqmis"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m bbqmis``.

    Examples
    --------
    >>> args = build_parser().parse_args(["g.col", "--sampler", "exact", "--certificate", "c.json"])
    >>> args.sampler, str(args.certificate), args.shots
    ('exact', 'c.json', 1024)
    """
    parser = CommandParser(
        prog=prog_name(),
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
        choices=TRAINING_METHODS,
        help="with --angles trained: the scipy optimiser (default: cobyla)",
    )


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
        "--no-mycielski",
        action="store_true",
        help="no Mycielskian root bound: clique and degree bounds alone, so that the tree and its "
        "sampler branch on the Mycielski graphs the bound settles at the root",
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
        "--certificate",
        type=Path,
        default=None,
        metavar="FILE",
        help="write a certificate of the result as JSON to FILE: the graph's size and edge hash, the "
        "colouring and a witness of the lower bound (a clique, a Mycielskian structure, or a SAT "
        "refutation with its DRAT proof), checked by python -m bbqmis.check GRAPH FILE without "
        "bbqmis's solver",
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
