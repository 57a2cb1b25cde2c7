import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import clustagg
from clustagg import runner

SOURCE = Path(clustagg.__file__).parent


def imported_modules(path):
    """Absolute names of the modules a source file imports (relative ones resolved in clustagg)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names.add(f"clustagg.{base}".rstrip(".") if node.level else base)
    return names


def test_public_api():
    assert len(set(clustagg.__all__)) == len(clustagg.__all__)
    for name in clustagg.__all__:
        assert getattr(clustagg, name) is not None
    for name in (
        "run",
        "MODES",
        "AggregationResult",
        "Timeline",
        "StepInputError",
        "get_solver",
        "QAOASolver",
    ):
        assert name in clustagg.__all__
    assert clustagg.run is runner.run and clustagg.MODES == ("baseline", "malleable", "workflow")
    assert clustagg.AggregationResult is runner.AggregationResult and clustagg.Timeline is runner.Timeline


@pytest.mark.parametrize("path", sorted(SOURCE.glob("*.py")), ids=lambda p: p.name)
def test_layers(path):
    for name in imported_modules(path):
        top = name.split(".")[0]
        assert not name.startswith("bbqmis.coloring"), (
            f"{path.name} imports {name}: coloring is not a layer below"
        )
        if top in ("backends", "bbqmis", "cutting"):
            assert not any(part.startswith("_") for part in name.split(".")), (
                f"{path.name} imports private {name}"
            )


@pytest.mark.slow
def test_import_initialises_no_mpi_and_skips_coloring():
    code = (
        "import sys, json, clustagg, clustagg.cli; "
        "print(json.dumps([m in sys.modules for m in ('mpi4py.MPI', 'bbqmis.coloring')]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [False, False]
