"""Cut-sampling accuracy and reconstruction speed on (K, d)-clustered graphs.

Usage: ``python benchmarks/cutting.py [--shots 4000] [--seeds 4] [--quiet]``. Prints a table and,
last, one JSON line with every number; progress (case, seed, subexperiments bound and run) goes
to stderr unless ``--quiet``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# This file is named like the package it measures: keep its own folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import numpy as np  # noqa: E402
from qiskit.quantum_info import PauliList, Statevector  # noqa: E402
from qiskit_addon_cutting import reconstruct_expectation_values  # noqa: E402

import cutting  # noqa: E402
from backends import get_backend  # noqa: E402
from backends.utils.progress import ProgressLine  # noqa: E402
from bbqmis import qaoa  # noqa: E402
from bbqmis.mis.classical import maximum_independent_set  # noqa: E402
from bbqmis.mis.problem import MISProblem  # noqa: E402

CASES = {  # name: (num_clusters, K, d, max_qubits); 9-12 vertices
    "1cut-9": (2, 4, 1, 5),
    "1cut-11": (2, 5, 1, 6),
    "2cuts-11": (3, 3, 1, 5),
}


def exact_distribution(problem, angles):
    circuit = qaoa.circuit(problem, measure=False)
    bound = circuit.assign_parameters({"gamma": angles.gamma, "beta": angles.beta})
    return Statevector(bound).probabilities()


def p_optimal(problem, distribution):
    best = problem.cost(problem.to_bits(maximum_independent_set(problem.graph)))
    k = np.arange(distribution.size)
    bits = ((k[:, None] >> np.arange(problem.num_nodes)) & 1).astype(np.uint8)
    return float(distribution[np.isclose(problem.cost(bits), best)].sum())


def energy_terms(problem):
    h, J, _ = problem.ising()
    n = problem.num_nodes
    coo = J.tocoo()
    supports = [(u,) for u in np.flatnonzero(h)] + list(zip(coo.row, coo.col, strict=True))
    return PauliList(["".join("Z" if q in s else "I" for q in reversed(range(n))) for s in supports])


def run_case(name, shots, seeds, backend, progress):
    k, size, d, max_qubits = CASES[name]
    problem = MISProblem(cutting.kd_clustered_graph(k, size, d, 0.8, 0.3, seed=4))
    plan = cutting.cut_qaoa(problem, max_qubits)
    angles = qaoa.optimize(problem)
    exact = exact_distribution(problem, angles)
    rows = []
    for seed in range(seeds):
        where = {"case": name, "seed": seed}
        results = cutting.run_subexperiments(
            plan, angles, backend, shots, seed=seed, progress=lambda s, where=where: progress({**where, **s})
        )
        estimate = cutting.energy(plan, results)
        sampled = cutting.draw(plan, results, 1_000_000, seed=seed)
        v = np.zeros(exact.size)
        for key, count in sampled.counts.items():
            v[int(key, 2)] = count
        v /= v.sum()
        rows.append(
            {
                "tvd": 0.5 * float(np.abs(v - exact).sum()),
                "p_opt_cut": p_optimal(problem, v),
                "energy_z": (estimate.value - angles.energy) / estimate.standard_error,
                "energy": estimate.value,
                "se": estimate.standard_error,
                "negative_fraction": sampled.negative_fraction,
            }
        )
    observables = energy_terms(problem)
    start = time.perf_counter()
    ours = cutting.expectation_values(plan, results, observables)
    vectorised = time.perf_counter() - start
    arguments = cutting.library_arguments(plan, results, observables)
    start = time.perf_counter()
    library = reconstruct_expectation_values(*arguments)
    library_seconds = time.perf_counter() - start
    mean = {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}
    return {
        "case": name,
        "n": problem.num_nodes,
        "cuts": plan.num_cuts,
        "widths": list(plan.widths),
        "subexperiments": plan.num_subexperiments,
        "shots_per_subexperiment": shots,
        "tvd": mean["tvd"],
        "p_opt_exact": p_optimal(problem, exact),
        "p_opt_cut": mean["p_opt_cut"],
        "energy_error_se": [round(r["energy_z"], 3) for r in rows],
        "energy_spread_over_se": float(np.std([r["energy"] for r in rows], ddof=1) / mean["se"]),
        "standard_error": mean["se"],
        "negative_fraction": mean["negative_fraction"],
        "max_abs_diff_vs_library": float(np.max(np.abs(ours - np.array(library[1:])))),
        "vectorised_seconds": vectorised,
        "library_seconds": library_seconds,
        "speedup": library_seconds / vectorised,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shots", type=int, default=4000)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args()
    backend = get_backend("aer")
    with ProgressLine(sys.stderr, label="cutting", enabled=not args.quiet) as progress:
        cases = [run_case(name, args.shots, args.seeds, backend, progress) for name in CASES]
    one = next(c for c in cases if c["case"] == "1cut-11")
    two = next(c for c in cases if c["case"] == "2cuts-11")
    variance_ratio = (two["standard_error"] / one["standard_error"]) ** 2
    total_shots = two["subexperiments"] / one["subexperiments"]
    variance_ratio_fixed_total = variance_ratio * total_shots
    header = f"{'case':10} {'n':>3} {'cuts':>4} {'subexp':>6} {'TVD':>6} {'Popt ex':>7} {'Popt cut':>8} "
    header += f"{'SE':>7} {'neg':>6} {'lib s':>7} {'vec s':>8} {'speedup':>8}"
    print(header)
    for c in cases:
        print(
            f"{c['case']:10} {c['n']:3d} {c['cuts']:4d} {c['subexperiments']:6d} {c['tvd']:6.3f} "
            f"{c['p_opt_exact']:7.3f} {c['p_opt_cut']:8.3f} {c['standard_error']:7.4f} "
            f"{c['negative_fraction']:6.3f} {c['library_seconds']:7.3f} {c['vectorised_seconds']:8.5f} "
            f"{c['speedup']:8.0f}"
        )
        print(f"{'':10} energy error in SE units: {c['energy_error_se']}")
    print(
        f"energy variance, 2 cuts vs 1 cut (11 vertices): {variance_ratio:.2f}x at equal shots per "
        "subexperiment, "
        f"{variance_ratio_fixed_total:.1f}x at equal total shots (kappa^2 bound: 16x)"
    )
    summary = {
        "shots": args.shots,
        "seeds": args.seeds,
        "cases": cases,
        "variance_ratio_per_cut_fixed_shots_per_subexperiment": variance_ratio,
        "variance_ratio_per_cut_fixed_total_shots": variance_ratio_fixed_total,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
