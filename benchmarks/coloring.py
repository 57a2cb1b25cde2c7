"""Graph colouring: networkx greedy colourings vs BBQ-MIS (exact and QAOA), and QAOA's share.

Part 1, on the bundled DIMACS graphs (``data/graphs/*.col``; ``le450_5a`` only with
``--all``): every ``networkx.greedy_color`` strategy (colours, time), then
``color_graph`` with ``sampler="exact"`` and with ``sampler="qaoa"`` (Aer), both
exhaustive (colours, proven lower bound, optimal, time, nodes; circuits and shots
for QAOA), beside the chromatic number from the literature.

Part 2, QAOA's contribution at equal node budgets, on graphs where the search must
branch (root lower bound below the first colouring): ``color_graph`` with each of the
samplers qaoa, anneal, greedy and random, in both modes: ``exhaustive=False`` (only
sampled sets are branched on, as in the reference implementation) and
``exhaustive=True`` (the sampler orders the children, the rest are enumerated), with the
same ``node_limit``. QAOA and random draw the same number of shots. One sentence per
graph says whether QAOA beat, matched or lost to greedy and random.

Usage: ``python benchmarks/coloring.py [--quick] [--json-only] [--graphs myciel3 ...]
[--all] [--time-limit 120] [--node-budget 30]``. Prints the tables and, last, one JSON
line with every number. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import sys
import time
from pathlib import Path

# benchmarks/cutting.py is named like the `cutting` package the QAOA sampler imports for wide
# components: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import networkx as nx  # noqa: E402
from networkx.algorithms.coloring.greedy_coloring import strategy_random_sequential  # noqa: E402

import bbqmis  # noqa: E402
from bbqmis.coloring import color_graph, verify_coloring  # noqa: E402
from bbqmis.coloring.samplers import get_sampler  # noqa: E402
from bbqmis.mis.graphio import read_graph  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GRAPH_DIR = ROOT / "data" / "graphs"

#: Chromatic numbers from the literature, as listed for these DIMACS COLOR02/03/04
#: instances in /work/shared/graphs/README.md (the DIMACS graph-colouring benchmark
#: tables; CP 2022 "From Cliques to Colorings and Back Again" instance set). Hard-coded
#: reference values only: nothing here is computed from them.
LITERATURE_CHI = {"myciel3": 4, "myciel4": 5, "queen5_5": 5, "huck": 11, "anna": 11, "le450_5a": 5}

#: networkx greedy strategies (column label, strategy); random_sequential gets a seed.
GREEDY_STRATEGIES = [
    ("LF", "largest_first"),
    ("SL", "smallest_last"),
    ("DSATUR", "saturation_largest_first"),
    ("IS", "independent_set"),
    ("BFS", "connected_sequential_bfs"),
    ("DFS", "connected_sequential_dfs"),
    ("RS", "random_sequential"),
]

SAMPLERS = ("qaoa", "anneal", "greedy", "random")
PRE_SEARCH_SOURCES = ("DSATUR", "largest_first", "smallest_last")


def branching_graphs(quick: bool) -> dict:
    """Graphs where the root bound does not meet the first colouring (checked at run time).

    The random graphs were picked by a scan of gnp(n, p, seed) for n in 20..40: the root
    lower bound is below the pre-search colouring (best of DSATUR, largest-first,
    smallest-last); on gnp30 and gnp35 that colouring is also above the chromatic number
    (7 and 8, proven by the exact sampler), so a sampler can improve the colouring.
    ``mycielski_graph(5)`` is isomorphic to the DIMACS file myciel4 (networkx's
    Mycielski graph k has chromatic number k), kept as a relabelled copy.
    """
    graphs = {
        "myciel3": read_graph(GRAPH_DIR / "myciel3.col"),
        "myciel4": read_graph(GRAPH_DIR / "myciel4.col"),
        "mycielski5": nx.mycielski_graph(5),
        "mycielski6": nx.mycielski_graph(6),
        "gnp25_0.5_s9": nx.gnp_random_graph(25, 0.5, seed=9),
        "gnp30_0.5_s0": nx.gnp_random_graph(30, 0.5, seed=0),
        "gnp35_0.5_s5": nx.gnp_random_graph(35, 0.5, seed=5),
        "gnp40_0.3_s0": nx.gnp_random_graph(40, 0.3, seed=0),
    }
    if quick:
        for name in ("mycielski5", "gnp35_0.5_s5", "gnp40_0.3_s0"):
            del graphs[name]
    return graphs


def make_sampler(name: str, args):
    if name == "qaoa":
        return get_sampler("qaoa", backend="aer", shots=args.shots, max_qubits=args.max_qubits, cut=args.cut)
    if name in ("random", "anneal"):
        return get_sampler(name, shots=args.shots)
    if name == "greedy":
        return get_sampler("greedy", num_sets=args.greedy_sets)
    return get_sampler(name)


def run_search(graph, sampler_name: str, args, *, exhaustive: bool, node_limit) -> dict:
    sampler = make_sampler(sampler_name, args)
    start = time.perf_counter()
    result = color_graph(
        graph,
        sampler,
        time_limit=args.time_limit,
        node_limit=node_limit,
        exhaustive=exhaustive,
        seed=args.seed,
    )
    wall = time.perf_counter() - start
    verify_coloring(
        nx.relabel_nodes(graph, {v: graph.nodes[v].get("label", v) for v in graph}), result.coloring
    )
    s = result.stats
    # color_graph first offers DSATUR, largest_first and smallest_last colourings (before any
    # node); stats["initial_colors"] is only the first of them, so take the best of the three.
    pre = [inc for inc in s["incumbents"] if inc[2] in PRE_SEARCH_SOURCES]
    first = min(pre, key=lambda inc: inc[1]) if pre else s["incumbents"][0]
    last = s["incumbents"][-1]
    return {
        "sampler": sampler_name,
        "exhaustive": exhaustive,
        "colors": result.num_colors,
        "lower_bound": result.lower_bound,
        "optimal": result.optimal,
        "seconds": round(wall, 4),
        "nodes_explored": s["nodes_explored"],
        "nodes_pruned": s["nodes_pruned"],
        "duplicates": s["duplicates"],
        "root_lower_bound": s["root_lower_bound"],
        "initial_colors_stat": s["initial_colors"],
        "initial_colors": first[1],
        "initial_source": first[2],
        "stop_reason": s["stop_reason"],
        "best_found_at_s": last[0],
        "best_source": last[2],
        "improved_by_search": last[1] < first[1],
        "incumbents": s["incumbents"],
        "sampler_stats": s["sampler"],
    }


# -- part 1 ---------------------------------------------------------------------------------
def greedy_row(graph) -> dict:
    out = {}
    for label, strategy in GREEDY_STRATEGIES:
        chosen = (
            functools.partial(strategy_random_sequential, seed=0)
            if strategy == "random_sequential"
            else strategy
        )
        start = time.perf_counter()
        coloring = nx.greedy_color(graph, strategy=chosen)
        seconds = time.perf_counter() - start
        verify_coloring(graph, coloring)
        out[label] = {
            "strategy": strategy,
            "colors": max(coloring.values()) + 1,
            "ms": round(1e3 * seconds, 3),
        }
    return out


def part1(names, args, log) -> list[dict]:
    rows = []
    for name in names:
        graph = read_graph(GRAPH_DIR / f"{name}.col")
        log(f"[coloring] part 1: {name} (n={graph.number_of_nodes()})")
        row = {
            "graph": name,
            "n": graph.number_of_nodes(),
            "m": graph.number_of_edges(),
            "chi_literature": LITERATURE_CHI.get(name),
            "greedy": greedy_row(graph),
        }
        for sampler in ("exact", "qaoa"):
            log(f"[coloring]   {sampler}")
            row[sampler] = run_search(graph, sampler, args, exhaustive=True, node_limit=None)
        rows.append(row)
    return rows


def print_part1(rows) -> None:
    labels = [label for label, _ in GREEDY_STRATEGIES]
    print("Part 1: DIMACS graphs. networkx greedy_color colours per strategy (RS seed 0), then color_graph")
    print("exhaustive, serial: k = colours, lb = proven lower bound, opt = optimal proven, s = wall seconds")
    head = (
        f"{'graph':<10} {'n':>4} {'m':>5} {'chi':>3} | "
        + " ".join(f"{lab:>6}" for lab in labels)
        + f" {'grd ms':>7} | {'exact k/lb':>10} {'opt':>3} {'s':>6} {'nodes':>5}"
        + f" | {'qaoa k/lb':>9} {'opt':>3} {'s':>6} {'nodes':>5} {'circ':>4} {'shots':>6} {'fb':>3}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        g, e, q = r["greedy"], r["exact"], r["qaoa"]
        qs = q["sampler_stats"]
        print(
            f"{r['graph']:<10} {r['n']:>4} {r['m']:>5} {r['chi_literature'] or '-':>3} | "
            + " ".join(f"{g[lab]['colors']:>6}" for lab in labels)
            + f" {max(v['ms'] for v in g.values()):>7.2f} | "
            f"{str(e['colors']) + '/' + str(e['lower_bound']):>10} {'yes' if e['optimal'] else 'no':>3} "
            f"{e['seconds']:>6.2f} {e['nodes_explored']:>5} | "
            f"{str(q['colors']) + '/' + str(q['lower_bound']):>9} {'yes' if q['optimal'] else 'no':>3} "
            f"{q['seconds']:>6.2f} {q['nodes_explored']:>5} {int(qs.get('circuits', 0)):>4} "
            f"{int(qs.get('shots', 0)):>6} {int(qs.get('fallbacks', 0)):>3}"
        )
    print(
        "grd ms = slowest greedy strategy; circ/shots = Aer circuits and shots; fb = components too wide for"
    )
    print("the circuit, sampled by annealing instead")


# -- part 2 ---------------------------------------------------------------------------------
def part2(graphs: dict, args, log) -> list[dict]:
    rows = []
    for name, graph in graphs.items():
        bound_run = color_graph(graph, "exact", node_limit=1, seed=args.seed)
        row = {
            "graph": name,
            "n": graph.number_of_nodes(),
            "m": graph.number_of_edges(),
            "root_lower_bound": bound_run.stats["root_lower_bound"],
            "initial_colors": min(
                inc[1] for inc in bound_run.stats["incumbents"] if inc[2] in PRE_SEARCH_SOURCES
            ),
            "chi_literature": LITERATURE_CHI.get(name),
            "runs": {},
        }
        if name.startswith("mycielski"):
            row["chi_literature"] = int(name.removeprefix("mycielski"))  # Mycielski graph k has chi k
        row["must_branch"] = row["root_lower_bound"] < row["initial_colors"]
        for mode, exhaustive in (("heuristic", False), ("exhaustive", True)):
            for sampler in SAMPLERS:
                log(f"[coloring] part 2: {name} {mode} {sampler}")
                row["runs"][f"{sampler}/{mode}"] = run_search(
                    graph, sampler, args, exhaustive=exhaustive, node_limit=args.node_budget
                )
        row["verdict"] = verdict(row)
        rows.append(row)
    return rows


def _compare(q: dict, o: dict) -> tuple[str, list[str]]:
    """QAOA against one sampler: beat / matched / lost / mixed, and the metrics that differ."""
    qh, oh = q["qaoa_h"], o["h"]
    qe, oe = q["qaoa_e"], o["e"]
    metrics = [  # (name, qaoa value, other value, lower is better)
        ("heuristic colours", qh["colors"], oh["colors"], True),
        ("exhaustive colours", qe["colors"], oe["colors"], True),
        ("proven lower bound", qe["lower_bound"], oe["lower_bound"], False),
    ]
    if qe["optimal"] and oe["optimal"]:
        metrics.append(("nodes to the proof", qe["nodes_explored"], oe["nodes_explored"], True))
    better = [m for m in metrics if m[1] != m[2] and ((m[1] < m[2]) == m[3])]
    worse = [m for m in metrics if m[1] != m[2] and ((m[1] < m[2]) != m[3])]
    diff = [f"{m[0]} {m[1]} vs {m[2]}" for m in better + worse]
    if not better and not worse:
        return "matched", diff
    if better and not worse:
        return "beat", diff
    if worse and not better:
        return "lost to", diff
    return "was mixed against", diff


def verdict(row) -> dict:
    runs = row["runs"]
    q = {"qaoa_h": runs["qaoa/heuristic"], "qaoa_e": runs["qaoa/exhaustive"]}
    out = {}
    parts = []
    for other in ("greedy", "random"):
        word, diff = _compare(q, {"h": runs[f"{other}/heuristic"], "e": runs[f"{other}/exhaustive"]})
        out[other] = {"verdict": word, "differences": diff}
        parts.append(f"{word} {other}" + (f" ({'; '.join(diff)})" if diff else ""))
    qh, qe = runs["qaoa/heuristic"], runs["qaoa/exhaustive"]
    improved = sorted(
        {s for s in SAMPLERS for m in ("heuristic", "exhaustive") if runs[f"{s}/{m}"]["improved_by_search"]}
    )
    notes = []
    if improved:
        notes.append(f"search runs that improved on the pre-search colouring: {', '.join(improved)}")
    else:
        notes.append(f"no search run improved on the pre-search colouring ({row['initial_colors']})")
    short = [
        f"{s}'s heuristic tree ran out after {runs[f'{s}/heuristic']['nodes_explored']} node(s)"
        for s in ("greedy", "random")
        if runs[f"{s}/heuristic"]["stop_reason"] == "exhausted"
        and runs[f"{s}/heuristic"]["nodes_explored"] < NODE_BUDGET
    ]
    notes.extend(short)
    fb = int(qh["sampler_stats"].get("fallbacks", 0)) + int(qe["sampler_stats"].get("fallbacks", 0))
    circuits = int(qh["sampler_stats"].get("circuits", 0)) + int(qe["sampler_stats"].get("circuits", 0))
    if fb:
        notes.append(
            f"{fb} of QAOA's {fb + circuits} component samples (wider than {QAOA_WIDTH} qubits) came from the "  # noqa: E501
            "annealing fallback, so its result is partly annealing's"
        )
    sentence = (
        f"{row['graph']}: at {NODE_BUDGET} nodes QAOA {parts[0]} and {parts[1]}; " + "; ".join(notes) + "."
    )
    out["sentence"] = sentence
    return out


def print_part2(rows, args) -> None:
    print()
    print(
        f"Part 2: equal node budgets ({args.node_budget} expansions, time limit {args.time_limit:g} s, seed {args.seed}); "  # noqa: E501
        f"qaoa (Aer, p=1, <= {args.max_qubits} qubits) and random: {args.shots} shots, anneal {args.shots} reads, "  # noqa: E501
        f"greedy {args.greedy_sets} runs per call"
    )
    print(
        "heuristic = exhaustive=False (sampled sets only); exhaustive = exhaustive=True (all sets, sampler's order)"  # noqa: E501
    )
    print(
        "k = colours; lb = proven lower bound; opt = optimal proven; t* = seconds at which the best colouring was"  # noqa: E501
    )
    print("found (~0 = a pre-search greedy colouring); stop = stop reason")
    head = (
        f"{'graph':<13} {'n':>3} {'chi':>3} {'lb0':>3} {'k0':>3} {'sampler':<7} | "
        f"{'heur k':>6} {'s':>6} {'nodes':>5} {'t*':>6} {'stop':<10} | "
        f"{'exh k/lb':>8} {'opt':>3} {'s':>6} {'nodes':>5} {'t*':>6} {'stop':<10} | {'circ':>4} {'fb':>3}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        for i, sampler in enumerate(SAMPLERS):
            h, e = r["runs"][f"{sampler}/heuristic"], r["runs"][f"{sampler}/exhaustive"]
            circ = int(h["sampler_stats"].get("circuits", 0) + e["sampler_stats"].get("circuits", 0))
            fb = int(h["sampler_stats"].get("fallbacks", 0) + e["sampler_stats"].get("fallbacks", 0))
            lead = (
                f"{r['graph']:<13} {r['n']:>3} {r['chi_literature'] or '-':>3} {r['root_lower_bound']:>3} "
                f"{r['initial_colors']:>3}"
                if i == 0
                else " " * 29
            )
            print(
                f"{lead} {sampler:<7} | {h['colors']:>6} {h['seconds']:>6.2f} {h['nodes_explored']:>5} "
                f"{h['best_found_at_s']:>6.3f} {h['stop_reason']:<10} | {str(e['colors']) + '/' + str(e['lower_bound']):>8} "  # noqa: E501
                f"{'yes' if e['optimal'] else 'no':>3} {e['seconds']:>6.2f} {e['nodes_explored']:>5} "
                f"{e['best_found_at_s']:>6.3f} {e['stop_reason']:<10} | "
                + (f"{circ:>4} {fb:>3}" if sampler == "qaoa" else f"{'-':>4} {'-':>3}")
            )
    print("lb0 = root lower bound, k0 = first colouring (best of DSATUR, largest-first, smallest-last);")
    print("circ/fb = QAOA circuits (both modes) and components sampled by the annealing fallback")
    print()
    print("Verdicts (QAOA vs greedy and random at equal node budget; wall time is not part of the verdict):")
    for r in rows:
        print("  " + r["verdict"]["sentence"])


def environment() -> dict:
    import numpy as np
    import qiskit
    import qiskit_aer

    return {
        "python": platform.python_version(),
        "networkx": nx.__version__,
        "numpy": np.__version__,
        "qiskit": qiskit.__version__,
        "qiskit_aer": qiskit_aer.__version__,
        "bbqmis": getattr(bbqmis, "__version__", None),
        "cpu_count": os.cpu_count(),
    }


QAOA_WIDTH = None  # set in main, used by the verdict sentences
NODE_BUDGET = None


def main(argv=None) -> int:
    global QAOA_WIDTH, NODE_BUDGET
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_graphs = sorted(p.stem for p in GRAPH_DIR.glob("*.col") if p.stem != "le450_5a")
    parser.add_argument(
        "--graphs", nargs="+", default=None, help=f"DIMACS stems (default: {' '.join(default_graphs)})"
    )
    parser.add_argument("--all", action="store_true", help="part 1 also on le450_5a (450 vertices)")
    parser.add_argument(
        "--time-limit", type=float, default=120.0, help="seconds per color_graph run (default 120)"
    )
    parser.add_argument(
        "--node-budget", type=int, default=30, help="node_limit of the part-2 runs (default 30)"
    )
    parser.add_argument(
        "--shots", type=int, default=256, help="shots of qaoa and random, reads of anneal (256)"
    )
    parser.add_argument(
        "--greedy-sets", type=int, default=16, help="greedy sampler runs per call (default 16)"
    )
    parser.add_argument(
        "--max-qubits", type=int, default=20, help="widest QAOA circuit on Aer (default 20; 2^n statevector)"
    )
    parser.add_argument(
        "--cut",
        action="store_true",
        help="let QAOA try circuit cutting for wide components (its separator search can take ~20 s per call)",  # noqa: E501
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="node budget 10, five part-2 graphs")
    parser.add_argument("--json-only", action="store_true", help="print only the JSON line")
    args = parser.parse_args(argv)
    if args.quick and args.node_budget == parser.get_default("node_budget"):
        args.node_budget = 10
    QAOA_WIDTH, NODE_BUDGET = args.max_qubits, args.node_budget
    names = args.graphs or (default_graphs + (["le450_5a"] if args.all else []))
    log = (lambda *a: None) if args.json_only else (lambda *a: print(*a, file=sys.stderr, flush=True))

    load_start = list(os.getloadavg())
    start = time.perf_counter()
    rows1 = part1(names, args, log)
    rows2 = part2(branching_graphs(args.quick), args, log)
    total = time.perf_counter() - start
    load_end = list(os.getloadavg())

    if not args.json_only:
        print_part1(rows1)
        print_part2(rows2, args)
        print(f"\ntotal {total:.1f} s; load average (1/5/15 min) at start {load_start}, at end {load_end}")
    result = {
        "benchmark": "coloring",
        "quick": args.quick,
        "settings": {
            "time_limit_s": args.time_limit,
            "node_budget": args.node_budget,
            "shots": args.shots,
            "greedy_sets": args.greedy_sets,
            "qaoa_backend": "aer",
            "qaoa_max_qubits": args.max_qubits,
            "qaoa_cut": args.cut,
            "seed": args.seed,
            "executor": "serial",
        },
        "chi_literature": LITERATURE_CHI,
        "part1": rows1,
        "part2": rows2,
        "total_seconds": round(total, 3),
        "load_average_1_5_15min": {"start": load_start, "end": load_end},
        "environment": environment(),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
