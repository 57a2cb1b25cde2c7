"""Part 1 of ``robustness.py``, target ``read_graph``: every input read in a forked child.

The hostile inputs first, then valid and mutated ones; an accepted graph is compared with
the generated one or with the reference parser's.
"""

from __future__ import annotations

import random
import shlex
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from _robustness_harness import PARSE_CAP_BYTES, PARSE_TIMEOUT, Outcome, keep, run_forked, vm_size
from _robustness_inputs import Case, Truth, hostile_cases, materialize, mutated_case, valid_case
from _robustness_reference import Rejected, reference_read


def compare_graph(graph: Any, want: Truth, what: str) -> str | None:
    """Why the graph ``read_graph`` returned differs from ``want`` (None if it does not)."""
    labels = [graph.nodes[v]["label"] for v in graph]
    if list(graph) != list(range(len(labels))):
        return "nodes are not 0..n-1"
    edges = {frozenset((graph.nodes[u]["label"], graph.nodes[v]["label"])) for u, v in graph.edges}
    if len(set(labels)) != len(labels) or set(labels) != set(want.labels):
        extra, missing = set(labels) - set(want.labels), set(want.labels) - set(labels)
        return (
            f"vertices differ from {what}: {len(labels)} read, {len(want.labels)} expected; "
            f"extra {sorted(map(repr, extra))[:3]}, missing {sorted(map(repr, missing))[:3]}"
        )
    if edges != set(want.edges):
        extra, missing = edges - set(want.edges), set(want.edges) - edges
        return (
            f"edges differ from {what}: {len(edges)} read, {len(want.edges)} expected; "
            f"extra {[sorted(map(repr, e)) for e in list(extra)[:3]]}, "
            f"missing {[sorted(map(repr, e)) for e in list(missing)[:3]]}"
        )
    return None


def judge_read(case: Case, path: Path) -> dict[str, str]:
    """In the child: read ``path`` with ``read_graph`` and judge the outcome."""
    import warnings

    from bbqmis.mis.errors import GraphFormatError
    from bbqmis.mis.graphio import read_graph

    warnings.simplefilter("ignore")  # networkx warns about odd GraphML keys; the verdict is what counts
    reference = reference_read(case)
    try:
        graph = read_graph(path)
    except GraphFormatError as exc:
        message = str(exc)
        if not message or "\n" in message or not message.startswith(str(path)):
            return {"verdict": "traceback", "detail": f"unclear error message: {message[:300]!r}"}
        if case.truth is not None or isinstance(reference, Truth):
            return {"verdict": "wrong", "detail": f"refused a valid input: {message[:300]}"}
        return {"verdict": "clear", "detail": message[:300]}
    except BaseException as exc:  # noqa: BLE001 - exactly what this part looks for
        lines = traceback.format_exception(exc)
        return {"verdict": "traceback", "detail": "".join(lines[-3:])[-1500:]}
    if case.expect_error:
        return {"verdict": "wrong", "detail": "accepted an input its format forbids"}
    if isinstance(reference, Rejected):
        return {
            "verdict": "wrong",
            "detail": f"accepted an input its format forbids: {str(reference)[:200]!r}",
        }
    if case.truth is not None:
        problem = compare_graph(graph, case.truth, "the generated graph")
    else:
        problem = None if reference is None else compare_graph(graph, reference, "the reference parser")
    size = f"{graph.number_of_nodes()} vertices, {graph.number_of_edges()} edges"
    return {"verdict": "wrong", "detail": problem} if problem else {"verdict": "ok", "detail": size}


def parser_part(
    rng: random.Random, budget: float, limit: int, folder: Path, progress: Callable[[str], None]
) -> list[Outcome]:
    """Read the hostile inputs, then valid and mutated ones, for ``budget`` s or ``limit`` inputs."""
    import bbqmis.mis.graphio  # noqa: F401 - imported before the forks, so each child starts warm

    cap = vm_size() + PARSE_CAP_BYTES
    outcomes: list[Outcome] = []
    deadline = time.monotonic() + budget
    hostile = hostile_cases()
    first = hostile[:-1]
    rng.shuffle(first)  # a small limit still samples every format

    def random_case() -> Case:
        return valid_case(rng, rng.choice([10, 40, 200])) if rng.random() < 0.35 else mutated_case(rng)

    def cases() -> Iterator[Case]:
        for case in [*first, hostile[-1]]:  # a short run samples both kinds
            yield case
            yield random_case()
        while True:
            yield random_case()

    for index, case in zip(range(limit), cases(), strict=False):
        if time.monotonic() > deadline:
            break
        path = materialize(case, folder, index)
        result, peak, seconds = run_forked(
            lambda case=case, path=path: judge_read(case, path), PARSE_TIMEOUT, cap
        )
        outcome = Outcome.of(
            "parser", case, result["verdict"], result["detail"], peak_kb=peak, seconds=seconds
        )
        code = f'from bbqmis.mis.graphio import read_graph; read_graph("{path}")'
        outcome.path, outcome.command = str(path), f"python -c {shlex.quote(code)}"
        outcomes.append(outcome)
        keep(outcome, folder)
        if index % 250 == 0:
            progress(f"parser: {index + 1} inputs")
    return outcomes
