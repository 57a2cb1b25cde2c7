"""``python -m bbqmis.check GRAPH CERT``: one line, exit 0 valid, 1 invalid, 2 unreadable."""

import importlib.metadata
import json
import subprocess
import sys

import pytest


def run_check(*args):
    return subprocess.run(
        [sys.executable, "-m", "bbqmis.check", *map(str, args)], capture_output=True, text=True, timeout=60
    )


@pytest.mark.timeout(60)
def test_a_valid_certificate_prints_ok_and_exits_0(certificate_of, tmp_path):
    graph, certificate = certificate_of("myciel5")
    cert = tmp_path / "myciel5.cert"
    cert.write_text(json.dumps(certificate))
    result = run_check(graph, cert)
    assert (result.returncode, result.stdout, result.stderr) == (0, "ok: chromatic number 6 proved\n", "")


@pytest.mark.timeout(60)
def test_an_invalid_certificate_prints_the_reason_and_exits_1(certificate_of, tmp_path):
    graph, certificate = certificate_of("myciel3")
    certificate["num_colors"] = 3  # a colour 3 is then out of range
    cert = tmp_path / "myciel3.cert"
    cert.write_text(json.dumps(certificate))
    result = run_check(graph, cert)
    assert result.returncode == 1 and result.stderr == ""
    (line,) = result.stdout.splitlines()
    assert line.startswith("invalid: vertex ") and line.endswith("not one of 0..2")


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "cannot read the certificate: Expecting property name"),
        ('{"format": "other", "version": 1}', "not a bbqmis-coloring-certificate (version 1)"),
        ("[1, 2]", "not a bbqmis-coloring-certificate (version 1)"),
    ],
)
def test_an_unreadable_certificate_exits_2_naming_the_file(certificate_of, tmp_path, content, message):
    graph, _ = certificate_of("myciel3")
    cert = tmp_path / "bad.cert"
    cert.write_text(content)
    result = run_check(graph, cert)
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"python -m bbqmis.check: error: {cert}: ") and message in line


@pytest.mark.timeout(60)
def test_an_unreadable_graph_exits_2_naming_the_file_and_line(tmp_path):
    graph = tmp_path / "g.col"
    graph.write_text("p edge 2 1\ne 1 2 3\n")
    result = run_check(graph, tmp_path / "missing.cert")
    assert result.returncode == 2
    assert result.stderr == f"python -m bbqmis.check: error: {graph} line 2: expected 'e U V'\n"
    result = run_check(tmp_path / "missing.col", tmp_path / "missing.cert")
    assert result.returncode == 2 and "missing.col: cannot read the graph: No such file" in result.stderr


@pytest.mark.timeout(60)
def test_usage_errors_exit_2_and_help_and_version_exit_0():
    assert run_check("only-one").returncode == 2
    usage = run_check("--help")
    assert usage.returncode == 0 and usage.stdout.startswith("usage: python -m bbqmis.check")
    assert run_check("--version").stdout == f"python -m bbqmis.check {importlib.metadata.version('bbqmis')}\n"
