"""Per-job tokens: file format, errors naming file and line, reloading while serving, failing closed."""

from __future__ import annotations

import logging
import os

import pytest

from backends.vqpu.server.tokens import Caller, TokenBook, TokensUnavailableError, parse_tokens


def test_parse_skips_blank_lines_and_comments():
    text = "# name token\n\njob-a secret-a\n   \n  # indented comment\njob-b   secret-b  \n"
    assert parse_tokens(text) == {"secret-a": Caller("job-a", "job-a"), "secret-b": Caller("job-b", "job-b")}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("job-a secret-a\njob-b\n", "tokens.txt, line 2: expected 'name token [user]', got 1 fields"),
        ("job-a secret-a alice x\n", "tokens.txt, line 1: expected 'name token [user]', got 4 fields"),
        ("job-a same\njob-b same\n", "tokens.txt, line 2: name or token 'job-b' appears twice"),
        ("job-a one\njob-a two\n", "tokens.txt, line 2: name or token 'job-a' appears twice"),
    ],
)
def test_parse_errors_name_file_and_line(text, message):
    with pytest.raises(ValueError) as info:
        parse_tokens(text, "tokens.txt")
    assert str(info.value) == message


def test_token_book_errors_name_the_file(tmp_path):
    bad = tmp_path / "tokens.txt"
    bad.write_text("job-a secret-a\njob-b\n")
    with pytest.raises(
        ValueError, match=r"^.*tokens\.txt, line 2: expected 'name token \[user\]', got 1 fields$"
    ):
        TokenBook(bad)
    with pytest.raises(FileNotFoundError):
        TokenBook(tmp_path / "missing.txt")


def _rewrite(path, text, stamp):
    """Write ``text`` and give the file a distinct modification time ``stamp`` (ns)."""
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))


def test_tokens_are_reloaded_when_the_file_changes(tmp_path):
    path = tmp_path / "tokens.txt"
    _rewrite(path, "job-a secret-a\n", 10**18)
    book = TokenBook(path)
    assert (name_of(book, "secret-a"), name_of(book, "secret-c")) == ("job-a", None)

    _rewrite(path, "job-a secret-a\njob-c secret-c\n", 10**18 + 10**9)
    assert name_of(book, "secret-c") == "job-c"

    _rewrite(path, "job-z secret-z\n", 10**18 + 10**9)  # same time, other size: read again
    assert name_of(book, "secret-z") == "job-z" and name_of(book, "secret-c") is None


def test_unicode_names_are_read_as_utf8(tmp_path):
    path = tmp_path / "tokens.txt"
    path.write_bytes("jöb-ä sécret-ä\n".encode())
    assert name_of(TokenBook(path), "sécret-ä") == "jöb-ä"


@pytest.mark.parametrize(
    ("breakage", "reason"),
    [
        (lambda path: path.write_text("job-a secret-a\nhalf-line\n"), "line 2: expected 'name token [user]'"),
        (lambda path: path.unlink(), "No such file"),
        (lambda path: path.write_bytes(b"job-a \xff\xfe\n"), "codec can't decode"),
        (lambda path: (path.unlink(), path.mkdir()), "Is a directory"),
    ],
    ids=["malformed", "deleted", "not-utf8", "directory"],
)
def test_a_broken_file_revokes_every_token_until_fixed(tmp_path, caplog, breakage, reason):
    path = tmp_path / "tokens.txt"
    _rewrite(path, "job-a secret-a\njob-b secret-b\n", 10**18)
    book = TokenBook(path)
    assert name_of(book, "secret-a") == "job-a"

    breakage(path)
    with caplog.at_level(logging.WARNING, logger="backends.vqpu"):
        for token in ("secret-a", "secret-b", "secret-a", "nope"):
            with pytest.raises(TokensUnavailableError, match="every token is refused until it is fixed"):
                name_of(book, token)
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1 and reason in errors[0].getMessage()  # logged once, not per request

        if path.is_dir():
            path.rmdir()
        _rewrite(path, "job-a secret-a\n", 10**18 + 10**9)
        assert (name_of(book, "secret-a"), name_of(book, "secret-b")) == ("job-a", None)
    assert "usable again: 1 tokens" in caplog.text


def test_each_new_problem_is_logged_once(tmp_path, caplog):
    path = tmp_path / "tokens.txt"
    path.write_text("job-a secret-a\n")
    book = TokenBook(path)
    with caplog.at_level(logging.ERROR, logger="backends.vqpu"):
        path.write_text("a\n")
        for _ in range(3):
            with pytest.raises(TokensUnavailableError):
                name_of(book, "secret-a")
        path.unlink()
        for _ in range(3):
            with pytest.raises(TokensUnavailableError):
                name_of(book, "secret-a")
    assert [r.getMessage().split(": ", 1)[1][:20] for r in caplog.records] == [
        f"{path}, line 1"[:20],
        "[Errno 2] No such fi",
    ]


def name_of(book, token):
    """The job name of ``token`` in ``book``, or None."""
    caller = book.caller_of(token)
    return None if caller is None else caller.job


def test_a_third_field_names_the_user_billed():
    text = "job-a secret-a alice\njob-b secret-b alice\njob-c secret-c"
    assert parse_tokens(text) == {
        "secret-a": Caller("job-a", "alice"),
        "secret-b": Caller("job-b", "alice"),
        "secret-c": Caller("job-c", "job-c"),
    }
