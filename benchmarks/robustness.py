"""Robustness: fuzz the entry points for a fixed budget and report what breaks.

Four parts, each a group of rows in the table:

1. ``parser``: graph files in every format ``read_graph`` reads (DIMACS, edge list,
   GraphML, node-link JSON). Valid files have a planted chromatic number, so the graph
   and chi are known. Hostile files carry huge declared counts, deep nesting, NUL bytes,
   entity expansion, directories, FIFOs and the like. Random mutations truncate, flip
   bytes, swap separators and change extensions. Each file is read by ``read_graph`` in
   a forked child with an address-space cap and a timeout. This part covers most inputs.
2. ``cli``: the hostile files, bad options and a random sample of the others, each run
   through ``python -m bbqmis FILE --time-limit 5 --json OUT`` in a subprocess with
   varying samplers. The colouring written to ``OUT`` is checked against the known graph.
3. ``checkpoint``: a search on ``data/graphs/myciel4.col`` (chi = 5) stopped after 3
   nodes leaves a checkpoint. Damaged copies are resumed: truncated, flipped, swapped
   for a directory or a FIFO, or with fields edited and the checksum recomputed.
4. ``soak``: C vQPU client processes submit B batches in total, each with its own
   idempotency key and seed. Meanwhile the server is killed with SIGKILL and restarted
   K times on the same database. Every acknowledged batch must be delivered exactly once.

This script holds the report and the command line; each target has a module beside it:
``_robustness_inputs.py`` (the graph files), ``_robustness_reference.py`` (reference
parsers), ``_robustness_harness.py`` (forked and capped runs, verdicts),
``_robustness_reader.py`` (part 1), ``_robustness_cli.py`` (part 2),
``_robustness_checkpoint.py`` (part 3) and ``_robustness_vqpu.py`` (part 4).

Verdicts:

- clear error: exit 2 with exactly one stderr line, or a one-line ``GraphFormatError``
  that names the file in-process;
- traceback: ``Traceback`` on stderr, an exit status other than 0 and 2, a crash, or an
  error that is not one clear line (the table counts these as tracebacks);
- hang: no exit within 30 s (CLI) or 20 s (in-process read);
- wrong answer: an improper or incomplete colouring; a lower bound above the known chi;
  ``optimal`` claimed with more colours than chi; a graph read differently from the file;
  a file its format forbids, accepted; a valid file refused.

Peak memory is each child's ``ru_maxrss`` (``os.wait4``; for a CLI run, measured by a small
wrapper process). Every input stays under 1 MB, so the done-when target is a peak under 1 GB
for each of them.

Examples
--------
    python benchmarks/robustness.py            # about 8 minutes on 2 cores
    python benchmarks/robustness.py --quick    # about a minute
    python benchmarks/robustness.py --budget 120 --max-inputs 6 --soak-clients 2 --soak-batches 20 \
        --soak-kills 1                          # the smoke test: the same sample on any machine

Prints the table and the findings with their reproducers, then one JSON line:
``{"inputs", "clear_errors", "tracebacks", "hangs", "wrong_answers", "peak_gb", "soak"}``.
The exit status is 0 whatever was found. Progress goes to stderr. Inputs that failed are
kept in ``--out``/findings.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

# The parts, one module per target, next to this script (its folder is on the path).
from _robustness_checkpoint import checkpoint_part  # noqa: E402
from _robustness_cli import cli_part  # noqa: E402
from _robustness_harness import MEMORY_TARGET_KB, VERDICTS, Outcome, log  # noqa: E402
from _robustness_inputs import remove  # noqa: E402
from _robustness_reader import parser_part  # noqa: E402
from _robustness_vqpu import soak, soak_client  # noqa: E402

#: Shares of ``--budget`` for the parser, CLI and checkpoint parts (the soak comes on top).
SHARES = {"parser": 0.25, "cli": 0.55, "checkpoint": 0.20}


# ----------------------------------------------------------------------------- report
def tally(outcomes: list[Outcome]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for o in outcomes:
        row = rows.setdefault(
            o.category, {"tried": 0, "peak_kb": 0, "over_1gb": 0, **dict.fromkeys(VERDICTS, 0)}
        )
        row["tried"] += 1
        row[o.verdict] += 1
        row["peak_kb"] = max(row["peak_kb"], o.peak_kb)
        row["over_1gb"] += o.peak_kb >= MEMORY_TARGET_KB
    return rows


def print_report(outcomes: list[Outcome], soak_result: dict[str, Any] | None, folder: Path) -> dict[str, Any]:
    rows = tally(outcomes)
    with open(folder / "outcomes.jsonl", "w") as file:
        for o in outcomes:
            record = {"part": o.part, "kind": o.kind, "name": o.name, "size": o.size, "verdict": o.verdict}
            record |= {"detail": o.detail, "peak_kb": o.peak_kb, "seconds": round(o.seconds, 2)}
            file.write(json.dumps(record | {"command": o.command, "notes": o.notes}) + "\n")
    total = {"tried": 0, "peak_kb": 0, "over_1gb": 0, **dict.fromkeys(VERDICTS, 0)}
    print(
        f"{'category':<20} {'tried':>6} {'clear':>6} {'accepted':>8} {'tracebacks':>10} {'hangs':>6} "
        f"{'wrong':>6} {'peak MB':>8} {'>1 GB':>6}"
    )
    for name, row in [*sorted(rows.items()), ("total", total)]:
        if name != "total":
            for key in total:
                total[key] = max(total[key], row[key]) if key == "peak_kb" else total[key] + row[key]
        print(
            f"{name:<20} {row['tried']:>6} {row['clear']:>6} {row['ok']:>8} {row['traceback']:>10} "
            f"{row['hang']:>6} {row['wrong']:>6} {row['peak_kb'] / 1024:>8.0f} {row['over_1gb']:>6}"
        )
    if soak_result is not None:
        s = soak_result
        print(
            f"\nvQPU soak: {s['clients']} clients, {s['batches']} batches, {s['kills']} server kills "
            f"(at {s['kill_seconds']} s): {s['acknowledged']} acknowledged, {s['delivered']} delivered, "
            f"lost {s['lost']}, duplicated {s['duplicated']}, mismatched {s['mismatched']}, "
            f"client errors {s['client_errors']}, re-run after a kill {s['rerun']}, {s['seconds']} s"
        )
    findings = [o for o in outcomes if o.verdict not in ("clear", "ok") or o.peak_kb >= MEMORY_TARGET_KB]
    noted = [o for o in outcomes if o.notes and o not in findings]
    if findings or noted:
        kept = folder / "findings"
        kept.mkdir(parents=True, exist_ok=True)
        print(f"\nfindings ({len(findings)}; inputs kept in {kept}):")
        for o in findings + noted:
            path = Path(o.path)
            if path.exists() or path.is_symlink():
                target = kept / path.name
                with contextlib.suppress(OSError):
                    remove(target)
                    path.rename(target)  # the same file system: FIFOs and symbolic links move as they are
                    o.command = o.command.replace(str(path), str(target))
            verdict = o.verdict if o.verdict not in ("clear", "ok") else "note"
            if o.peak_kb >= MEMORY_TARGET_KB:
                verdict = f"{'memory' if verdict == 'note' else verdict}, peak {o.peak_kb / 2**20:.2f} GB"
            print(f"- [{verdict}] {o.category} {o.name!r} ({o.size} bytes, {o.seconds:.1f} s): {o.detail}")
            for note in o.notes:
                print(f"    note: {note}")
            print(f"    reproduce: {o.command}")
    small = [o.peak_kb for o in outcomes if o.size < 2**20]
    result: dict[str, Any] = {
        "inputs": total["tried"],
        "clear_errors": total["clear"],
        "tracebacks": total["traceback"],
        "hangs": total["hang"],
        "wrong_answers": total["wrong"] + (soak_result or {}).get("mismatched", 0),
        "peak_gb": round(max(small, default=0) / 2**20, 3),
    }
    if soak_result is not None:
        result["soak"] = {
            key: soak_result[key] for key in ("clients", "batches", "kills", "lost", "duplicated")
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=float, default=420.0, help="seconds for parts 1-3 (default 420)")
    parser.add_argument(
        "--quick", action="store_true", help="about a minute: budget 40 s, soak 4 x 100, 1 kill"
    )
    parser.add_argument(
        "--max-inputs",
        type=int,
        default=10**9,
        metavar="N",
        help="at most N runs in each of the CLI and checkpoint parts and 10 N reads in the parser part, "
        "so that a small run does not depend on the machine's speed (default: no limit)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="CLI runs at once")
    parser.add_argument("--soak-clients", type=int, default=16)
    parser.add_argument("--soak-batches", type=int, default=1000)
    parser.add_argument("--soak-kills", type=int, default=2)
    parser.add_argument("--no-soak", action="store_true", help="skip part 4")
    parser.add_argument("--out", default="results/robustness", help="findings and soak logs go here")
    # the soak's client processes (internal)
    parser.add_argument("--soak-client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    parser.add_argument("--batches", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--first-seed", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--payload", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=120.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.soak_client:
        soak_client(args)
        return 0
    if args.quick:
        args.budget, args.soak_clients, args.soak_batches, args.soak_kills = 40.0, 4, 100, 1
    out = Path(args.out).resolve()  # the runs' working folder is elsewhere
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "findings", ignore_errors=True)
    started = time.monotonic()

    def progress(message: str) -> None:
        log(f"[{time.monotonic() - started:6.1f} s] {message}")

    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="work-", dir=out) as tmp:
        work = Path(tmp)
        budget, limit = {part: share * args.budget for part, share in SHARES.items()}, args.max_inputs
        outcomes += parser_part(random.Random(args.seed), budget["parser"], 10 * limit, work, progress)
        progress(f"parser: done, {len(outcomes)} inputs")
        for offset, (part, run) in enumerate((("cli", cli_part), ("checkpoint", checkpoint_part)), start=1):
            rng = random.Random(args.seed + offset)
            outcomes += run(rng, budget[part], limit, work, args.jobs, progress)
            progress(f"{part}: done")
        soak_result = None
        if not args.no_soak:
            soak_result = soak(
                args.soak_clients, args.soak_batches, args.soak_kills, out / "soak", args.seed, progress
            )
            progress("soak: done")
        result = print_report(outcomes, soak_result, out)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
