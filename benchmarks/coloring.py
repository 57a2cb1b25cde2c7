"""Graph colouring: networkx greedy colourings vs BBQ-MIS (exact and QAOA), and QAOA's share.

Part 1, on five small bundled DIMACS graphs (myciel3, myciel4, queen5_5, huck, anna;
``le450_5a`` too with ``--all``; any of ``data/graphs/*.col`` with ``--graphs``): every
``networkx.greedy_color`` strategy (colours, time), then ``color_graph`` with
``sampler="exact"`` and with ``sampler="qaoa"`` (Aer), both exhaustive (colours, proven
lower bound, optimal, time, nodes; circuits and shots for QAOA), beside the chromatic
number from the literature (the table of ``data/graphs/README.md``).

Part 2, QAOA's contribution at equal node budgets, on graphs where the search must
branch (root lower bound below the first colouring): ``color_graph`` with each of the
samplers qaoa, anneal, greedy and random, in both modes: ``exhaustive=False`` (only
sampled sets are branched on, as in the reference implementation) and
``exhaustive=True`` (the sampler orders the children, the rest are enumerated), with the
same ``node_limit``. QAOA and random draw the same number of shots. One sentence per
graph says whether QAOA beat, matched or lost to greedy and random.

Part 3 (``--pricing``, on its own), QAOA's contribution to column generation at equal
budgets: the set-cover LP of :func:`bbqmis.coloring.lp.lp_bound.lp_bound` over independent
sets, on small DIMACS graphs. Column generation runs from ``lp_bound``'s own seed pool
(DSATUR classes plus a column through every vertex), driven by the exact pricer alone, so
the sequence of restricted-master duals is the same whatever is measured. At up to
``--rounds`` evenly spaced rounds of that sequence, every heuristic pricer (qaoa on Aer,
anneal, random, greedy) prices the same duals with the same seeds (``--seeds``) and the
same budget: qaoa and random draw ``--shots`` bitstrings on the same vertices (the
largest duals, up to ``--max-qubits``), anneal ``--shots`` reads on every positive-dual
vertex; no local search unless ``--local-search``. The exact pricer (HiGHS MILP) says
whether an improving column (dual weight above ``1 + IMPROVE_TOL``, i.e. negative
reduced cost) exists. Per pricer: trials where one existed, trials where the pricer
found one, hit rate, how much of the exact column's reduced cost it reached, seconds
per call. Then ``lp_bound`` runs with each heuristic alone (and with none), the exact
pricer certifying, under the same deadline (``--lp-time``): rounds, LP value, proven
bound, columns contributed.

Part 4 (``--vs-cpsat``, on its own), the comparison with OR-Tools CP-SAT in one run:
our exact, price and qaoa modes beside CP-SAT at the same time limit, on the bundled
DIMACS families; every other argument goes to ``benchmarks/coloring_vs_cpsat.py``, which
does the work (see its docstring), e.g. ``python benchmarks/coloring.py --vs-cpsat
--time-limit 30 --modes exact price cpsat``.

Usage: ``python benchmarks/coloring.py [--quick] [--json-only] [--graphs myciel3 ...]
[--all] [--time-limit 120] [--node-budget 30]`` for parts 1 and 2;
``python benchmarks/coloring.py --pricing [--quick] [--graphs ...] [--seeds 5]
[--shots 256] [--rounds 12] [--lp-time 20]`` for part 3. Prints the tables and, last, one
JSON line with every number. Progress goes to stderr.
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

# benchmarks/_graphs.py (stdlib only) is imported while this folder is still on the path.
import coloring_vs_cpsat
from _graphs import GRAPH_DIR, literature_chi

# benchmarks/cutting.py is named like the `cutting` package the QAOA sampler imports for wide
# components: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
from networkx.algorithms.coloring.greedy_coloring import strategy_random_sequential  # noqa: E402

import bbqmis  # noqa: E402
from bbqmis import read_graph  # noqa: E402
from bbqmis.coloring import color_graph, verify_coloring  # noqa: E402
from bbqmis.coloring.lp.lp_bound import lp_bound  # noqa: E402
from bbqmis.coloring.lp.master import solve_master  # noqa: E402
from bbqmis.coloring.lp.pricers import get_pricer  # noqa: E402
from bbqmis.coloring.lp.pricing import IMPROVE_TOL, Pricer  # noqa: E402
from bbqmis.coloring.samplers import get_sampler  # noqa: E402

#: Chromatic numbers from the literature, from the table of data/graphs/README.md (None when
#: open). Reference values only: nothing here is computed from them.
LITERATURE_CHI = literature_chi()

#: Part 1's graphs when --graphs is not given (--all adds le450_5a, 450 vertices): small
#: enough for the exhaustive exact and QAOA searches within the time limit.
PART1_GRAPHS = ("myciel3", "myciel4", "queen5_5", "huck", "anna")

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
#: Incumbent sources of the tree itself (bbqmis.coloring.tree.tree): a leaf, or a node's DSATUR
#: completion. Earlier entries come from the greedy colourings, TabuCol or the exact phase.
TREE_SOURCES = ("leaf", "dsatur-completion")


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


def run_search(
    graph, sampler_name: str, args, *, exhaustive: bool, node_limit, exact_share: float | None = None
) -> dict:
    sampler = make_sampler(sampler_name, args)
    start = time.perf_counter()
    options = {} if exact_share is None else {"exact_share": exact_share}
    result = color_graph(
        graph,
        sampler,
        time_limit=args.time_limit,
        node_limit=node_limit,
        exhaustive=exhaustive,
        seed=args.seed,
        **options,
    )
    wall = time.perf_counter() - start
    verify_coloring(
        nx.relabel_nodes(graph, {v: graph.nodes[v].get("label", v) for v in graph}), result.coloring
    )
    s = result.stats
    # stats["initial_colors"] is the best of color_graph's greedy colourings (DSATUR,
    # largest_first, smallest_last). stats["incumbents"] lists only the colourings the tree
    # held, starting with the one it began from; it is empty when every component was settled
    # before the tree (by its bounds, TabuCol, the SAT/exact phase or the LP bound), and
    # stats["searched"][i]["how"] says which.
    first_colors = s["initial_colors"]
    last = s["incumbents"][-1] if s["incumbents"] else None
    settled_by = [entry["how"] for entry in s["searched"]]
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
        "initial_colors": first_colors,
        "settled_by": settled_by,
        "tree_searched": any(how.startswith("search") for how in settled_by),
        "stop_reason": s["stop_reason"],
        "best_found_at_s": last[0] if last else None,
        "best_source": last[2] if last else None,
        "improved_by_search": any(
            inc[1] < first_colors and inc[2] in TREE_SOURCES for inc in s["incumbents"]
        ),
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
        + f" {'grd ms':>7} | {'exact k/lb':>10} {'opt':>3} {'s':>6} {'nodes':>5} {'via':<6}"
        + f" | {'qaoa k/lb':>9} {'opt':>3} {'s':>6} {'nodes':>5} {'via':<6}"
        + f" {'circ':>4} {'shots':>6} {'fb':>3}"
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
            f"{e['seconds']:>6.2f} {e['nodes_explored']:>5} {_via(e):<6} | "
            f"{str(q['colors']) + '/' + str(q['lower_bound']):>9} {'yes' if q['optimal'] else 'no':>3} "
            f"{q['seconds']:>6.2f} {q['nodes_explored']:>5} {_via(q):<6} {int(qs.get('circuits', 0)):>4} "
            f"{int(qs.get('shots', 0)):>6} {int(qs.get('fallbacks', 0)):>3}"
        )
    print(
        "grd ms = slowest greedy strategy; circ/shots = Aer circuits and shots; fb = components too wide for"
    )
    print(
        "the circuit, sampled by annealing instead; via = what settled the graph: tree = the search (and its"
    )
    print("sampler), else the phase before it (bounds, sat, exact, lp, easy:...)")


def _via(run: dict) -> str:
    """``tree`` when a component was searched, else what settled the graph before the tree."""
    if run["tree_searched"]:
        return "tree"
    return "+".join(sorted(set(run["settled_by"]))) or "easy"


# -- part 2 ---------------------------------------------------------------------------------
def part2(graphs: dict, args, log) -> list[dict]:
    rows = []
    for name, graph in graphs.items():
        bound_run = color_graph(graph, "exact", node_limit=1, exact_share=0.0, seed=args.seed)
        row = {
            "graph": name,
            "n": graph.number_of_nodes(),
            "m": graph.number_of_edges(),
            "root_lower_bound": bound_run.stats["root_lower_bound"],
            "initial_colors": bound_run.stats["initial_colors"],
            "chi_literature": LITERATURE_CHI.get(name),
            "runs": {},
        }
        if name.startswith("mycielski"):
            row["chi_literature"] = int(name.removeprefix("mycielski"))  # Mycielski graph k has chi k
        row["must_branch"] = row["root_lower_bound"] < row["initial_colors"]
        for mode, exhaustive in (("heuristic", False), ("exhaustive", True)):
            for sampler in SAMPLERS:
                log(f"[coloring] part 2: {name} {mode} {sampler}")
                # exact_share=0: no SAT/exact phase before the tree, which would settle every
                # graph here and leave the samplers nothing to do.
                row["runs"][f"{sampler}/{mode}"] = run_search(
                    graph, sampler, args, exhaustive=exhaustive, node_limit=args.node_budget, exact_share=0.0
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
    unsearched = [key for key, run in runs.items() if not run["tree_searched"]]
    if unsearched:
        hows = sorted({how for key in unsearched for how in runs[key]["settled_by"]})
        notes.append(
            f"{len(unsearched)} of {len(runs)} runs were settled before the tree ({', '.join(hows)}), "
            "without the sampler"
        )
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
    print("found (~0 = a pre-search greedy colouring; - = settled before the tree); stop = stop reason")
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
                f"{_seconds(h['best_found_at_s']):>6} {h['stop_reason']:<10} | {str(e['colors']) + '/' + str(e['lower_bound']):>8} "  # noqa: E501
                f"{'yes' if e['optimal'] else 'no':>3} {e['seconds']:>6.2f} {e['nodes_explored']:>5} "
                f"{_seconds(e['best_found_at_s']):>6} {e['stop_reason']:<10} | "
                + (f"{circ:>4} {fb:>3}" if sampler == "qaoa" else f"{'-':>4} {'-':>3}")
            )
    print("lb0 = root lower bound, k0 = first colouring (best of DSATUR, largest-first, smallest-last);")
    print("circ/fb = QAOA circuits (both modes) and components sampled by the annealing fallback")
    print()
    print("Verdicts (QAOA vs greedy and random at equal node budget; wall time is not part of the verdict):")
    for r in rows:
        print("  " + r["verdict"]["sentence"])


# -- part 3: pricing at equal budgets --------------------------------------------------------
#: Part 3's graphs: at most 47 vertices, and each needs 11 to 87 rounds of exact column
#: generation (queen5_5, for one, needs none: DSATUR's classes are already optimal).
PRICING_GRAPHS = ("myciel3", "myciel4", "1-FullIns_3", "queen6_6", "2-Insertions_3", "myciel5")
PRICING_QUICK_GRAPHS = ("myciel4", "2-Insertions_3")
HEURISTIC_PRICERS = ("qaoa", "anneal", "random", "greedy")
PRICERS = (*HEURISTIC_PRICERS, "exact")
#: A heuristic set at least this close to the exact optimum counts as optimal.
OPTIMUM_TOL = 1e-9


def make_pricers(args) -> dict[str, Pricer]:
    """The heuristic pricers at one budget: ``args.shots`` samples, the same vertices for qaoa and random."""
    qaoa = get_pricer(
        "qaoa", backend="aer", shots=args.shots, max_qubits=args.max_qubits, local_search=args.local_search
    )
    return {
        "qaoa": qaoa,
        "anneal": get_pricer("anneal", reads=args.shots, local_search=args.local_search),
        "random": get_pricer(
            "random", shots=args.shots, max_vertices=qaoa.solver.width(), local_search=args.local_search
        ),
        "greedy": get_pricer("greedy", local_search=args.local_search),
    }


def exact_trajectory(graph, exact: Pricer, max_rounds: int = 1000):
    """Column generation driven by the exact pricer alone: the pool's graph and every round.

    Starts from the pool ``lp_bound`` seeds itself (a run with no pricer returns it after
    one master LP); each round adds the exact pricer's column while it improves.
    """
    pool = lp_bound(graph, pricers=(), exact=False, max_rounds=1).columns
    rounds = []
    while len(rounds) < max_rounds:
        master = solve_master(pool)
        start = time.perf_counter()
        ref = exact.price(pool.graph, master.duals)
        seconds = time.perf_counter() - start
        rounds.append({"value": master.value, "duals": master.duals, "exact": ref, "seconds": seconds})
        improving = [m for m, w in zip(ref.masks, ref.weights, strict=True) if w > 1 + IMPROVE_TOL]
        if not improving or not pool.add_masks(improving, master.duals):
            break
    return pool.graph, rounds


def price_rounds(indexed, rounds, chosen, pricers, seeds, log, name) -> list[dict]:
    """Every heuristic pricer on the duals of the chosen rounds, once per seed."""
    width = pricers["qaoa"].solver.width()
    records = []
    for i in chosen:
        r = rounds[i]
        y, ref = r["duals"], r["exact"]
        support = int((y > 1e-10).sum())  # the pricers drop duals <= 1e-10
        record = {
            "round": i + 1,
            "master_value": round(r["value"], 9),
            "support": support,
            "qaoa_vertices": min(support, width),
            "exact": {"best": ref.best, "optimal": ref.optimal, "seconds": round(r["seconds"], 5)},
            "pricers": {},
        }
        log(f"[coloring] part 3: {name} round {i + 1}/{len(rounds)} (support {support})")
        for pname, pricer in pricers.items():
            trials = []
            for seed in seeds:
                start = time.perf_counter()
                res = pricer.price(indexed, y, seed=seed)
                seconds = time.perf_counter() - start
                improving = int((res.weights > 1 + IMPROVE_TOL).sum())
                trials.append(
                    {"seed": seed, "best": res.best, "improving": improving, "seconds": round(seconds, 5)}
                )
            record["pricers"][pname] = trials
        records.append(record)
    return records


def summarize(records: list[dict]) -> dict:
    """Per pricer: trials where an improving column existed, found, hit rate, quality, seconds.

    A round has an improving column when the exact pricer or any heuristic trial found
    one (a heuristic finding one the exact pricer missed would lower exact's hit rate
    below 1). Heuristic trials are (round, seed) pairs; the exact pricer runs once a round.
    """
    out: dict[str, dict] = {}
    improving_rounds = {
        i
        for i, r in enumerate(records)
        if r["exact"]["best"] > 1 + IMPROVE_TOL
        or any(t["improving"] for trials in r["pricers"].values() for t in trials)
    }
    for pname in PRICERS:
        existed = found = at_optimum = columns = 0
        rc_ratios, weight_ratios, seconds, beat_exact = [], [], [], 0
        for i, r in enumerate(records):
            w_star = r["exact"]["best"]
            if pname == "exact":
                trials = [
                    {
                        "best": w_star,
                        "improving": int(w_star > 1 + IMPROVE_TOL),
                        "seconds": r["exact"]["seconds"],
                    }
                ]
            else:
                trials = r["pricers"][pname]
            seconds += [t["seconds"] for t in trials]
            beat_exact += sum(t["best"] > w_star + OPTIMUM_TOL for t in trials)
            if i not in improving_rounds:
                continue
            for t in trials:
                existed += 1
                found += t["improving"] > 0
                columns += t["improving"]
                at_optimum += t["best"] >= w_star - OPTIMUM_TOL
                weight_ratios.append(t["best"] / w_star if w_star > 0 else 1.0)
                if w_star > 1 + IMPROVE_TOL:
                    rc_ratios.append(min(1.0, max(0.0, (t["best"] - 1) / (w_star - 1))))
        out[pname] = {
            "calls": len(seconds),
            "improving_existed": existed,
            "found": found,
            "hit_rate": round(found / existed, 4) if existed else None,
            "at_exact_optimum": round(at_optimum / existed, 4) if existed else None,
            "rc_ratio": round(float(np.mean(rc_ratios)), 4) if rc_ratios else None,
            "weight_ratio": round(float(np.mean(weight_ratios)), 4) if weight_ratios else None,
            "improving_columns_per_call": round(columns / existed, 3) if existed else None,
            "beat_exact": int(beat_exact),
            "seconds_per_call": round(float(np.mean(seconds)), 5) if seconds else None,
        }
    return out


def lp_run(graph, heuristics: list[Pricer], pname: str, seed: int, lp_time: float) -> dict:
    """One ``lp_bound`` call, exact certifying, with a deadline ``lp_time`` seconds away.

    In every round the heuristic prices first and the exact pricer only runs when it added
    nothing, so each exact column is a round the heuristic missed (``misses``); in a
    certified run the remaining rounds but the last, certifying one are its ``hits``.
    """
    start = time.perf_counter()
    result = lp_bound(graph, pricers=heuristics, deadline=start + lp_time, seed=seed)
    wall = time.perf_counter() - start
    heur = result.stats.get(pname, {})
    exact = result.stats["exact"]
    misses = int(exact["improving_columns"])
    return {
        "seed": seed,
        "status": result.status,
        "certified": result.certified,
        "value": round(result.value, 6),
        "bound": result.bound,
        "farley": round(result.farley, 6),
        "rounds": result.rounds,
        "heuristic_calls": int(heur.get("calls", 0)),
        "heuristic_columns": int(heur.get("improving_columns", 0)),
        "heuristic_seconds": round(float(heur.get("seconds", 0.0)), 3),
        "hits": result.rounds - 1 - misses if result.certified and heuristics else None,
        "misses": misses if heuristics else None,
        "exact_calls": int(exact["calls"]),
        "exact_columns": int(exact["improving_columns"]),
        "exact_seconds": round(float(exact["seconds"]), 3),
        "seconds": round(wall, 3),
    }


def lp_runs(graph, pricers: dict[str, Pricer], seeds, args, log, name) -> dict[str, list[dict]]:
    """``lp_bound`` with each heuristic alone (every seed) and with none, at the same deadline."""
    out = {}
    for pname in (*HEURISTIC_PRICERS, "none"):
        log(f"[coloring] part 3: {name} lp_bound with {pname} (deadline {args.lp_time:g} s)")
        heuristics = [] if pname == "none" else [pricers[pname]]
        run_seeds = seeds[:1] if pname == "none" else seeds  # exact pricing alone is deterministic
        out[pname] = [lp_run(graph, heuristics, pname, seed, args.lp_time) for seed in run_seeds]
    return out


def summarize_lp(rows: list[dict]) -> dict:
    """Per pricer over every graph and seed: certified runs, rounds, hits and misses, seconds."""
    out = {}
    for pname in (*HEURISTIC_PRICERS, "none"):
        runs = [run for row in rows for run in row["lp_bound"].get(pname, [])]
        if not runs:
            continue
        done = [run for run in runs if run["certified"]]
        hits = sum(run["hits"] or 0 for run in done)
        misses = sum(run["misses"] or 0 for run in done)
        out[pname] = {
            "runs": len(runs),
            "certified": len(done),
            "rounds": sum(run["rounds"] for run in runs),
            "hits": hits if pname != "none" else None,
            "misses": misses if pname != "none" else None,
            "hit_rate": round(hits / (hits + misses), 4) if pname != "none" and hits + misses else None,
            "mean_seconds": round(float(np.mean([run["seconds"] for run in runs])), 3),
        }
    return out


def part3(names, args, log) -> list[dict]:
    pricers = make_pricers(args)
    exact = get_pricer("exact")
    seeds = list(range(args.seed, args.seed + args.seeds))
    rows = []
    for name in names:
        graph = read_graph(GRAPH_DIR / f"{name}.col")
        log(f"[coloring] part 3: {name} (n={graph.number_of_nodes()}): exact column generation")
        start = time.perf_counter()
        indexed, rounds = exact_trajectory(graph, exact)
        trajectory_seconds = time.perf_counter() - start
        last = rounds[-1]["exact"]
        certified = last.optimal and last.best <= 1 + IMPROVE_TOL
        chosen = sorted(
            {int(i) for i in np.linspace(0, len(rounds) - 1, min(args.rounds, len(rounds))).round()}
        )
        records = price_rounds(indexed, rounds, chosen, pricers, seeds, log, name)
        row = {
            "graph": name,
            "n": graph.number_of_nodes(),
            "m": graph.number_of_edges(),
            "chi_literature": LITERATURE_CHI.get(name),
            "trajectory_rounds": len(rounds),
            "trajectory_seconds": round(trajectory_seconds, 3),
            "chi_f": round(rounds[-1]["value"], 6),
            "chi_f_certified": certified,
            "evaluated_rounds": [i + 1 for i in chosen],
            "max_support": max(r["support"] for r in records),
            "qaoa_width": pricers["qaoa"].solver.width(),
            "pricers": summarize(records),
            "rounds": records,
            "lp_bound": lp_runs(graph, pricers, seeds, args, log, name) if args.lp_time > 0 else {},
        }
        rows.append(row)
    return rows


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def print_part3(rows, summary, lp_summary, args) -> None:
    seeds = f"seeds {args.seed}..{args.seed + args.seeds - 1}"
    print(
        f"Part 3: pricing at equal budgets ({args.shots} shots / reads per call, {seeds}, "
        f"QAOA on Aer with <= {args.max_qubits} qubits, local search {'on' if args.local_search else 'off'})"
    )
    print(
        "Duals of an exact-driven column generation, up to "
        f"{args.rounds} evenly spaced rounds per graph; trial = (round, seed)"
    )
    head = f"{'pricer':<7} {'calls':>5} {'existed':>7} {'found':>5} {'hit':>5} {'at w*':>5} {'rc/rc*':>6} {'w/w*':>5} {'cols':>5} {'s/call':>7}"  # noqa: E501
    print(head)
    print("-" * len(head))
    for pname in PRICERS:
        s = summary[pname]
        print(
            f"{pname:<7} {s['calls']:>5} {s['improving_existed']:>7} {s['found']:>5} "
            f"{_pct(s['hit_rate']):>5} "
            f"{_pct(s['at_exact_optimum']):>5} {s['rc_ratio'] if s['rc_ratio'] is not None else '-':>6} "
            f"{s['weight_ratio'] if s['weight_ratio'] is not None else '-':>5} "
            f"{s['improving_columns_per_call'] if s['improving_columns_per_call'] is not None else '-':>5} "
            f"{s['seconds_per_call']:>7.3f}"
        )
    print("existed = trials where an improving column existed (exact pricer, or any heuristic);")
    print("found = the pricer returned one; at w* = its best set is as heavy as the exact optimum;")
    print("rc/rc* = its best reduced cost over exact's, clipped to [0, 1]; w/w* = best weight over")
    print("exact's; cols = improving columns per trial (at most 32); s/call = wall seconds per call")
    print()
    head = (
        f"{'graph':<15} {'n':>3} {'chi':>3} {'chi_f':>7} {'rnds':>4} {'eval':>4} {'supp':>4} | "
        + " ".join(f"{p:>6}" for p in PRICERS)
        + f" | {'qaoa s':>6}"
    )
    print("Hit rate per graph (rnds = exact column-generation rounds, eval = rounds priced, supp = most")
    print("positive duals in a priced round; QAOA and random see at most the width largest):")
    print(head)
    print("-" * len(head))
    for r in rows:
        p = r["pricers"]
        print(
            f"{r['graph']:<15} {r['n']:>3} {r['chi_literature'] or '-':>3} {r['chi_f']:>7.4f} "
            f"{r['trajectory_rounds']:>4} {len(r['evaluated_rounds']):>4} {r['max_support']:>4} | "
            + " ".join(f"{_pct(p[q]['hit_rate']):>6}" for q in PRICERS)
            + f" | {p['qaoa']['seconds_per_call']:>6.3f}"
        )
    if lp_summary:
        print()
        print(
            f"lp_bound with one heuristic pricer (none = exact pricing only), exact certifying, deadline "
            f"{args.lp_time:g} s per run, {seeds} (none: one run, it is deterministic); means over seeds:"
        )
        head = (
            f"{'graph':<15} {'pricer':<7} {'cert':>4} {'rnds':>5} {'value':>7} {'bound':>5} {'chi_f':>7} "
            f"{'h cols':>6} {'hits':>5} {'miss':>4} {'h s':>6} {'x s':>6} {'s':>6}"
        )
        print(head)
        print("-" * len(head))
        for r in rows:
            for i, (pname, runs) in enumerate(r["lp_bound"].items()):
                lead = f"{r['graph']:<15}" if i == 0 else " " * 15
                done = [run for run in runs if run["certified"]]
                hits = "-" if pname == "none" else sum(run["hits"] or 0 for run in done)
                miss = "-" if pname == "none" else sum(run["misses"] or 0 for run in done)
                print(
                    f"{lead} {pname:<7} {len(done)}/{len(runs):<2} {_mean(runs, 'rounds'):>5.1f} "
                    f"{_mean(runs, 'value'):>7.4f} {min(run['bound'] for run in runs):>5} {r['chi_f']:>7.4f} "
                    f"{_mean(runs, 'heuristic_columns'):>6.1f} {hits:>5} {miss:>4} "
                    f"{_mean(runs, 'heuristic_seconds'):>6.2f} {_mean(runs, 'exact_seconds'):>6.2f} "
                    f"{_mean(runs, 'seconds'):>6.2f}"
                )
        print("cert = certified runs; value = last master LP (mean); bound = smallest proven bound;")
        print("h cols = improving columns the heuristic added; hits / miss = rounds (summed over seeds,")
        print("certified runs) in which it added a column / found none while the exact pricer found one;")
        print("h s, x s, s = seconds in the heuristic, in the exact pricer (quick calls included), in all")
    print()
    hits = ", ".join(f"{p} {_pct(summary[p]['hit_rate'])}" for p in HEURISTIC_PRICERS)
    exact = summary["exact"]
    print(
        f"Verdict: at the same duals, of {summary['qaoa']['improving_existed']} (round, seed) trials with an "
        f"improving column the pricers found one in: {hits} (exact {_pct(exact['hit_rate'])} of "
        f"{exact['improving_existed']} rounds); their best column was as heavy as the exact one in: "
        + ", ".join(f"{p} {_pct(summary[p]['at_exact_optimum'])}" for p in HEURISTIC_PRICERS)
        + "."
    )
    if lp_summary:
        lp = [p for p in HEURISTIC_PRICERS if p in lp_summary]
        print(
            "In their own lp_bound runs, the rounds in which the heuristic added the column (not the exact "
            "pricer): "
            + ", ".join(
                f"{p} {_pct(lp_summary[p]['hit_rate'])} of {lp_summary[p]['hits'] + lp_summary[p]['misses']}"
                for p in lp
            )
            + "; mean seconds per run: "
            + ", ".join(f"{p} {lp_summary[p]['mean_seconds']:.2f}" for p in (*lp, "none"))
            + "."
        )


def _mean(runs: list[dict], key: str) -> float:
    return float(np.mean([run[key] for run in runs]))


def _seconds(x) -> str:
    return "-" if x is None else f"{x:.3f}"


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
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--vs-cpsat" in argv:  # part 4: the remaining arguments are coloring_vs_cpsat.py's
        argv.remove("--vs-cpsat")
        coloring_vs_cpsat.main(argv)
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--graphs",
        nargs="+",
        default=None,
        metavar="NAME",
        help=f"DIMACS stems in data/graphs (default: part 1 {' '.join(PART1_GRAPHS)}; "
        f"--pricing {' '.join(PRICING_GRAPHS)}, with --quick {' '.join(PRICING_QUICK_GRAPHS)})",
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
    parser.add_argument("--seed", type=int, default=0, help="seed of parts 1-2; first pricing seed")
    parser.add_argument(
        "--pricing", action="store_true", help="run part 3 (pricing at equal budgets) instead of parts 1-2"
    )
    parser.add_argument("--seeds", type=int, default=None, help="pricing seeds per round (5; 2 with --quick)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="column-generation rounds priced per graph (12; 6 with --quick)",
    )
    parser.add_argument(
        "--lp-time",
        type=float,
        default=20.0,
        help="deadline of each lp_bound run in seconds, 0 to skip them (default 20)",
    )
    parser.add_argument(
        "--local-search", action="store_true", help="pricing: improve every sampled set by 1-swaps"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="node budget 10, five part-2 graphs; with --pricing: two graphs, 2 seeds, 6 rounds",
    )
    parser.add_argument("--json-only", action="store_true", help="print only the JSON line")
    parser.add_argument(
        "--vs-cpsat",
        action="store_true",
        help="run part 4 (CP-SAT beside our exact, price and qaoa modes) instead: the other arguments "
        "are those of benchmarks/coloring_vs_cpsat.py (see its --help)",
    )
    args = parser.parse_args(argv)
    if args.quick and args.node_budget == parser.get_default("node_budget"):
        args.node_budget = 10
    for option, full, quick in (("seeds", 5, 2), ("rounds", 12, 6)):
        if getattr(args, option) is None:
            setattr(args, option, quick if args.quick else full)
    for option in ("shots", "seeds", "rounds", "max_qubits"):
        if getattr(args, option) < 1:
            parser.error(f"--{option.replace('_', '-')} must be at least 1, got {getattr(args, option)}")
    if args.lp_time < 0:
        parser.error(f"--lp-time must be >= 0, got {args.lp_time}")
    present = {p.stem for p in GRAPH_DIR.glob("*.col")}
    unknown = [name for name in args.graphs or () if name not in present]
    if unknown:
        parser.error(f"unknown graphs {unknown}; data/graphs holds {sorted(present)}")
    QAOA_WIDTH, NODE_BUDGET = args.max_qubits, args.node_budget
    log = (lambda *a: None) if args.json_only else (lambda *a: print(*a, file=sys.stderr, flush=True))
    if args.pricing:
        return main_pricing(args, log)
    names = args.graphs or [*PART1_GRAPHS, *(["le450_5a"] if args.all else [])]

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
        "chi_literature": {r["graph"]: r["chi_literature"] for r in rows1 + rows2},
        "part1": rows1,
        "part2": rows2,
        "total_seconds": round(total, 3),
        "load_average_1_5_15min": {"start": load_start, "end": load_end},
        "environment": environment(),
    }
    print(json.dumps(result))
    return 0


def main_pricing(args, log) -> int:
    names = args.graphs or list(PRICING_QUICK_GRAPHS if args.quick else PRICING_GRAPHS)
    load_start = list(os.getloadavg())
    start = time.perf_counter()
    rows = part3(names, args, log)
    summary = summarize([record for row in rows for record in row["rounds"]])
    lp_summary = summarize_lp(rows)
    total = time.perf_counter() - start
    load_end = list(os.getloadavg())
    if not args.json_only:
        print_part3(rows, summary, lp_summary, args)
        print(f"\ntotal {total:.1f} s; load average (1/5/15 min) at start {load_start}, at end {load_end}")
    result = {
        "benchmark": "coloring/pricing",
        "quick": args.quick,
        "settings": {
            "graphs": names,
            "shots": args.shots,
            "seeds": list(range(args.seed, args.seed + args.seeds)),
            "rounds": args.rounds,
            "lp_time_s": args.lp_time,
            "local_search": args.local_search,
            "qaoa_backend": "aer",
            "qaoa_max_qubits": args.max_qubits,
            "improve_tol": IMPROVE_TOL,
        },
        "summary": summary,
        "lp_summary": lp_summary,
        "graphs": rows,
        "total_seconds": round(total, 3),
        "load_average_1_5_15min": {"start": load_start, "end": load_end},
        "environment": environment(),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
