"""A watched configuration file: parsed again when it changes, failing closed while unusable."""

import logging

import pytest

from backends.vqpu.server.watched_file import WatchedFile


def parse(text, source):
    if "bad" in text:
        raise ValueError(f"{source}, line 1: bad line")
    return text.split()


@pytest.fixture
def watched(tmp_path):
    path = tmp_path / "names"
    path.write_text("a b\n")
    return WatchedFile(path, parse, ("name file", "every name is refused", "names"))


def test_a_change_is_read_at_the_next_check(watched):
    watched.path.write_text("a b c\n")
    assert watched.problem() is None and watched.contents == ["a", "b", "c"]


def test_an_invalid_file_is_a_problem_and_the_last_contents_stay(watched):
    watched.path.write_text("bad\n")
    assert "name file" in watched.problem() and "line 1: bad line" in watched.problem()
    assert watched.contents == ["a", "b"]


def test_a_problem_and_the_recovery_are_logged_once_each(watched, caplog):
    caplog.set_level(logging.WARNING, "backends.vqpu")
    watched.path.unlink()
    for _ in range(3):
        assert watched.problem() is not None
    watched.path.write_text("c\n")
    assert watched.problem() is None and watched.problem() is None
    assert [record.levelname for record in caplog.records] == ["ERROR", "WARNING"]
    assert "usable again: 1 names" in caplog.records[-1].getMessage()


def test_an_unreadable_file_at_the_start_is_an_error(tmp_path):
    with pytest.raises(OSError):
        WatchedFile(tmp_path / "missing", parse, ("name file", "all refused", "names"))
    (tmp_path / "bad").write_text("bad\n")
    with pytest.raises(ValueError, match="bad line"):
        WatchedFile(tmp_path / "bad", parse, ("name file", "all refused", "names"))
