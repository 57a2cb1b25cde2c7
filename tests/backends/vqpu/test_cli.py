"""``python -m backends.vqpu``: help with examples, exit 2 with one line on bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from backends.vqpu.__main__ import main


def test_help_has_examples():
    result = subprocess.run(
        [sys.executable, "-m", "backends.vqpu", "serve", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "python -m backends.vqpu serve --backend aer --port 8765 --latency 0.05" in result.stdout
    assert "--token-file" in result.stdout and "--latency" in result.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "1"], "the following arguments are required: --backend"),
        (["serve", "--backend", "aer", "--port", "1", "--latency", "-1"], "must be >= 0 seconds, got -1"),
        (["serve", "--backend", "nope", "--port", "8765"], "unknown backend spec 'nope'"),
        (["serve", "--backend", "aer", "--port", "8765", "--token-file", "/nonexistent/t"], "No such file"),
        (["serve", "--backend", "aer", "--port", "70000"], "--port must be in 1..65535, got 70000"),
        (["report", "--db", "/nonexistent.sqlite"], "no accounting database at /nonexistent.sqlite"),
        (["probe", "--url", "localhost:1"], "must start with http:// or https://"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(argv))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
