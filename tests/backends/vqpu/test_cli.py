"""``python -m backends.vqpu``: help with examples, exit 2 with one line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from vqpu_helpers import serve

from backends import TimingRecord
from backends.vqpu.cli import build_parser, main
from backends.vqpu.server.limits import Limits
from backends.vqpu.server.store import read_batches


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
        (
            ["serve", "--backend", "aer", "--port", "1", "--latency", "-1"],
            "must be a number in [0, 1000000000], got '-1'",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-wait", "nan"],
            "--max-wait: must be a number in",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-shots", "1e3"],
            "--max-shots: must be an integer in",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-head-bytes", "-1"],
            f"argument --max-head-bytes: must be an integer in [1, {2**63 - 1}], got '-1'",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-head-bytes", "64KiB"],
            f"argument --max-head-bytes: must be an integer in [1, {2**63 - 1}], got '64KiB'",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-head-bytes", "1.5"],
            "--max-head-bytes: must be an integer in",
        ),
        (
            ["probe", "--url", "http://127.0.0.1:1", "--sleep-factor", "inf"],
            "--sleep-factor: must be a number in",
        ),
        (["serve", "--backend", "nope", "--port", "8765"], "unknown backend spec 'nope'"),
        (["serve", "--backend", "aer", "--port", "8765", "--token-file", "/nonexistent/t"], "No such file"),
        (
            ["serve", "--backend", "aer", "--port", "70000"],
            "--port: must be an integer in [1, 65535], got '70000'",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-read-seconds", "0"],
            "--max-read-seconds: must be a number in [0.001, 1000000000], got '0'",
        ),
        (
            ["serve", "--backend", "aer", "--port", "1", "--max-decode-seconds", "inf"],
            "must be a number in [0.001",
        ),
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


def test_serve_defaults_match_the_server_limits():
    args = build_parser().parse_args(["serve", "--backend", "aer", "--port", "8765"])
    limits = Limits()
    assert (args.host, args.db, args.latency, args.threads, args.token_file) == (
        "127.0.0.1",
        "vqpu.sqlite",
        0.0,
        1,
        None,
    )
    assert args.max_shots is None  # Limits().max_shots, or the backend's own limit if lower
    assert (args.max_payload, args.max_head_bytes, args.max_circuits, args.max_queue, args.max_qubits) == (
        limits.max_payload_bytes,
        limits.max_head_bytes,
        limits.max_circuits,
        limits.max_queue,
        limits.max_qubits,
    )
    assert (args.max_clbits, args.max_instructions, args.max_decode_bytes, args.max_connections) == (
        limits.max_clbits,
        limits.max_instructions,
        limits.max_decode_bytes,
        limits.max_connections,
    )
    assert (args.max_decode_seconds, args.max_read_seconds, args.docs) == (
        limits.max_decode_seconds,
        limits.max_read_seconds,
        False,
    )


@pytest.mark.parametrize(
    "option",
    ["--max-shots", "--max-queue", "--max-instructions", "--max-connections", "--max-head-bytes", "--repeat"],
)
def test_counts_must_be_positive(option, capsys):
    command = "probe --url http://127.0.0.1:1" if option == "--repeat" else "serve --backend aer --port 1"
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([*command.split(), option, "0"])
    assert exit_info.value.code == 2
    assert f"argument {option}: must be an integer in [1, {2**63 - 1}], got '0'" in capsys.readouterr().err


def test_probe_prints_counts_and_timing_records(physical, tmp_path, capsys):
    with serve(physical, tmp_path / "db.sqlite") as (_, url):
        code = main(["probe", "--url", url, "--shots", "32", "--qubits", "3", "--repeat", "2", "--seed", "4"])
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["backend"] == f"vqpu:{url}"
    assert [sum(counts.values()) for counts in printed["counts"]] == [32, 32]
    assert all(set(counts) <= {"000", "111"} for counts in printed["counts"])
    records = [TimingRecord.from_json(timing) for timing in printed["timings"]]
    assert [(r.circuits, r.shots) for r in records] == [(1, 32), (1, 32)]
    assert [b.shots for b in read_batches(tmp_path / "db.sqlite")] == [32, 32]


def test_help_shows_the_default_of_every_option_that_has_one():
    import argparse

    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in commands.choices.items():
        for action in command._actions:
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert "default" in (action.help or ""), (name, action.option_strings)
        assert "examples:" in command.format_help(), name
