"""The DRAT checker: CaDiCaL's proofs are accepted, proofs of satisfiable formulas never are."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from bbqmis.check.drat import ProofError, check_refutation


def random_cnf(rng: random.Random, variables: int, clauses: int) -> list[list[int]]:
    """Random 3-CNF: near the threshold (4.26 clauses per variable) about half are unsatisfiable."""
    return [
        [v if rng.random() < 0.5 else -v for v in rng.sample(range(1, variables + 1), 3)]
        for _ in range(clauses)
    ]


def solve(formula: list[list[int]]) -> tuple[bool, list[str]]:
    """Whether CaDiCaL finds a model, and its DRAT proof when it does not."""
    with Solver(name="cadical195", bootstrap_with=formula, with_proof=True) as solver:
        sat = bool(solver.solve())
        return sat, [] if sat else solver.get_proof()


def pigeonhole(holes: int) -> list[list[int]]:
    """``holes + 1`` pigeons in ``holes`` holes: unsatisfiable, and hard for resolution."""
    x = lambda p, h: p * holes + h + 1  # noqa: E731
    formula = [[x(p, h) for h in range(holes)] for p in range(holes + 1)]
    for h in range(holes):
        for p, q in itertools.combinations(range(holes + 1), 2):
            formula.append([-x(p, h), -x(q, h)])
    return formula


@pytest.mark.timeout(120)
def test_cadical_proofs_of_unsatisfiable_formulas_are_accepted():
    rng = random.Random(1)
    refuted = 0
    for _ in range(40):
        formula = random_cnf(rng, 40, 190)
        sat, proof = solve(formula)
        if not sat:
            assert check_refutation(formula, proof) >= 1
            refuted += 1
    formula = pigeonhole(6)
    assert check_refutation(formula, solve(formula)[1]) > 10
    assert refuted >= 10


@pytest.mark.timeout(120)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_no_proof_refutes_a_satisfiable_formula(seed):
    """Planted faults: clauses dropped from a refuted formula until it has a model; its proof then fails."""
    rng = random.Random(seed)
    formula = random_cnf(rng, 20, 100)
    sat, proof = solve(formula)
    while sat:  # more clauses until none of its assignments is a model
        formula += random_cnf(rng, 20, 10)
        sat, proof = solve(formula)
    weakened = list(formula)
    while not solve(weakened)[0]:
        del weakened[rng.randrange(len(weakened))]
    with pytest.raises(ProofError):
        check_refutation(weakened, proof)
    flipped = list(proof)  # a lemma negated: still no refutation of a formula with a model
    place = rng.randrange(len(flipped))
    flipped[place] = " ".join(w if w in ("0", "d") else str(-int(w)) for w in flipped[place].split())
    with pytest.raises(ProofError):
        check_refutation(weakened, flipped)


#: Every clause over variables 1, 2 and 3: unsatisfiable, and no single literal propagates to a conflict.
PARITY = [[a, b, c] for a in (1, -1) for b in (2, -2) for c in (3, -3)]
#: A refutation of PARITY through 4 <-> -1: the two definitions are RAT on 4 and -4, not RUP.
EXTENDED = ["4 1 0", "-4 -1 0", "4 2 0", "4 -2 0", "4 0", "1 2 0", "1 -2 0", "1 0", "0"]


@pytest.mark.timeout(30)
def test_rat_clauses_that_the_refutation_needs_are_checked_as_rat():
    # neither "4 1" nor "-4 -1" is RUP (no single literal of PARITY propagates to a conflict);
    # "4 2" and "4 -2" are RUP through "4 1", and "0" through "4" and "-4 -1"
    assert check_refutation(PARITY, EXTENDED) == len(EXTENDED)
    wrong = [line if line != "-4 -1 0" else "-4 1 0" for line in EXTENDED]  # resolves with "4 1" to "1"
    with pytest.raises(ProofError, match="proof line 2: the clause \\[-4, 1\\] is neither RUP nor RAT"):
        check_refutation(PARITY, wrong)


@pytest.mark.timeout(30)
def test_a_deleted_clause_is_gone_unless_it_is_a_reason():
    formula = [[1, 2], [1, -2], [-1, 2], [-1, -2]]
    assert check_refutation(formula, ["1 0", "0"]) == 2
    with pytest.raises(ProofError, match="proof line 2: the clause \\[1\\] is neither RUP nor RAT"):
        check_refutation(formula, ["d 1 2 0", "1 0", "0"])
    # (-1 2) is the reason of 2 once 1 is a unit: deleting it is ignored, as DRAT-trim does,
    # and "3" stays RUP through 2 (then 5 and -5 conflict)
    formula = [[1], [-1, 2], [-2, 3, 4], [-2, 3, -4], [-3, 5], [-3, -5]]
    assert check_refutation(formula, ["d -1 2 0", "3 0", "0"]) == 2


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("proof", "message"),
    [
        (["1 2"], "proof line 1: a clause must end with a single 0"),
        (["1 x 0"], "proof line 1: expected integers ending with 0"),
        (["1 0 2 0"], "proof line 1: a clause must end with a single 0"),
        (["c a comment", "1 0"], "the proof ends without the empty clause"),
        ([], "the proof ends without the empty clause"),
    ],
)
def test_malformed_or_unfinished_proofs_are_rejected(proof, message):
    with pytest.raises(ProofError, match=message):
        check_refutation([[1, 2], [1, -2], [-1, 2], [-1, -2]], proof)
