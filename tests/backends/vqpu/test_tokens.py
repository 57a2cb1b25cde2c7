"""Per-job tokens: file format, errors naming file and line, reloading while serving."""

from __future__ import annotations

import logging
import os

import pytest

from backends.vqpu.tokens import TokenBook, parse_tokens


def test_parse_skips_blank_lines_and_comments():
    text = "# name token\n\njob-a secret-a\n   \n  # indented comment\njob-b   secret-b  \n"
    assert parse_tokens(text) == {"secret-a": "job-a", "secret-b": "job-b"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("job-a secret-a\njob-b\n", "tokens.txt, line 2: expected 'name token', got 1 fields"),
        ("job-a secret-a extra\n", "tokens.txt, line 1: expected 'name token', got 3 fields"),
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
    with pytest.raises(ValueError, match=r"^.*tokens\.txt, line 2: expected 'name token', got 1 fields$"):
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
    assert (book.name_of("secret-a"), book.name_of("secret-c")) == ("job-a", None)

    _rewrite(path, "job-a secret-a\njob-c secret-c\n", 10**18 + 10**9)
    assert book.name_of("secret-c") == "job-c"

    path.write_text("job-z secret-z\n")
    os.utime(path, ns=(10**18 + 10**9, 10**18 + 10**9))  # same time as before: not read again
    assert book.name_of("secret-z") is None and book.name_of("secret-c") == "job-c"


def test_a_broken_file_keeps_the_tokens_read_before(tmp_path, caplog):
    path = tmp_path / "tokens.txt"
    _rewrite(path, "job-a secret-a\n", 10**18)
    book = TokenBook(path)

    _rewrite(path, "job-a secret-a\nhalf-line\n", 10**18 + 10**9)
    with caplog.at_level(logging.ERROR, logger="backends.vqpu"):
        assert book.name_of("secret-a") == "job-a"
    assert "token file not reloaded" in caplog.text and "line 2" in caplog.text

    path.unlink()
    assert book.name_of("secret-a") == "job-a"  # a vanished file does not lock everybody out
