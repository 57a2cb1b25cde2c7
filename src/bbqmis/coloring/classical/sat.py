"""Exact colouring by SAT: k-colourability asked of CaDiCaL, for k from the incumbent down.

Each question goes to CaDiCaL (through PySAT) in the assignment encoding of
:mod:`bbqmis.coloring.classical.sat_worker`, with clauses every colouring satisfies (at
the clique bound, the Zykov reasoning of :mod:`bbqmis.coloring.classical.zykov`): a
satisfiable answer is a colouring with fewer colours, an unsatisfiable one proves that
the chromatic number is ``k + 1``. This is the model with which CP-SAT proves most small
DIMACS graphs within seconds (for example 1-Insertions_4, 4-Insertions_3, myciel5 and
le450_5a, whose proofs the DSATUR and BBQ-MIS trees cannot finish in a minute).

The solver runs in a child process: CaDiCaL cannot be interrupted from PySAT, so the
deadline and a stop request are kept by killing the child, and its memory is capped
with ``RLIMIT_AS``. The child reports each answer as it comes, so a run cut short keeps
the best colouring found and the bound proven so far.
"""

from __future__ import annotations

import json
import math
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import check_nonnegative_int

from .dsatur_exact import ExactColoring

__all__ = ["MAX_SAT_CLAUSES", "Refutation", "sat_clauses", "sat_coloring", "sat_refutation"]

#: Largest encoding :func:`sat_coloring` is used for (clauses at the incumbent's colours):
#: CaDiCaL holds about 100 bytes per binary clause, so this stays under a few hundred MB
#: (at the clique bound the worker's redundant clauses add at most as many again, and the
#: clauses of at most 10 000 cliques).
MAX_SAT_CLAUSES = 2_000_000
#: Seconds between two looks at the deadline and the stop request.
_POLL_SECONDS = 0.1
#: Address space of the child when the caller gives no memory limit, in bytes.
_DEFAULT_MEMORY_BYTES = 4 * 2**30
_WORKER = Path(__file__).with_name("sat_worker.py")
_RUN_WORKER = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


def sat_clauses(num_nodes: int, num_edges: int, colors: int) -> int:
    """Clauses of the k-colourability encoding: one per vertex, one per edge and colour.

    Examples
    --------
    >>> sat_clauses(450, 5714, 9)
    51876
    """
    return num_nodes + num_edges * colors


def sat_coloring(
    adjacency: Any,
    initial: Any,
    *,
    clique: Sequence[int] = (),
    lower: int = 0,
    deadline: float = math.inf,
    memory_gb: float | None = None,
    stop: Callable[[], bool] | None = None,
    solver: str = "cadical195",
    implied: bool = True,
) -> ExactColoring:
    """A minimum colouring, or the best found and the bound proven before the deadline.

    Parameters
    ----------
    adjacency : scipy.sparse matrix of shape (n, n)
        Symmetric adjacency matrix (nonzero = edge), zero diagonal.
    initial : array_like of shape (n,)
        A proper colouring (integers >= 0): the search asks for one colour fewer.
    clique : sequence of int, default=()
        Vertices of a clique, fixed to distinct colours (symmetry breaking).
    lower : int, default=0
        A proven lower bound: no colour count below it is tried. At least ``len(clique)``.
    deadline : float, default=inf
        Absolute :func:`time.perf_counter` value at which the solver is stopped.
    memory_gb : float, optional
        Address space of the solver's process, in GB (default 4 GiB).
    stop : callable, optional
        Polled every 0.1 s; a true answer stops the solver as the deadline does.
    solver : str, default="cadical195"
        A PySAT solver name.
    implied : bool, default=True
        At the clique bound, add clauses that every colouring satisfies
        (:func:`~bbqmis.coloring.classical.sat_worker.redundant_clauses`: every colour on
        every clique of that size, the Zykov merges these cliques force, at most one colour
        per vertex); False asks the plain encoding.

    Raises
    ------
    InvalidParameterError
        If ``adjacency`` is not square and symmetric with a zero diagonal, ``initial``
        is not a proper colouring of it, or ``clique`` is not a clique.

    Returns
    -------
    ExactColoring
        ``nodes`` counts the colour counts answered; ``stopped`` is None when the
        chromatic number was proven, else ``"time_limit"`` (deadline or stop) or
        ``"memory_limit"`` (the solver ran out of memory) or ``"failed"`` (the solver's
        process ended without an answer, for example killed from outside).

    Examples
    --------
    >>> import networkx as nx
    >>> wheel = nx.to_scipy_sparse_array(nx.wheel_graph(6))  # hub + odd cycle C5: chi = 4
    >>> result = sat_coloring(wheel, [0, 1, 2, 3, 4, 5], clique=[0, 1, 2])
    >>> result.num_colors, result.lower_bound, result.optimal
    (4, 4, True)
    """
    matrix, colors, clique = _checked(adjacency, initial, clique)
    n = matrix.shape[0]
    upper = int(colors.max()) + 1 if n else 0
    lower = max(check_nonnegative_int(lower, "lower"), len(clique), 1 if n else 0)
    problem = _problem(
        matrix, clique, upper=upper, lower=lower, memory_gb=memory_gb, implied=implied, solver=solver
    )
    answers, stopped = _run_worker(problem, deadline, stop) if upper > lower else ([], None)
    best, proven = colors, lower
    for answer in answers:
        if answer["sat"]:
            best = np.asarray(answer["colors"], dtype=np.int64)
        else:
            proven = max(proven, answer["k"] + 1)
    num_colors = int(best.max()) + 1 if n else 0
    optimal = num_colors <= proven
    return ExactColoring(best, num_colors, proven, optimal, len(answers), None if optimal else stopped)


