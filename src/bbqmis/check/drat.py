"""A DRAT proof checker: whether a clausal proof refutes a CNF formula.

A DRAT proof (the text format that SAT solvers such as CaDiCaL write) is a sequence of
lines ``l1 l2 ... 0`` (add the clause) and ``d l1 l2 ... 0`` (delete it), ending with the
empty clause ``0``. It refutes the formula when every added clause is

- **RUP** (reverse unit propagation): assigning each of its literals false and
  propagating the clauses so far gives a conflict, so the clause is implied; or
- **RAT** on its first literal ``l``: every resolvent with a clause that contains ``-l``
  is RUP (or a tautology), so adding it keeps a satisfiable formula satisfiable;

and the empty clause is among them: then the formula has no model (Wetzler, Heule and
Hunt, "DRAT-trim", SAT 2014).

This checker works forwards: it checks every added clause when it is added, with
two-watched-literal unit propagation over the clauses present at that point. Deleting a
clause that may be the reason of a propagated literal is ignored, as DRAT-trim does;
ignoring a deletion only leaves more clauses, against which every later check is made, so
it never accepts a wrong proof. Like the rest of :mod:`bbqmis.check` it uses only the
standard library.

Examples
--------
>>> formula = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
>>> check_refutation(formula, ["1 0", "0"])
2
>>> check_refutation(formula, ["0"])
Traceback (most recent call last):
...
bbqmis.check.drat.ProofError: proof line 1: the clause [] is neither RUP nor RAT
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["ProofError", "check_refutation"]


class ProofError(Exception):
    """A proof that does not refute its formula, naming the first line that fails.

    Examples
    --------
    >>> str(ProofError("proof line 3: the clause [1] is neither RUP nor RAT"))
    'proof line 3: the clause [1] is neither RUP nor RAT'
    """


class _Database:
    """Clauses with two watched literals, and the literals true at the top level (the trail)."""

    def __init__(self) -> None:
        self.clauses: list[list[int] | None] = []
        self.watches: dict[int, list[int]] = {}
        self.index: dict[tuple[int, ...], list[int]] = {}
        self.true: set[int] = set()
        self.trail: list[int] = []
        self.inconsistent = False

    def add(self, clause: list[int]) -> None:
        """Add ``clause`` (no repeated literal, not a tautology) and propagate at the top level."""
        number = len(self.clauses)
        self.index.setdefault(tuple(sorted(clause)), []).append(number)
        true = self.true
        clause.sort(key=lambda literal: (-literal in true) - (literal in true))  # true, free, false
        self.clauses.append(clause)
        if len(clause) >= 2:
            self.watches.setdefault(clause[0], []).append(number)
            self.watches.setdefault(clause[1], []).append(number)
        if self.inconsistent or (clause and clause[0] in true):
            return
        if not clause or -clause[0] in true:
            self.inconsistent = True
        elif len(clause) == 1 or -clause[1] in true:
            start = len(self.trail)
            self._assign(clause[0])
            self.inconsistent = self._propagate(start)

    def delete(self, clause: list[int]) -> None:
        """Delete one copy of ``clause``, unless it may be the reason of a top-level literal."""
        numbers = self.index.get(tuple(sorted(clause)))
        if not numbers:
            return  # deleting a clause that is not there changes nothing
        true = self.true
        if sum(literal in true for literal in clause) == 1 and all(
            literal in true or -literal in true for literal in clause
        ):
            return  # possibly a reason: keep it
        self.clauses[numbers.pop()] = None

    def implied(self, clause: Sequence[int]) -> bool:
        """Whether ``clause`` is RUP: its negation propagates to a conflict."""
        if self.inconsistent:
            return True
        start = len(self.trail)
        conflict = False
        for literal in clause:
            if literal in self.true:
                conflict = True
                break
            if -literal not in self.true:
                self._assign(-literal)
        conflict = conflict or self._propagate(start)
        for literal in self.trail[start:]:
            self.true.discard(literal)
        del self.trail[start:]
        return conflict

    def resolution_candidates(self, pivot: int) -> list[list[int]]:
        """The clauses present that contain ``-pivot``."""
        return [clause for clause in self.clauses if clause is not None and -pivot in clause]

    def _assign(self, literal: int) -> None:
        self.true.add(literal)
        self.trail.append(literal)

    def _propagate(self, start: int) -> bool:
        """Propagate the trail from ``start``; True on a conflict."""
        true, trail, clauses, watches = self.true, self.trail, self.clauses, self.watches
        position = start
        while position < len(trail):
            false = -trail[position]
            position += 1
            watching = watches.get(false)
            if not watching:
                continue
            kept: list[int] = []
            for place, number in enumerate(watching):
                clause = clauses[number]
                if clause is None:
                    continue  # deleted: forget the watch
                if clause[0] == false:
                    clause[0], clause[1] = clause[1], false
                if clause[0] in true:
                    kept.append(number)
                    continue
                for other in range(2, len(clause)):
                    if -clause[other] not in true:
                        clause[1], clause[other] = clause[other], false
                        watches.setdefault(clause[1], []).append(number)
                        break
                else:
                    kept.append(number)
                    if -clause[0] in true:
                        kept.extend(watching[place + 1 :])
                        watches[false] = kept
                        return True
                    true.add(clause[0])
                    trail.append(clause[0])
            watches[false] = kept
        return False


def _parse(line: str, number: int) -> tuple[bool, list[int]]:
    """``(deletion, literals)`` of one proof line, the literals in their order, repeats dropped."""
    words = line.split()
    deletion = bool(words) and words[0] == "d"
    try:
        literals = [int(word) for word in words[deletion:]]
    except ValueError:
        raise ProofError(
            f"proof line {number}: expected integers ending with 0, got {line.strip()[:60]!r}"
        ) from None
    if not literals or literals[-1] != 0 or 0 in literals[:-1]:
        raise ProofError(f"proof line {number}: a clause must end with a single 0, got {line.strip()[:60]!r}")
    return deletion, list(dict.fromkeys(literals[:-1]))


def _tautology(clause: Iterable[int]) -> bool:
    seen = set(clause)
    return any(-literal in seen for literal in seen)


def _rat(database: _Database, clause: list[int]) -> bool:
    """Whether ``clause`` is RAT on its first literal against the clauses present."""
    if not clause:
        return False
    pivot = clause[0]
    for other in database.resolution_candidates(pivot):
        resolvent = list(dict.fromkeys(clause + [literal for literal in other if literal != -pivot]))
        if not _tautology(resolvent) and not database.implied(resolvent):
            return False
    return True


def check_refutation(formula: Iterable[Sequence[int]], proof: Iterable[str]) -> int:
    """Check that ``proof`` (DRAT text lines) refutes ``formula``; the number of clauses it added.

    Parameters
    ----------
    formula : iterable of sequences of int
        The CNF's clauses, DIMACS literals (``v`` or ``-v``, ``v >= 1``).
    proof : iterable of str
        The proof's lines; blank lines and ``c`` comments are skipped.

    Returns
    -------
    int
        Clauses added by the proof (each checked), the empty clause included.

    Raises
    ------
    ProofError
        At the first malformed line or unjustified clause, or if the proof never adds the
        empty clause.

    Examples
    --------
    >>> check_refutation([[1], [-1, 2], [-2]], ["d -1 2 0", "0"])  # 1 and -2 still conflict
    1
    >>> check_refutation([[1, 2]], ["-1 0", "0"])  # -1 is not implied, and 1 2 blocks it as RAT
    Traceback (most recent call last):
    ...
    bbqmis.check.drat.ProofError: proof line 1: the clause [-1] is neither RUP nor RAT
    """
    database = _Database()
    for clause in formula:
        literals = list(dict.fromkeys(clause))
        if 0 in literals:
            raise ProofError(f"the formula has a literal 0 in clause {list(clause)}")
        if not _tautology(literals):
            database.add(literals)
    added = 0
    for number, line in enumerate(proof, 1):
        if not line.strip() or line.startswith("c"):
            continue
        deletion, clause = _parse(line, number)
        if deletion:
            database.delete(clause)
            continue
        if _tautology(clause):
            continue  # true in every assignment: adding it changes nothing
        if not database.implied(clause) and not _rat(database, clause):
            raise ProofError(f"proof line {number}: the clause {clause} is neither RUP nor RAT")
        added += 1
        if not clause:
            return added
        database.add(clause)
    raise ProofError("the proof ends without the empty clause '0': it refutes nothing")
