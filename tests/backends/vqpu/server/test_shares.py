"""The account file, the fair-share factor, decayed usage and quotas per Slurm account."""

from __future__ import annotations

import math

import pytest

from backends import InvalidParameterError
from backends.vqpu.server.accounting import Ledger, Quotas, Usage
from backends.vqpu.server.shares import (
    AccountBook,
    AccountsUnavailableError,
    AccountTerms,
    DecayedUsage,
    fair_share_factors,
    parse_accounts,
)
from backends.vqpu.server.store import Store
from backends.vqpu.server.tokens import Caller


def test_the_account_file_gives_quotas_shares_and_a_default():
    terms = parse_accounts("# account seconds share\nphys 3600 0.5\nchem - 0.3\n\n* 60\n")
    assert terms == {
        "phys": AccountTerms(3600.0, 0.5),
        "chem": AccountTerms(None, 0.3),
        "*": AccountTerms(60.0, 1.0),
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("phys", "accounts.txt, line 1: expected 'account seconds [share]', got 1 fields"),
        ("phys 1 2 3", "accounts.txt, line 1: expected 'account seconds [share]', got 4 fields"),
        ("phys -5", "accounts.txt, line 1: seconds must be a finite number >= 0, got '-5'"),
        ("phys nan", "accounts.txt, line 1: seconds must be a finite number >= 0, got 'nan'"),
        ("phys 1 0", "accounts.txt, line 1: share must be a finite number > 0, got '0'"),
        ("phys 1 inf", "accounts.txt, line 1: share must be a finite number > 0, got 'inf'"),
        ("phys 1\n#\nphys 2", "accounts.txt, line 3: account 'phys' appears twice"),
    ],
)
def test_a_bad_line_is_named_with_its_file_and_number(text, message):
    with pytest.raises(ValueError) as info:
        parse_accounts(text, "accounts.txt")
    assert str(info.value) == message


def test_the_book_rereads_the_file_and_fails_closed(tmp_path):
    path = tmp_path / "accounts.txt"
    path.write_text("phys 100 2\n")
    book = AccountBook(path)
    assert book.terms("phys") == AccountTerms(100.0, 2.0)
    assert book.terms("chem") == AccountTerms(None, 1.0)  # not listed, no default line
    path.write_text("phys 100 2\nchem 5 1\n* 1 0.5\n")
    assert book.terms("chem") == AccountTerms(5.0, 1.0)
    assert book.terms("bio") == AccountTerms(1.0, 0.5)
    path.write_text("phys 100 2 extra\n")  # broken: refused, the shares stay the last valid ones
    assert "accounts.txt, line 1: expected" in book.problem()
    with pytest.raises(AccountsUnavailableError, match="every submission is refused"):
        book.terms("phys")
    assert book.share("phys") == 2.0
    path.unlink()
    assert book.problem() is not None
    path.write_text("phys 7\n")
    assert book.problem() is None
    assert book.terms("phys") == AccountTerms(7.0, 1.0)


