"""The vQPU command line's options: every group present, defaults as documented, ranges refused."""

import argparse

import pytest

from backends.vqpu.options import (
    add_maintenance_arguments,
    add_probe_arguments,
    add_report_arguments,
    add_serve_arguments,
)
from backends.vqpu.server.limits import Limits


class Refused(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Refused(message)


def parsed(add, *argv):
    parser = Parser()
    add(parser)
    return parser.parse_args(list(argv))


def test_serve_defaults_are_the_limits_defaults():
    args = parsed(add_serve_arguments, "--backend", "null", "--port", "1")
    assert (args.max_queue, args.max_circuits) == (Limits.max_queue, Limits.max_circuits)
    assert args.batches_per_share is None and args.slurm_auth is False and args.insecure_open is False
    assert (args.host, args.policy, args.slurm_resource, args.slurm_poll) == (
        "127.0.0.1",
        "fifo",
        "vqpu",
        1.0,
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "0"], "--port: must be an integer in [1, 65535], got '0'"),
        (["--port", "1", "--batches-per-share", "0"], "--batches-per-share: must be an integer"),
        (["--port", "1", "--slurm-poll", "0"], "--slurm-poll: must be a number in [0.05, 60]"),
    ],
)
def test_serve_refuses_values_out_of_range(argv, message):
    with pytest.raises(Refused, match=message.replace("[", r"\[").replace("]", r"\]")):
        parsed(add_serve_arguments, "--backend", "null", *argv)


def test_the_access_options_form_their_own_help_group():
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    groups = {group.title: [a.dest for a in group._group_actions] for group in parser._action_groups}
    access = next(dests for title, dests in groups.items() if title and title.startswith("access"))
    assert {"tls_cert", "tls_key", "slurm_auth", "insecure_open", "instance"} <= set(access)


def test_report_probe_and_maintenance_parse_their_arguments():
    assert parsed(add_report_arguments, "--db", "v.sqlite").db == "v.sqlite"
    assert parsed(add_probe_arguments, "--url", "https://localhost:1", "--shots", "7").shots == 7
    assert parsed(add_maintenance_arguments, "off", "--db", "v.sqlite").db == "v.sqlite"
