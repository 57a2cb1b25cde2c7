"""Certificates of the bundled DIMACS graphs: every proved optimum, checked by ``python -m bbqmis.check``.

Method
------
For each graph, one ``python -m bbqmis GRAPH --sampler exact --quiet --time-limit T
--json OUT --certificate CERT`` (a fresh process, wall time measured around it, the
certificate's witness search and SAT refutation included), then one ``python -m
bbqmis.check GRAPH CERT`` (its wall time measured the same way). A row gives the
colours, whether the run claims an optimum, the witness kind (``clique``,
``mycielski``, ``refutation``, or ``-`` when the bound is not certified), the
certificate's size, both times, and the checker's verdict. A row is **certified** when
the run claims ``optimal: true`` and the checker prints ``ok: chromatic number K
proved``; a row claiming an optimum that is not certified, or a checker that exits
non-zero, is flagged.

Usage::

    python benchmarks/certificates.py [--graphs NAME ...] [--time-limit 120]

Prints the table and last one JSON line: ``rows`` and the counts ``optimal``,
``certified``, ``flagged`` and the largest ``check_seconds``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _graphs import GRAPH_DIR, select_graphs

#: Seconds the checker may take on one certificate before the row is flagged.
CHECK_TIMEOUT = 1800


def timed(command: list[str], timeout: float) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run ``command``; its completed process and wall seconds."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return done, time.perf_counter() - start


def measure(graph: Path, time_limit: float, folder: Path) -> dict[str, Any]:
    """One graph's row: the run, its certificate, the check."""
    out, cert = folder / f"{graph.stem}.json", folder / f"{graph.stem}.cert"
    run = [sys.executable, "-m", "bbqmis", str(graph), "--sampler", "exact", "--quiet"]
    run += ["--time-limit", str(time_limit), "--json", str(out), "--certificate", str(cert)]
    done, run_seconds = timed(run, time_limit * 3 + 120)
    row: dict[str, Any] = {
        "graph": graph.stem,
        "run_seconds": round(run_seconds, 2),
        "status": done.returncode,
    }
    if done.returncode != 0 or not cert.exists():
        return {**row, "flag": f"run failed: {done.stderr.strip()[-200:]}"}
    document = json.loads(cert.read_text())
    witness = document.get("lower_bound_certificate") or {}
    checked, check_seconds = timed(
        [sys.executable, "-m", "bbqmis.check", str(graph), str(cert)], CHECK_TIMEOUT
    )
    verdict = (checked.stdout or checked.stderr).strip()
    certified = document["optimal"] and verdict == f"ok: chromatic number {document['num_colors']} proved"
    row |= {
        "colors": document["num_colors"],
        "lower_bound": document["lower_bound"],
        "optimal": document["optimal"],
        "witness": witness.get("kind", "-"),
        "kb": round(cert.stat().st_size / 1000, 1),
        "check_seconds": round(check_seconds, 2),
        "verdict": verdict,
        "certified": bool(certified),
    }
    if checked.returncode != 0 or (document["optimal"] and not certified):
        row["flag"] = (
            "optimum not certified" if checked.returncode == 0 else f"checker exit {checked.returncode}"
        )
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a fixed-width table."""
    columns = (
        ("colours", 7),
        ("bound", 5),
        ("optimal", 7),
        ("witness", 10),
        ("kB", 8),
        ("run s", 7),
        ("check s", 8),
    )
    lines = [f"{'graph':16} " + " ".join(f"{name:>{width}}" for name, width in columns) + "  verdict"]
    for r in rows:
        lines.append(
            f"{r['graph']:16} {r.get('colors', '-')!s:>7} {r.get('lower_bound', '-')!s:>5} "
            f"{r.get('optimal', '-')!s:>7} {r.get('witness', '-'):>10} {r.get('kb', '-')!s:>8} "
            f"{r['run_seconds']:>7.2f} {r.get('check_seconds', '-')!s:>8}  "
            f"{r.get('flag') or r.get('verdict')}"
        )
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The counts of the JSON line."""
    return {
        "graphs": len(rows),
        "optimal": sum(1 for r in rows if r.get("optimal")),
        "certified": sum(1 for r in rows if r.get("certified")),
        "flagged": sum(1 for r in rows if r.get("flag")),
        "by_witness": {
            kind: sum(1 for r in rows if r.get("certified") and r.get("witness") == kind)
            for kind in ("clique", "mycielski", "refutation")
        },
        "max_check_seconds": max((r.get("check_seconds", 0.0) for r in rows), default=0.0),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when no row is flagged."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--graphs", nargs="+", default=None, metavar="NAME", help="bundled names (default: all)"
    )
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per run (default 120)")
    args = parser.parse_args(argv)
    if args.time_limit <= 0:
        parser.error(f"--time-limit must be positive, got {args.time_limit}")
    try:
        names = select_graphs(args.graphs, ("*",))
    except ValueError as error:
        parser.error(str(error))
    rows = []
    with tempfile.TemporaryDirectory(prefix="bbqmis-certificates-") as folder:
        for name in names:
            graph = Path(name) if Path(name).is_absolute() else GRAPH_DIR / f"{name}.col"
            rows.append(measure(graph, args.time_limit, Path(folder)))
            print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    print(table(rows))
    result = summary(rows)
    print(
        f"\n{result['certified']} of {result['optimal']} optima certified and checked "
        f"({result['by_witness']}); {result['flagged']} flagged; "
        f"slowest check {result['max_check_seconds']} s"
    )
    print(json.dumps({"benchmark": "certificates", "time_limit": args.time_limit, **result, "rows": rows}))
    return 1 if result["flagged"] else 0


if __name__ == "__main__":
    sys.exit(main())
