"""``python -m bbqmis.check GRAPH CERT``: check a colouring certificate without the solver.

Prints one line: ``ok: chromatic number K proved``, ``ok: colouring with K colours, lower
bound L`` (status 0) or ``invalid: <reason>`` (status 1); an unreadable graph or
certificate is one line on stderr and status 2.
"""

import argparse
import sys
from importlib.metadata import version

from .dimacs import read_dimacs
from .errors import InvalidCertificate, UnreadableInput
from .verify import check_certificate, read_certificate

PROG = "python -m bbqmis.check"


def main(argv: list[str] | None = None) -> int:
    """Run the checker; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Check a certificate written by python -m bbqmis --certificate FILE: the graph's "
        "size and edge hash, that the colouring is proper, and the lower bound's clique or Mycielskian "
        "witness, with code that shares nothing with the solver.",
        epilog="example:\n  python -m bbqmis data/graphs/myciel5.col --sampler exact --certificate m5.cert\n"
        "  python -m bbqmis.check data/graphs/myciel5.col m5.cert\n\n"
        "exit status: 0 valid, 1 invalid, 2 unreadable input",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version('bbqmis')}")
    parser.add_argument("graph", help="the graph, a DIMACS .col file")
    parser.add_argument("certificate", help="the certificate (JSON)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0), or a bad option (2)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        graph = read_dimacs(args.graph)
        certificate = read_certificate(args.certificate)
    except UnreadableInput as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    try:
        print(check_certificate(graph, certificate))
    except InvalidCertificate as exc:
        print(f"invalid: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
