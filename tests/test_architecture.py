"""The layers of the project hold: import-linter contracts, checked on the real tree and on a broken copy."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = [
    sys.executable,
    "-c",
    "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """Run import-linter with ``root``'s pyproject on the packages under ``root / "src"``."""
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run(
        [*LINT_IMPORTS, "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def tree_copy(tmp_path):
    """A copy of ``src/`` and ``pyproject.toml`` that a test may break."""
    shutil.copytree(
        ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_contracts_hold_on_the_tree():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_a_lower_layer_importing_a_higher_one_breaks_the_layers_contract(tree_copy):
    module = tree_copy / "src" / "backends" / "timing.py"
    module.write_text(module.read_text() + "\nimport bbqmis.coloring.search  # noqa: E402, F401\n")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "Layers, highest first" in result.stdout and "BROKEN" in result.stdout
    assert "backends.timing -> bbqmis.coloring.search" in result.stdout


def test_cutting_importing_the_colouring_search_breaks_the_layers_contract(tree_copy):
    module = tree_copy / "src" / "cutting" / "graphs.py"
    module.write_text(module.read_text() + "\nfrom bbqmis.coloring import color_graph  # noqa: E402, F401\n")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "cutting.graphs -> bbqmis.coloring" in result.stdout


def test_a_cycle_between_sibling_modules_breaks_the_acyclic_contract(tree_copy):
    module = tree_copy / "src" / "bbqmis" / "coloring" / "result.py"
    module.write_text(module.read_text() + "\nfrom . import search  # noqa: E402, F401\n")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "No import cycle" in result.stdout and "BROKEN" in result.stdout
