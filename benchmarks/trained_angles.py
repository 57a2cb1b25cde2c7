"""QAOA angles trained on a simulator against the closed-form optimum, on MIS subproblems of 8 to 16 qubits.

The "Done when" measurement of issue #37: trained p = 1 energies within 5 % of the closed-form
optimum, with the evaluations it took. Problems (unit weights, penalty 2):

- ``3-regular``: ``networkx.random_regular_graph(3, n, seed)`` for every size and seed;
- ``dimacs``: connected induced subgraphs of bundled DIMACS graphs (``data/graphs``), the
  first ``n`` vertices reached by a breadth-first search from a seeded vertex, as a residual
  graph of the colouring tree is a part of its graph.

Each problem is trained by :func:`bbqmis.mis.training.train` on ideal Aer (the energy of
every evaluation estimated from ``--shots`` samples of the QAOA circuit; at most
``--evaluations``): a search (COBYLA by default) from the closed-form start and, with
``--starts closed-form random``, from random points, then the model fit, which stops when its
own expected gap is below ``--tolerance`` of its energy. The gap is ``(E(trained) - E*) / |E*|``,
both energies exact (closed form), so the gap carries no shot noise; the script checks
E(trained) against a numpy statevector of the circuit at the trained angles and exits 1 if
they differ by more than 1e-9.

Prints one row per (family, qubits, start), one summary line per (family, start) (problems
within ``--target``, largest gap, mean evaluations), the wall time, then one JSON line (``rows``,
``families``, every ``problem`` with its angles, ``target_met``: every closed-form-start gap
within ``--target``)::

    python benchmarks/trained_angles.py            # 3-regular and DIMACS, n = 8..16; 2-4 min on 2 cores
    python benchmarks/trained_angles.py --quick    # n = 8 and 12, one seed, 20 evaluations: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from backends import shared_backend  # noqa: E402
from backends.utils.arguments import integer, real  # noqa: E402
from bbqmis.mis import MISProblem, qaoa  # noqa: E402
from bbqmis.mis.graphio import read_graph  # noqa: E402
from bbqmis.mis.training import Training, sample_energy, train  # noqa: E402

#: Bundled DIMACS graphs the subproblems are cut from: small and large, sparse and dense.
DIMACS = ("myciel5", "queen6_6", "le450_5a", "DSJC125.5", "anna")
SIZES = (8, 10, 12, 14, 16)
QUICK_SIZES = (8, 12)


def regular_problem(n: int, seed: int) -> tuple[str, MISProblem]:
    """The MIS problem of a seeded random 3-regular graph on ``n`` vertices."""
    return f"3-regular n={n} seed={seed}", MISProblem(nx.random_regular_graph(3, n, seed=seed))


def dimacs_problem(name: str, n: int, seed: int) -> tuple[str, MISProblem]:
    """The MIS problem of ``n`` vertices of DIMACS graph ``name`` reached by BFS from a seeded vertex."""
    graph = read_graph(ROOT / "data" / "graphs" / f"{name}.col")
    nodes = sorted(graph)
    rng = np.random.default_rng(seed)
    for start in rng.permutation(len(nodes)):  # a start whose component has n vertices
        reached = [nodes[start], *(v for _, v in nx.bfs_edges(graph, nodes[start]))][:n]
        if len(reached) == n:
            sub = nx.convert_node_labels_to_integers(graph.subgraph(reached).copy())
            return f"{name} n={n} seed={seed}", MISProblem(sub)
    raise ValueError(f"{name}: no connected component of {n} vertices")


def statevector_energy(problem: MISProblem, gamma: float, beta: float) -> float:
    """The QUBO energy at ``(gamma, beta)`` from a numpy statevector of the QAOA circuit (no closed form)."""
    from qiskit.quantum_info import Statevector

    circuit = qaoa.circuit(problem, measure=False)
    bound = circuit.assign_parameters({p: gamma if p.name == "gamma" else beta for p in circuit.parameters})
    probabilities = Statevector(bound).probabilities()
    n = problem.num_nodes
    bits = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.uint8)  # qubit u = bit u
    return float(probabilities @ problem.cost(bits))


def run_problem(label: str, problem: MISProblem, start: str, args, seed: int) -> dict:
    """Train one problem; return its record (angles, energies, gap, evaluations, seconds)."""
    aer = shared_backend("aer")
    draws = iter(range(10**9))

    def estimate(gamma: float, beta: float) -> tuple[float, float]:
        return sample_energy(problem, (gamma, beta), aer, args.shots, seed=1000 * seed + next(draws))

    training = Training(args.evaluations, args.shots, start, args.method, tolerance=args.tolerance)
    trained = train(problem, estimate, training, seed=seed)
    check = statevector_energy(problem, trained.gamma, trained.beta)
    return {
        "problem": label,
        "family": "3-regular" if label.startswith("3-regular") else "dimacs",
        "qubits": problem.num_nodes,
        "start": start,
        "gamma": trained.gamma,
        "beta": trained.beta,
        "energy": trained.energy,
        "statevector_energy": check,
        "estimate": trained.estimate,
        "optimum": trained.optimum,
        "gap": trained.gap,
        "relative_gap": trained.relative_gap,
        "evaluations": trained.evaluations,
        "fit_evaluations": trained.fit_evaluations,
        "seconds": trained.seconds,
    }


def problems(args) -> list[tuple[str, MISProblem, int]]:
    """Every (label, problem, seed) of the run."""
    found = []
    for n in args.sizes:
        for seed in range(args.seeds):
            found.append((*regular_problem(n, seed), seed))
            for name in args.dimacs:
                found.append((*dimacs_problem(name, n, seed), seed))
    return found


def summarise(records: list[dict]) -> list[dict]:
    """One row per (family, qubits, start): mean and largest gap and evaluations."""
    keys = sorted({(r["family"], r["qubits"], r["start"]) for r in records})
    rows = []
    for family, qubits, start in keys:
        same = [r for r in records if (r["family"], r["qubits"], r["start"]) == (family, qubits, start)]
        rows.append(
            {
                "family": family,
                "qubits": qubits,
                "start": start,
                "problems": len(same),
                "mean_gap": statistics.fmean(r["relative_gap"] for r in same),
                "max_gap": max(r["relative_gap"] for r in same),
                "max_absolute_gap": max(r["gap"] for r in same),
                "mean_optimum": statistics.fmean(r["optimum"] for r in same),
                "mean_evaluations": statistics.fmean(r["evaluations"] for r in same),
                "max_evaluations": max(r["evaluations"] for r in same),
                "mean_fit_evaluations": statistics.fmean(r["fit_evaluations"] for r in same),
            }
        )
    return rows


def families(records: list[dict], target: float) -> list[dict]:
    """One summary per (family, start): problems within ``target``, largest gap, mean evaluations."""
    found = []
    for family, start in sorted({(r["family"], r["start"]) for r in records}):
        same = [r for r in records if (r["family"], r["start"]) == (family, start)]
        found.append(
            {
                "family": family,
                "start": start,
                "problems": len(same),
                "within_target": sum(r["relative_gap"] <= target for r in same),
                "max_gap": max(r["relative_gap"] for r in same),
                "mean_evaluations": statistics.fmean(r["evaluations"] for r in same),
                "mean_fit_evaluations": statistics.fmean(r["fit_evaluations"] for r in same),
            }
        )
    return found


def table(rows: list[dict]) -> list[str]:
    """The rows as a Markdown table."""
    lines = [
        "| family | qubits | start | problems | mean E* | mean gap | max gap | max E - E* "
        "| mean evaluations | max evaluations | mean fit evaluations |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['family']} | {r['qubits']} | {r['start']} | {r['problems']} | {r['mean_optimum']:.3f} "
            f"| {100 * r['mean_gap']:.2f} % | {100 * r['max_gap']:.2f} % | {r['max_absolute_gap']:.3f} "
            f"| {r['mean_evaluations']:.1f} | {r['max_evaluations']} | {r['mean_fit_evaluations']:.1f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="trained_angles.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="n = 8 and 12, one seed, 20 evaluations, 512 shots"
    )
    parser.add_argument(
        "--sizes", type=integer(2, 20), nargs="+", help=f"qubits (default {' '.join(map(str, SIZES))})"
    )
    parser.add_argument("--seeds", type=integer(1, 100), help="seeds per size and family (default 3)")
    parser.add_argument("--dimacs", nargs="*", help=f"DIMACS graphs (default {' '.join(DIMACS)})")
    parser.add_argument("--starts", nargs="+", choices=("closed-form", "random"), default=["closed-form"])
    parser.add_argument("--evaluations", type=integer(1, 10_000), help="budget per problem (default 40)")
    parser.add_argument("--shots", type=integer(1, 1_000_000), help="shots per evaluation (default 1024)")
    parser.add_argument("--method", choices=("cobyla", "nelder-mead", "powell"), default="cobyla")
    parser.add_argument(
        "--target", type=real(0, 10), default=0.05, help="largest relative gap (default 0.05)"
    )
    parser.add_argument(
        "--tolerance", type=real(0, 10), default=0.005, help="the model fit's tolerance (default 0.005)"
    )
    args = parser.parse_args(argv)
    quick = args.quick
    args.sizes = args.sizes or (QUICK_SIZES if quick else SIZES)
    args.seeds = args.seeds or (1 if quick else 3)
    args.dimacs = (
        DIMACS[:2] if quick and args.dimacs is None else (DIMACS if args.dimacs is None else args.dimacs)
    )
    args.evaluations = args.evaluations or (20 if quick else 40)
    args.shots = args.shots or (512 if quick else 1024)
    began = time.perf_counter()
    records = []
    for label, problem, seed in problems(args):
        for start in args.starts:
            records.append(run_problem(label, problem, start, args, seed))
            print(f"{label} {start}: gap {records[-1]['relative_gap']:.2%}", file=sys.stderr)
    deviation = max(abs(r["energy"] - r["statevector_energy"]) for r in records)
    rows, summary, seconds = summarise(records), families(records, args.target), time.perf_counter() - began
    print("\n".join(table(rows)))
    for f in summary:
        print(
            f"{f['family']} ({f['start']} start): {f['within_target']}/{f['problems']} within "
            f"{100 * args.target:g} %, max gap {100 * f['max_gap']:.2f} %, mean evaluations "
            f"{f['mean_evaluations']:.1f} (model fit {f['mean_fit_evaluations']:.1f})"
        )
    load = os.getloadavg()[0]
    print(f"{len(records)} trainings in {seconds:.0f} s (load average {load:.1f} at the end)")
    closed = [r["relative_gap"] for r in records if r["start"] == "closed-form"]
    report = {
        "benchmark": "trained_angles",
        "quick": quick,
        "shots": args.shots,
        "evaluations_budget": args.evaluations,
        "method": args.method,
        "tolerance": args.tolerance,
        "target": args.target,
        "target_met": bool(closed) and max(closed) <= args.target,
        "max_statevector_deviation": deviation,
        "seconds": seconds,
        "load_average": load,
        "rows": rows,
        "families": summary,
        "problems": records,
    }
    print(json.dumps(report))
    if deviation > 1e-9:
        print(f"trained_angles.py: closed form and statevector differ by {deviation:.3g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