@dataclass(frozen=True)
class Refutation:
    """A proof that a graph has no k-colouring: the formula CaDiCaL refuted and its DRAT proof.

    The formula is :func:`~bbqmis.coloring.classical.sat_worker.encode`'s (vertex ``v``
    in colour ``c`` is variable ``v * k + c + 1``, the vertices of ``clique`` fixed to
    colours ``0, 1, ...``) with the clauses of ``implied``
    (:func:`~bbqmis.coloring.classical.sat_worker.redundant_structure`: ``cliques``,
    ``merges`` as ``[u, v, j]``, ``at_most_one``).

    Attributes
    ----------
    k : int
        The colours refuted: the chromatic number is at least ``k + 1``.
    clique : list of int
    implied : dict
    proof : str
        DRAT text, a line per clause added (``... 0``) or deleted (``d ... 0``).

    Examples
    --------
    >>> import networkx as nx
    >>> refutation = sat_refutation(nx.to_scipy_sparse_array(nx.complete_graph(4)), 3, clique=[0, 1, 2])
    >>> refutation.k, "0" in refutation.proof.splitlines()  # the empty clause is derived
    (3, True)
    """

    k: int
    clique: list[int]
    implied: dict[str, Any]
    proof: str


def sat_refutation(
    adjacency: Any,
    k: int,
    *,
    clique: Sequence[int] = (),
    deadline: float = math.inf,
    memory_gb: float | None = None,
    implied: bool = True,
) -> Refutation | None:
    """A DRAT proof that ``adjacency`` has no ``k``-colouring, or None (it has one, or time ran out).

    Parameters
    ----------
    adjacency : scipy.sparse matrix of shape (n, n)
        Symmetric adjacency matrix (nonzero = edge), zero diagonal.
    k : int
        The colours asked for (at least 1 and at least ``len(clique)``).
    clique, deadline, memory_gb, implied
        As for :func:`sat_coloring`.

    Examples
    --------
    >>> import networkx as nx
    >>> cycle = nx.to_scipy_sparse_array(nx.cycle_graph(5))
    >>> sat_refutation(cycle, 2, clique=[0, 1]).k, sat_refutation(cycle, 3, clique=[0, 1])
    (2, None)
    """
    n = adjacency.shape[0]
    matrix, _, members = _checked(adjacency, np.arange(n), clique)  # n colours: always proper
    if not 1 <= k or k < len(members):
        raise InvalidParameterError(f"k must be at least 1 and the clique's size {len(members)}, got {k}")
    with tempfile.TemporaryDirectory(prefix="bbqmis-proof-") as folder:
        proof = Path(folder) / "proof.drat"
        problem = _problem(matrix, members, upper=k + 1, lower=k, memory_gb=memory_gb, implied=implied)
        answers, _ = _run_worker({**problem, "proof": str(proof)}, deadline, None)
        if not answers or answers[-1]["sat"] or not proof.exists():
            return None
        return Refutation(k, members, answers[-1]["implied"], proof.read_text(encoding="ascii"))


