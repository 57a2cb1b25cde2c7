"""A classical rank for the tests: submits circuits to the MPI service and works meanwhile.

Usage: python client_job.py SPEC OUT.json [--shutdown]
Writes the counts, how many classical steps ran while the batch was pending, and the
counts the same circuits give on a local Aer with the same seed.
"""

import json
import sys

from qiskit import QuantumCircuit

from backends import get_backend


def main():
    spec, out = sys.argv[1], sys.argv[2]
    backend = get_backend(spec, seed=11)
    ghz = QuantumCircuit(3)
    ghz.h(0)
    ghz.cx(0, 1)
    ghz.cx(1, 2)
    ghz.measure_all()
    skew = QuantumCircuit(2)
    skew.ry(0.7, 0)
    skew.cx(0, 1)
    skew.measure_all()
    pending = backend.submit([ghz, skew], shots=500, seed=123)
    steps = 0
    while not pending.done():
        steps += sum(i * i for i in range(1000)) > 0  # classical work while the batch runs
    counts = pending.result().counts
    blocking = backend.run([skew], shots=300, seed=7)
    result = {
        "counts": counts,
        "blocking": blocking,
        "steps": steps,
        "local": get_backend("aer").run([ghz, skew], shots=500, seed=123),
        "local_blocking": get_backend("aer").run([skew], shots=300, seed=7),
        "timing": backend.timings[-1].quantum_seconds,
        "device": [backend.device.name, backend.num_qubits],
    }
    backend.close(shutdown="--shutdown" in sys.argv)
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
