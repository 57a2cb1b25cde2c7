"""Sample a Bell state with a Qiskit ``SamplerV2``: plain Qiskit code, except where the sampler comes from.

With Qiskit alone the sampler line reads ``sampler = StatevectorSampler()``; here it is
``sampler = get_sampler(spec)``, where ``spec`` names any backend of this project:
``aer``, ``aer:noisy-adonis``, ``iqm-fake:adonis``, ``iqm:<url>``, ``vqpu:<http://host:port>``.
A vQPU server that checks tokens reads the job's token from ``VQPU_TOKEN``.

Usage (from the repository root, with ``src`` on ``PYTHONPATH`` or the package installed)::

    python examples/qiskit/sample_bell.py                                   # Aer
    python examples/qiskit/sample_bell.py vqpu:http://127.0.0.1:8765 --shots 2000

Prints the counts as one JSON object on stdout, e.g. ``{"00": 507, "11": 493}``. Exit
status 2 on a bad spec or option, 1 when the backend fails (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys

from qiskit import QuantumCircuit

from backends import BackendError, get_sampler


def main(argv: list[str] | None = None) -> int:
    """Build a Bell circuit, sample it on ``spec`` and print its counts; return the exit status."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        epilog="example: python examples/qiskit/sample_bell.py vqpu:http://127.0.0.1:8765",
    )
    parser.add_argument("spec", nargs="?", default="aer", help="backend spec")
    parser.add_argument("--shots", type=int, default=1000, help="shots")
    args = parser.parse_args(argv)

    circuit = QuantumCircuit(2)
    circuit.h(0)
    circuit.cx(0, 1)
    circuit.measure_all()

    try:
        sampler = get_sampler(args.spec)  # the one change from plain Qiskit: StatevectorSampler()
        result = sampler.run([circuit], shots=args.shots).result()
    except (BackendError, ValueError) as exc:
        print(f"sample_bell.py: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ValueError) else 1
    print(json.dumps(result[0].data.meas.get_counts(), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
