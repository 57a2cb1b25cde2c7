"""Independent reference parsers of the documented DIMACS and edge-list rules, for ``robustness.py``.

An accepted mutated file is compared with what these parsers read from it; a file they
refuse must be refused by ``read_graph`` too.
"""

from __future__ import annotations

import re

from _robustness_inputs import Case, Truth

from bbqmis.mis.graphio import ISOLATED_FACTOR, ISOLATED_FLOOR  # light: no circuits


class Rejected(Exception):
    """The reference parser refuses the input under the documented rules."""


def _reference_int(token: str, low: int) -> int:
    if not re.fullmatch(r"[+-]?[0-9]{1,64}", token) or int(token) < low:
        raise Rejected(token)
    return int(token)


def reference_dimacs(data: bytes) -> tuple[set, set] | None:
    """Vertices and edges of a DIMACS file under the documented rules; None if not plain ASCII."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    n, m, edge_lines, edges = None, 0, 0, set()
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        tokens = line.split()
        if "\x00" in line or tokens[0] not in ("p", "e"):
            raise Rejected(line)
        if tokens[0] == "p":
            if n is not None or len(tokens) != 4 or tokens[1] not in ("edge", "col"):
                raise Rejected(line)
            n, m = _reference_int(tokens[2], 0), _reference_int(tokens[3], 0)
            if n > 10_000_000:
                raise Rejected(line)
        else:
            if n is None or len(tokens) != 3:
                raise Rejected(line)
            u, v = _reference_int(tokens[1], 1), _reference_int(tokens[2], 1)
            if u > n or v > n or u == v:
                raise Rejected(line)
            edges.add(frozenset((u, v)))
            edge_lines += 1
    if n is None or n == 0 or edge_lines < m:
        raise Rejected("header")
    touched = len(set().union(*edges))
    if n - touched > max(ISOLATED_FLOOR, ISOLATED_FACTOR * touched):
        raise Rejected("isolated")
    return set(range(1, n + 1)), edges


def _reference_label(token: str) -> int | str:
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", token) or re.fullmatch(r"[0-9]+-+[0-9]+", token):
        raise Rejected(token)
    if re.fullmatch(r"[+-]?[0-9]+", token):
        if len(token) > 64:
            raise Rejected(token)
        return int(token)
    return token


def reference_edgelist(data: bytes) -> tuple[set, set] | None:
    """Vertices and edges of an edge list under the documented rules; None if not plain ASCII."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    labels: dict = {}
    edges = set()
    for raw in text.split("\n"):
        content, line = raw.split("#", 1)[0], raw.strip()
        if not content.strip() or line.startswith("%"):
            continue
        if "\x00" in line:
            raise Rejected(line)
        if "," in content:
            tokens = [t.strip() for t in content.split(",")]
            if not all(tokens):
                raise Rejected(line)
        else:
            tokens = content.split()
        if len(tokens) > 3:
            raise Rejected(line)
        ends = [_reference_label(t) for t in tokens[:2]]
        if len(tokens) == 3:
            try:
                float(tokens[2])
            except ValueError:
                raise Rejected(line) from None
        if len(ends) == 2 and ends[0] == ends[1]:
            raise Rejected(line)
        labels.update(dict.fromkeys(ends))
        if len(ends) == 2:
            edges.add(frozenset(ends))
    if not labels:
        raise Rejected("empty")
    return set(labels), edges


REFERENCES = {"dimacs": reference_dimacs, "edgelist": reference_edgelist}


def reference_read(case: Case) -> Truth | Rejected | None:
    """The graph the reference parser reads from ``case``, its refusal, or None when it cannot tell."""
    try:
        read = REFERENCES[case.reference](case.data) if case.reference else None
    except Rejected as exc:
        return exc
    return None if read is None else Truth(tuple(read[0]), frozenset(read[1]))


def reference_truth(case: Case) -> Truth | None:
    """The graph the reference parser reads from ``case``, or None when it cannot tell or refuses."""
    read = reference_read(case)
    return read if isinstance(read, Truth) else None
