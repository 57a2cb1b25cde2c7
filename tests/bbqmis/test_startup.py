"""Start-up: ``python -m bbqmis --version``/``--help`` import none of the search, and the lazy names resolve.

Timing belongs in ``benchmarks/startup.py``; these tests check what is imported and printed.
"""

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

import bbqmis
from bbqmis import coloring

GRAPH = Path(__file__).resolve().parents[2] / "data" / "graphs" / "myciel4.col"
HEAVY = ("matplotlib", "qiskit", "networkx", "numpy", "scipy", "rich")


def imported_after(code: str) -> list[str]:
    """The HEAVY packages in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    return sorted(loaded & set(HEAVY))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("module", ["bbqmis", "bbqmis.coloring", "bbqmis.coloring.cli", "bbqmis.check"])
def test_importing_the_command_line_loads_no_heavy_package(module):
    assert imported_after(f"import {module}") == []


@pytest.mark.timeout(60)
def test_version_and_help_parse_without_the_search():
    code = (
        "from bbqmis.coloring.cli import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--version']) == 0 and main(['--help']) == 0"
    )
    assert imported_after(code) == []


@pytest.mark.timeout(60)
def test_python_m_bbqmis_version_and_help_print_what_they_should():
    def run(*args):
        command = [sys.executable, "-m", "bbqmis", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    version = run("--version")
    assert version.returncode == 0
    assert version.stdout == f"python -m bbqmis {importlib.metadata.version('bbqmis')}\n"
    usage = run("--help")
    assert usage.returncode == 0 and usage.stdout.startswith("usage: python -m bbqmis")
    assert "--certificate FILE" in usage.stdout
    assert "--sampler {qaoa,exact,greedy,random,anneal}" in usage.stdout


@pytest.mark.timeout(30)
def test_lazy_names_resolve_and_unknown_ones_raise():
    from bbqmis.coloring.result import ColoringResult
    from bbqmis.mis.graphio import read_graph

    assert bbqmis.read_graph is read_graph and bbqmis.ColoringResult is ColoringResult
    assert bbqmis.__version__ == importlib.metadata.version("bbqmis")
    assert set(bbqmis.__all__) <= set(dir(bbqmis))
    with pytest.raises(AttributeError, match="module 'bbqmis' has no attribute 'nonsense'"):
        _ = bbqmis.nonsense
    with pytest.raises(AttributeError, match="module 'bbqmis.coloring' has no attribute 'nonsense'"):
        _ = coloring.nonsense


@pytest.mark.timeout(60)
@pytest.mark.parametrize("sampler", ["exact", "anneal", "greedy"])
def test_a_run_whose_sampler_runs_no_circuit_imports_no_quantum_stack(sampler):
    code = (
        "from bbqmis.coloring.cli import main\n"
        f"assert main([{str(GRAPH)!r}, '--sampler', '{sampler}', '--quiet', '--seed', '1']) == 0"
    )
    loaded = imported_after(code)
    assert "qiskit" not in loaded and "matplotlib" not in loaded
    assert {"networkx", "numpy"} <= set(loaded)  # the run did colour the graph
