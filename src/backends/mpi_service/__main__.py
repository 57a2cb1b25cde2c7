"""Command line of the MPI quantum service: ``serve`` and ``shutdown``.

Run ``python -m backends.mpi_service --help`` for examples.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
from typing import TYPE_CHECKING

from backends.utils.arguments import CommandParser, integer, real

if TYPE_CHECKING:
    from backends.base import QuantumBackend

__all__ = ["main"]

EXAMPLES = """\
examples:
  # DPM: publish the service as 'qpu' (port files in $BBQMIS_MPI_PORTS when set)
  srun --het-group=1 python -m backends.mpi_service serve --backend aer --name qpu &
  srun --het-group=0 python -m bbqmis graph.col --sampler qaoa --backend mpi:qpu
  # one shared MPI_COMM_WORLD: the service is the last rank
  srun --het-group=0 python -m bbqmis graph.col --executor serial --sampler qaoa \\
       --backend mpi:world : --het-group=1 python -m backends.mpi_service serve --backend aer
  # stop a published service for every client
  python -m backends.mpi_service shutdown --name qpu
  # one small batch (a 3-qubit GHZ circuit) through a service, e.g. one quantum block of a job
  srun --het-group=0 python -m backends.mpi_service probe --backend mpi:qpu --shots 100
"""


#: ``--shots``: the service's backend applies its own limit (``aer``: 10**6).
_SHOTS = integer(1, 2**31 - 1)
#: ``--timeout``: seconds, finite.
_SECONDS = real(0.0, 1e9)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``python -m backends.mpi_service``."""
    parser = CommandParser(
        prog="python -m backends.mpi_service",
        description="Quantum service over MPI: one process owns a backend and runs its clients' circuits.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {importlib.metadata.version('bbqmis')}"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    serve = commands.add_parser(
        "serve", help="run the service", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    serve.add_argument("--backend", required=True, help="backend spec, e.g. aer, iqm-fake:adonis, vqpu:URL")
    serve.add_argument("--name", help="publish under this name (DPM); default: serve MPI_COMM_WORLD")
    serve.add_argument("--clients", type=int, default=1, help="goodbyes before it stops (default 1)")
    serve.add_argument("--latency", type=float, default=0.0, help="seconds added to every batch (default 0)")
    serve.add_argument("--seed", type=int, help="backend seed")
    serve.add_argument("--stats", help="write the service's statistics (JSON) to this file")
    probe = commands.add_parser(
        "probe",
        help="run a GHZ circuit through a service",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    probe.add_argument("--backend", required=True, help="mpi:NAME or mpi:world")
    probe.add_argument("--shots", type=_SHOTS, default=100, help="shots (default 100)")
    probe.add_argument(
        "--timeout",
        type=_SECONDS,
        default=10.0,
        help="seconds to wait for the name of an mpi:NAME service (default 10)",
    )
    stop = commands.add_parser(
        "shutdown",
        help="stop a published service",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    stop.add_argument("--name", required=True, help="the service's name")
    stop.add_argument(
        "--timeout", type=_SECONDS, default=10.0, help="seconds to wait for the name (default 10)"
    )
    return parser


def _probe(backend: QuantumBackend, shots: int) -> dict[str, object]:
    """Run a 3-qubit GHZ circuit; return its counts and quantum seconds."""
    from qiskit import QuantumCircuit

    ghz = QuantumCircuit(3)
    ghz.h(0)
    ghz.cx(0, 1)
    ghz.cx(1, 2)
    ghz.measure_all()
    run = backend.execute([ghz], shots)  # type: ignore[attr-defined]
    return {"counts": run.counts[0], "quantum_seconds": run.timing.quantum_seconds}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (2 on bad input)."""
    args = build_parser().parse_args(argv)
    from backends.errors import BackendError, InvalidParameterError
    from backends.registry import get_backend
    from backends.utils.files import atomic_write_text, check_writable

    prog = "python -m backends.mpi_service"
    try:
        if args.command == "shutdown":
            from backends.mpi_service.client import MPIServiceBackend

            MPIServiceBackend(args.name, timeout=args.timeout).close(shutdown=True)
            return 0
        if args.command == "probe":
            options = {"timeout": args.timeout} if args.backend.startswith("mpi:") else {}
            print(json.dumps(_probe(get_backend(args.backend, **options), args.shots)), flush=True)
            return 0
        from backends.mpi_service.service import serve

        if args.stats:
            check_writable(args.stats, "--stats")
        backend = get_backend(args.backend, seed=args.seed)
        stats = serve(
            backend,
            name=args.name,
            clients=args.clients,
            latency=args.latency,
            log=lambda line: print(f"{prog}: {line}", file=sys.stderr, flush=True),
        )
    except (InvalidParameterError, BackendError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(stats.to_json())
    print(text, flush=True)
    if args.stats:
        try:
            atomic_write_text(args.stats, lambda file: file.write(text + "\n"))
        except OSError as exc:  # the folder changed while serving
            print(f"{prog}: error: --stats {args.stats}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
