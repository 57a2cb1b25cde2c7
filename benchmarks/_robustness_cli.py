"""Part 2 of ``robustness.py``, target the command line ``python -m bbqmis``.

The hostile files, bad options and a random sample of the others, each run through
``python -m bbqmis FILE --time-limit 5 --json OUT``; the colouring written to ``OUT`` is
checked against the known graph.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from _robustness_harness import CLI_TIMEOUT, TIME_LIMIT, Outcome, Run, pooled, run_command
from _robustness_inputs import (
    ROOT,
    Case,
    Truth,
    hostile_cases,
    materialize,
    mutated_case,
    truth_of,
    valid_case,
)
from _robustness_reference import reference_truth

BAD_OPTIONS = [
    ("--shots", "0"),
    ("--shots", "1e3"),
    ("--time-limit", "nan"),
    ("--time-limit", "-1"),
    ("--memory-limit", "inf"),
    ("--workers", "0"),
    ("--workers", "100000"),
    ("--seed", "-1"),
    ("--seed", str(2**64)),
    ("--max-qubits", "0"),
    ("--exact-share", "2"),
    ("--node-limit", "0"),
    ("--strategy", "sideways"),
    ("--sampler", "oracle"),
    ("--executor", "gpu"),
    ("--backend", "nope"),
    ("--backend", "iqm-fake:nope"),
    ("--backend", "vqpu:ftp://x"),
    ("--json", "/nonexistent/folder/out.json"),
    ("--checkpoint", "/nonexistent/folder/run.ckpt"),
    ("--resume",),
    ("--no-such-option",),
]


def option_cases() -> list[Case]:
    myciel3 = (ROOT / "data" / "graphs" / "myciel3.col").read_bytes()
    return [
        Case("options", " ".join(o), ".col", myciel3, expect_error=True, options=tuple(o))
        for o in BAD_OPTIONS
    ]


def check_coloring(result: dict, truth: Truth) -> str | None:
    """Why the ``--json`` result is not a right answer for ``truth`` (None if it is)."""
    # the documented keys: str(label), or repr(label) for all when two labels print alike
    key = str if len({str(label) for label in truth.labels}) == len(truth.labels) else repr
    names: dict[str, list] = {}
    for label in truth.labels:
        names.setdefault(key(label), []).append(label)
    coloring = result.get("coloring")
    if not isinstance(coloring, dict):
        return f"--json has no colouring object: {str(coloring)[:100]}"
    clash = next((name for name, labels in names.items() if len(labels) > 1), None)
    if clash is not None:
        return (
            f"the --json colouring cannot tell vertices {names[clash]!r} apart: both are written as key "
            f"{clash!r}, so the colouring it holds has {len(coloring)} of the {len(truth.labels)} vertices"
        )
    missing, extra = names.keys() - coloring.keys(), coloring.keys() - names.keys()
    if missing or extra:
        return f"colouring misses {sorted(missing)[:3]} ({len(missing)}) and has extra {sorted(extra)[:3]}"
    colours = list(coloring.values())
    if not all(isinstance(c, int) and c >= 0 for c in colours):
        return "colours are not non-negative integers"
    for edge in truth.edges:
        u, v = tuple(edge)
        if coloring[key(u)] == coloring[key(v)]:
            return f"improper colouring: adjacent vertices {u!r} and {v!r} share colour {coloring[key(u)]}"
    k, lower, optimal = len(set(colours)), result.get("lower_bound"), result.get("optimal")
    if result.get("num_colors") != k:
        return f"num_colors {result.get('num_colors')} but the colouring uses {k} colours"
    if not isinstance(lower, int) or lower > k or optimal is not (lower == k):
        return f"inconsistent result: {k} colours, lower bound {lower!r}, optimal {optimal!r}"
    if truth.chi is not None:
        if lower > truth.chi:
            return f"lower bound {lower} above the chromatic number {truth.chi}"
        if optimal and k != truth.chi:
            return f"claims {k} colours optimal; the chromatic number is {truth.chi}"
    return None


def known_options() -> set[str]:
    from bbqmis.coloring.cli import build_parser

    return {option for action in build_parser()._actions for option in action.option_strings}


def judge_run(case: Case, path: Path, run: Run, out: Path, options: set[str]) -> tuple[str, str, list[str]]:
    """Verdict, detail and notes of one CLI run."""
    notes = []
    if run.leftovers:
        notes.append("processes of the run were still running 2 s after it exited")
    if run.hung:
        return "hang", f"no exit within {CLI_TIMEOUT:g} s", notes
    lines = run.stderr.strip().splitlines()
    last = lines[-1][:300] if lines else ""
    if "Traceback (most recent call last)" in run.stderr or run.returncode not in (0, 2):
        return "traceback", f"exit {run.returncode}: {last}", notes
    if run.returncode == 2:
        if len(lines) != 1:
            return (
                "traceback",
                f"exit 2 with {len(lines)} stderr lines instead of one: {run.stderr[:300]!r}",
                notes,
            )
        advice = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", lines[0])) - options - set(case.options)
        if advice:
            notes.append(f"the message advises {', '.join(sorted(advice))}, which the command line lacks")
        if case.truth is not None:
            return "wrong", f"refused a valid input: {last}", notes
        return "clear", last, notes
    if case.expect_error:
        return "wrong", "accepted an input its format forbids", notes
    try:
        result = json.loads(out.read_text())
    except (OSError, ValueError) as exc:
        return "traceback", f"exit 0 but no readable --json: {exc}", notes
    truth = case.truth or reference_truth(case)
    if truth is None and path.is_file() and path.stat().st_size < 200_000:
        from bbqmis.mis.errors import GraphFormatError
        from bbqmis.mis.graphio import read_graph

        try:
            graph = read_graph(path)
        except GraphFormatError as exc:
            return "wrong", f"the command line accepted a file read_graph refuses: {exc}", notes
        labels = [graph.nodes[v]["label"] for v in graph]
        truth = truth_of(labels, list(graph.edges), None)
    if truth is None:
        return "ok", f"{result.get('num_colors')} colours (colouring not checked)", notes
    problem = check_coloring(result, truth)
    summary = f"{result['num_colors']} colours, bound {result['lower_bound']}, stopped {result['stopped']}"
    return ("wrong", problem, notes) if problem else ("ok", summary, notes)


def cli_options(rng: random.Random) -> tuple[str, ...]:
    """Random but valid search options: sampler, strategy, heuristic, workers, seed."""
    sampler = rng.choice(["qaoa", "qaoa", "exact", "greedy", "random", "anneal"])
    options = ["--sampler", sampler, "--seed", str(rng.randrange(1000))]
    if rng.random() < 0.2:
        options += ["--strategy", "depth-first"]
    if rng.random() < 0.15:
        options.append("--heuristic")
    if rng.random() < 0.1:
        options += ["--workers", "2"]
    if rng.random() < 0.2:
        options += ["--exact-share", "0"]
    return tuple(options)


def cli_command(path: Path, out: Path, options: tuple[str, ...]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bbqmis",
        str(path),
        "--time-limit",
        f"{TIME_LIMIT:g}",
        "--json",
        str(out),
        "--quiet",
        *options,
    ]


def shown_command(argv: list[str], out: Path) -> str:
    """The command to reproduce a run, writing its result to ``out.json``."""
    return shlex.join(["python", *("out.json" if arg == str(out) else arg for arg in argv[1:])])


def cli_part(
    rng: random.Random, budget: float, limit: int, folder: Path, jobs: int, progress: Callable[[str], None]
) -> list[Outcome]:
    """Run the hostile cases and bad options, then a random sample, through ``python -m bbqmis``."""
    options = known_options()
    hostile = hostile_cases()
    fixed = hostile[:-1] + option_cases()
    rng.shuffle(fixed)  # a short budget still samples every format
    fixed.append(hostile[-1])  # the slowest input last

    def cases() -> Iterator[Case]:
        yield from fixed
        while True:
            case = valid_case(rng, rng.choice([12, 25, 40])) if rng.random() < 0.6 else mutated_case(rng)
            yield replace(case, options=cli_options(rng))

    def run(case: Case, index: int) -> Outcome:
        path = materialize(case, folder, 50_000 + index)
        out = folder / f"{50_000 + index:05d}.result.json"
        argv = cli_command(path, out, case.options)
        done = run_command(argv, CLI_TIMEOUT, folder)
        verdict, detail, notes = judge_run(case, path, done, out, options)
        out.unlink(missing_ok=True)
        outcome = Outcome.of("cli", case, verdict, detail, peak_kb=done.peak_kb, seconds=done.seconds)
        outcome.path, outcome.command, outcome.notes = str(path), shown_command(argv, out), notes
        return outcome

    return pooled(cases(), run, budget=budget, limit=limit, jobs=jobs, folder=folder, progress=progress)