def test_the_factor_is_two_to_the_minus_normalised_usage_over_normalised_share():
    usage, shares = {"a": 60.0, "b": 30.0, "c": 10.0}, {"a": 0.5, "b": 0.3, "c": 0.2}
    factors = fair_share_factors(usage, shares)
    for account in shares:
        assert factors[account] == pytest.approx(2 ** (-(usage[account] / 100.0) / shares[account]))
    # the same ratios with other units: only the normalised values count
    scaled = fair_share_factors({k: 7 * v for k, v in usage.items()}, {k: 10 * v for k, v in shares.items()})
    assert scaled == pytest.approx(factors)
    # usage equal to the share is 0.5, none is 1, all of it with a small share is near 0
    assert fair_share_factors({"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 1.0}) == {"a": 0.5, "b": 0.5}
    assert fair_share_factors({"b": 5.0}, {"a": 1.0, "b": 1.0})["a"] == 1.0
    assert fair_share_factors({"a": 9.0}, {"a": 0.1, "b": 0.9})["a"] == 2.0**-10


def test_usage_counts_half_after_each_half_life():
    usage = DecayedUsage(half_life=100.0)
    usage.charge("a", 64.0, now=1000.0)
    usage.charge("b", 8.0, now=1100.0)
    assert usage.at(now=1100.0) == {"a": 32.0, "b": 8.0}
    assert usage.at(now=1300.0) == pytest.approx({"a": 8.0, "b": 2.0})
    assert usage.at(now=1200.0) == pytest.approx({"a": 8.0, "b": 2.0})  # a clock that steps back
    assert usage.at(now=1300.0 + 100.0 * 40) == {}  # decayed away: forgotten
    with pytest.raises(InvalidParameterError, match="half_life"):
        DecayedUsage(half_life=0.0)
    with pytest.raises(InvalidParameterError, match="half_life"):
        DecayedUsage(half_life=math.inf)


def account_quotas(tmp_path, text):
    path = tmp_path / "accounts.txt"
    path.write_text(text)
    return path, Quotas(accounts=AccountBook(path))


def test_an_account_over_its_quota_is_refused_with_the_figures(tmp_path):
    _, quotas = account_quotas(tmp_path, "phys 10\nchem - 2\n")
    ledger = Ledger()
    ledger.charge(Caller("41", "ann", "phys"), Usage(quantum_seconds=6.0))
    assert quotas.refusal(Caller("42", "bob", "phys"), ledger) is None
    ledger.charge(Caller("42", "bob", "phys"), Usage(quantum_seconds=4.5))
    refusal = "account 'phys' used 10.5 quantum seconds, the account's quota is 10 s"
    assert quotas.refusal(Caller("43", "cy", "phys"), ledger) == refusal  # any job of the account
    assert quotas.refusal(Caller("44", "ann", "chem"), ledger) is None  # no quota ('-')
    assert quotas.refusal(Caller("45", "dee", "bio"), ledger) is None  # not listed, no '*' line
    assert quotas.refusal(Caller("job-a", "ann"), ledger) is None  # no Slurm account


def test_the_default_line_limits_every_account_not_listed(tmp_path):
    _, quotas = account_quotas(tmp_path, "phys 10\n* 1\n")
    ledger = Ledger([(Caller("7", "ann", "bio"), Usage(quantum_seconds=1.0))])
    assert quotas.refusal(Caller("8", "bob", "bio"), ledger) == (
        "account 'bio' used 1 quantum seconds, the account's quota is 1 s"
    )
    assert quotas.refusal(Caller("9", "bob", "phys"), ledger) is None


def test_an_unusable_account_file_refuses_every_account_and_says_why(tmp_path):
    path, quotas = account_quotas(tmp_path, "phys 10\n")
    assert quotas.unavailable() is None
    path.write_text("phys ten\n")
    assert "line 1: seconds must be a finite number >= 0, got 'ten'" in quotas.unavailable()
    assert "every submission is refused" in quotas.refusal(Caller("1", "ann", "phys"), Ledger())
    assert Quotas().unavailable() is None


def test_quotas_with_an_account_file_still_show_only_job_and_user_quotas(tmp_path):
    from dataclasses import asdict

    _, quotas = account_quotas(tmp_path, "phys 10\n")
    assert asdict(quotas) == {"job_seconds": None, "user_seconds": None}
    assert quotas.account_book is not None and Quotas().account_book is None


def test_a_restarted_ledger_sums_each_account_from_the_store(tmp_path):
    store = Store(tmp_path / "vqpu.sqlite")
    try:
        for number, (job, account, seconds) in enumerate(
            [("41", "phys", 1.5), ("42", "phys", 2.0), ("43", "chem", 0.25), ("44", "", 1.0)]
        ):
            batch, _ = store.accept(
                job=job,
                user="ann",
                key=f"k{number}",
                payload=b"qpy",
                circuits=1,
                qubits=1,
                shots=10,
                seed=None,
                submitted=1.0,
                account=account,
            )
            store.start(batch.id, started=2.0)
            store.finish(batch.id, ended=3.0, quantum_seconds=seconds, counts=[{"0": 10}])
        store.accept(
            job="45",
            user="bob",
            key="q",
            payload=b"qpy",
            circuits=1,
            qubits=1,
            shots=1,
            seed=None,
            submitted=4.0,
            account="phys",
        )  # queued: not charged yet
        ledger = Ledger.of_store(store)
        assert {name: u.quantum_seconds for name, u in ledger.accounts.items()} == {
            "phys": 3.5,
            "chem": 0.25,
            "": 1.0,
        }
        assert ledger.accounts["phys"].batches == 2 and ledger.account_seconds("phys") == 3.5
        assert [q.account for q in store.queued()] == ["phys"]
    finally:
        store.close()
