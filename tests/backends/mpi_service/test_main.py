"""The command line: serve, probe, shutdown; bad input is one line and status 2."""

import json
import subprocess
import sys

import pytest

from .conftest import SERVE


@pytest.mark.mpi
@pytest.mark.timeout(120)
def test_probe_says_goodbye_at_exit_so_the_service_stops(env):
    probe = [sys.executable, "-m", "backends.mpi_service", "probe", "--backend", "mpi:world", "--shots", "64"]
    done = subprocess.run(
        ["mpiexec", "-n", "1", *probe, ":", "-n", "1", *SERVE],
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    probed = next(line for line in lines if "counts" in line)
    assert set(probed["counts"]) <= {"000", "111"} and sum(probed["counts"].values()) == 64
    assert next(line for line in lines if "stopped" in line)["stopped"] == "goodbye"


@pytest.mark.parametrize("arguments", [["serve"], ["serve", "--backend", "aer", "--clients", "x"], ["stop"]])
def test_cli_bad_input_is_one_line_and_status_2(arguments, env):
    done = subprocess.run(
        [sys.executable, "-m", "backends.mpi_service", *arguments], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "error:" in done.stderr


def test_cli_bad_backend_spec_is_one_line_and_status_2(env):
    done = subprocess.run([*SERVE[:-1], "nonsense", "--name", "q"], env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "python -m backends.mpi_service: error: " + done.stderr.split("error: ", 1)[1].strip()
    ]
    assert "unknown backend spec 'nonsense'" in done.stderr


def test_every_subcommand_help_shows_defaults_and_keeps_its_examples_verbatim():
    import argparse

    from backends.mpi_service.__main__ import build_parser

    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for name, command in commands.choices.items():
        for action in command._actions:
            if action.option_strings and action.default not in (None, False, argparse.SUPPRESS):
                assert "default" in (action.help or ""), (name, action.option_strings)
        assert "\n  srun --het-group=1 python -m backends.mpi_service serve" in command.format_help(), name