def _problem(
    matrix: Any,
    clique: list[int],
    *,
    upper: int,
    lower: int,
    memory_gb: float | None,
    implied: bool,
    solver: str = "cadical195",
) -> dict[str, Any]:
    """The worker's problem (see :mod:`bbqmis.coloring.classical.sat_worker`)."""
    return {
        "n": matrix.shape[0],
        "edges": np.column_stack([matrix.row, matrix.col]).tolist(),
        "clique": clique,
        "upper": upper,
        "lower": lower,
        "memory_bytes": int((memory_gb or _DEFAULT_MEMORY_BYTES / 1e9) * 1e9),
        "solver": solver,
        "implied": bool(implied),
    }


def _checked(adjacency: Any, initial: Any, clique: Sequence[int]) -> tuple[Any, np.ndarray, list[int]]:
    """The upper triangle of ``adjacency`` (COO), the colours and the clique, after checking them."""
    matrix = sp.csr_matrix(adjacency, dtype=bool)
    matrix.eliminate_zeros()
    n = matrix.shape[0]
    if matrix.shape != (n, n) or (matrix != matrix.T).nnz or matrix.diagonal().any():
        raise InvalidParameterError("adjacency must be a square symmetric matrix with a zero diagonal")
    colors = np.asarray(initial)
    if colors.shape != (n,) or not np.issubdtype(colors.dtype, np.integer) or (n and colors.min() < 0):
        raise InvalidParameterError(f"initial must be {n} integers >= 0, got shape {colors.shape}")
    upper = sp.triu(matrix, k=1).tocoo()
    clash = np.flatnonzero(colors[upper.row] == colors[upper.col])
    if clash.size:
        u, v = int(upper.row[clash[0]]), int(upper.col[clash[0]])
        raise InvalidParameterError(
            f"initial is not proper: adjacent vertices {u} and {v} share colour {colors[u]}"
        )
    members = [int(v) for v in clique]
    if (
        len(set(members)) != len(members)
        or any(not 0 <= v < n for v in members)
        or any(not matrix[a, b] for i, a in enumerate(members) for b in members[i + 1 :])
    ):
        raise InvalidParameterError(f"clique must be distinct pairwise adjacent vertices, got {members}")
    return upper, colors.astype(np.int64), members


def _run_worker(
    problem: dict[str, Any], deadline: float, stop: Callable[[], bool] | None
) -> tuple[list[dict[str, Any]], str | None]:
    """The worker's answers until it ends, the deadline passes or ``stop`` says so; and why it stopped."""
    answers: list[dict[str, Any]] = []
    with tempfile.TemporaryFile("w+") as errors:  # a file, not a pipe: a noisy child cannot block
        try:
            process = subprocess.Popen(
                [sys.executable, "-P", "-c", _RUN_WORKER, str(_WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                start_new_session=True,  # the terminal's Ctrl-C is the parent's to handle
            )
        except OSError:
            return answers, "failed"
        with process:
            lines: queue.Queue[str | None] = queue.Queue()
            threading.Thread(target=_feed, args=(process, json.dumps(problem), lines), daemon=True).start()
            try:
                while True:
                    if time.perf_counter() >= deadline or (stop is not None and stop()):
                        return answers, "time_limit"
                    try:
                        line = lines.get(timeout=_POLL_SECONDS)
                    except queue.Empty:
                        continue
                    if line is None or not line.endswith("\n"):  # the end, or a line cut by a kill
                        break
                    answers.append(json.loads(line))
            finally:
                process.kill()
                process.wait()
        if answers and (not answers[-1]["sat"] or answers[-1]["k"] <= problem["lower"]):
            return answers, None
        errors.seek(0)
        error = errors.read()
    return answers, "memory_limit" if "MemoryError" in error or "bad_alloc" in error else "failed"


def _feed(process: subprocess.Popen, text: str, lines: queue.Queue[str | None]) -> None:
    """Send the problem, then pass each output line on; None at the end of the output."""
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(text)
        process.stdin.close()
        for line in process.stdout:
            lines.put(line)
    except (BrokenPipeError, OSError, ValueError):  # the worker died or was killed
        pass
    lines.put(None)
