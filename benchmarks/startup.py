"""Start-up: the wall time of short ``python -m bbqmis`` commands, beside CP-SAT's process on the same graph.

Method
------
Each command runs ``--repeats`` times (default 5) in a fresh interpreter
(``sys.executable``: the interpreter itself, not a pyenv shim, which adds about 0.1 s of
its own), timed with :func:`time.perf_counter` around :func:`subprocess.run`; the table
gives the minimum and the median wall seconds, and checks every run's output:

* ``python``: ``python -c pass``, the interpreter alone;
* ``version``: ``python -m bbqmis --version`` prints ``python -m bbqmis <version>``
  (target 0.3 s);
* ``help``: ``python -m bbqmis --help`` prints the usage with ``--certificate``
  (target 0.3 s);
* ``exact``: ``python -m bbqmis GRAPH --sampler exact --quiet --json OUT --certificate
  CERT``, which must prove the chromatic number of the literature
  (``data/graphs/README.md``) (target 0.5 s on a graph the bounds settle: myciel5, settled
  at the root by the Mycielskian bound, is the default);
* ``check``: ``python -m bbqmis.check GRAPH CERT`` on the certificate of the last ``exact``
  run, which must print ``ok: chromatic number K proved``;
* ``cpsat``: CP-SAT's process on the same graph, the child of
  ``benchmarks/coloring_vs_cpsat.py`` (``--child cpsat``, started by its ``spawn``): it
  reads the graph, builds the assignment model and solves it; it must prove the same
  chromatic number.

Then one ``exact`` run under ``python -X importtime`` says where its start-up goes: the
import seconds by top-level package (each module's own time, summed).

Usage::

    python benchmarks/startup.py [--graph myciel5] [--repeats 5]

Prints the table, the import breakdown, and last one JSON line with every row
(``command``, ``argv``, ``min``, ``median``, ``target``, ``output``) and the breakdown.
Timings are measured, not asserted: the smoke test checks the outputs.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _graphs import GRAPH_DIR, ROOT, literature_chi  # stdlib only
from coloring_vs_cpsat import spawn  # takes this folder off sys.path (benchmarks/cutting.py)

#: Wall-second targets of issue 38 (measured, not asserted).
TARGETS = {"version": 0.3, "help": 0.3, "exact": 0.5}
#: CP-SAT's time limit: far above what a settled graph needs.
CPSAT_LIMIT = 30.0


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of ``python ARGV`` from ``ROOT``, and the finished process."""
    start = time.perf_counter()
    process = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - start, process


def commands(graph: Path, out: Path, cert: Path) -> dict[str, list[str]]:
    """The commands timed, by name: argv after the interpreter."""
    exact = ["-m", "bbqmis", str(graph), "--sampler", "exact", "--quiet", "--json", str(out)]
    return {
        "python": ["-c", "pass"],
        "version": ["-m", "bbqmis", "--version"],
        "help": ["-m", "bbqmis", "--help"],
        "exact": [*exact, "--certificate", str(cert)],
        "check": ["-m", "bbqmis.check", str(graph), str(cert)],
    }


def output_of(name: str, process: subprocess.CompletedProcess, out: Path) -> str:
    """What a run produced, in one line: the version, the usage's first word, colours and proof, the check."""
    if process.returncode != 0:
        raise SystemExit(f"startup.py: {name} exited {process.returncode}: {process.stderr.strip()[-500:]}")
    lines = process.stdout.strip().splitlines()
    if name == "help":
        return "usage " + ("with" if "--certificate" in process.stdout else "without") + " --certificate"
    if name == "exact":
        result = json.loads(out.read_text())
        return f"{result['num_colors']} colours, optimal {result['optimal']}"
    return lines[0] if lines else ""


def measure(name: str, argv: list[str], repeats: int, out: Path) -> dict[str, Any]:
    """Run one command ``repeats`` times: its row."""
    seconds, outputs = [], set()
    for _ in range(repeats):
        wall, process = timed(argv)
        seconds.append(wall)
        outputs.add(output_of(name, process, out))
    return {
        "command": name,
        "argv": ["python", *argv],
        "min": min(seconds),
        "median": statistics.median(seconds),
        "target": TARGETS.get(name),
        "output": " | ".join(sorted(outputs)),
    }


def measure_cpsat(graph: str, repeats: int) -> dict[str, Any]:
    """CP-SAT's process on ``graph`` (coloring_vs_cpsat.py's child), ``repeats`` times: its row."""
    walls, outputs = [], set()
    for _ in range(repeats):
        result = spawn("cpsat", graph, CPSAT_LIMIT)
        if "error" in result:
            raise SystemExit(f"startup.py: cpsat: {result['error']}")
        walls.append(result["wall"])
        outputs.add(f"{result['colors']} colours, optimal {result['proven']}")
    argv = ["python", "benchmarks/coloring_vs_cpsat.py", "--child", "cpsat", graph]
    return {
        "command": "cpsat",
        "argv": [*argv, "--time-limit", str(CPSAT_LIMIT)],
        "min": min(walls),
        "median": statistics.median(walls),
        "target": None,
        "output": " | ".join(sorted(outputs)),
    }


def import_seconds(argv: list[str]) -> dict[str, float]:
    """Import seconds of ``python -X importtime ARGV`` by package (own times summed, 1 ms or more)."""
    _, process = timed(["-X", "importtime", *argv])
    totals: Counter[str] = Counter()
    for line in process.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if match:
            totals[match.group(2).split(".")[0]] += int(match.group(1)) / 1e6
    return {name: round(value, 4) for name, value in totals.most_common() if value >= 0.001}


def print_table(rows: list[dict[str, Any]], graph: str, chi: int | None) -> None:
    """The table: one row per command."""
    print(f"start-up on {graph} (chi {chi}), wall seconds")
    print(f"{'command':<9} {'min':>7} {'median':>7} {'target':>7}  output")
    for row in rows:
        target = "" if row["target"] is None else f"{row['target']:.1f}"
        print(f"{row['command']:<9} {row['min']:>7.3f} {row['median']:>7.3f} {target:>7}  {row['output']}")


def main(argv: list[str] | None = None) -> None:
    """Time the commands, print the table, the import breakdown and the JSON line."""
    parser = argparse.ArgumentParser(prog="startup.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", default="myciel5", help="a graph of data/graphs (default: myciel5)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per command (default: 5)")
    args = parser.parse_args(argv)
    graph = GRAPH_DIR / f"{args.graph}.col"
    if not graph.is_file() or args.repeats < 1:
        parser.error(f"--graph {args.graph}: no {graph}" if not graph.is_file() else "--repeats must be >= 1")
    chi = literature_chi().get(args.graph)
    with tempfile.TemporaryDirectory() as folder:
        out, cert = Path(folder) / "result.json", Path(folder) / "run.cert"
        timed_commands = commands(graph, out, cert)
        rows = [measure(name, command, args.repeats, out) for name, command in timed_commands.items()]
        rows.append(measure_cpsat(args.graph, args.repeats))
        imports = import_seconds(timed_commands["exact"])
    print_table(rows, args.graph, chi)
    print(
        "\nimport seconds of one exact run, by top-level package: "
        + ", ".join(f"{name} {value:.3f}" for name, value in list(imports.items())[:8])
    )
    report = {"graph": args.graph, "chi": chi, "repeats": args.repeats, "rows": rows, "imports": imports}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
