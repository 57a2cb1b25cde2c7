"""The layers of the project hold: import-linter contracts, checked on the real tree and on a broken copy."""

import os
import re
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
    assert "7 kept, 0 broken" in result.stdout
    assert verdict(result.stdout, "Colouring folders, highest first") == "KEPT"


def plant(root: Path, module: str, line: str) -> None:
    """Append ``line`` (an import) to ``module`` (a path under ``src``) in a copy of the tree."""
    path = root / "src" / module
    path.write_text(path.read_text() + f"\n{line}  # noqa: E402, F401\n")


@pytest.mark.parametrize(
    ("module", "line", "contract", "arrow"),
    [
        (
            "backends/timing.py",
            "import bbqmis.coloring.pipeline",
            "Packages, highest first",
            "backends.timing -> bbqmis.coloring.pipeline",
        ),
        # the back-up arrow of the first architecture step: cutting built MIS circuits itself
        (
            "cutting/circuits.py",
            "from bbqmis.mis import qaoa",
            "Packages, highest first",
            "cutting.circuits -> bbqmis.mis",
        ),
        (
            "cutting/graphs.py",
            "from bbqmis.coloring import color_graph",
            "Packages, highest first",
            "cutting.graphs -> bbqmis.coloring",
        ),
        (
            "bbqmis/mis/problem.py",
            "from bbqmis import solver",
            "bbqmis folders, highest first",
            "bbqmis.mis.problem -> bbqmis.solver",
        ),
        (
            "bbqmis/coloring/classical/bounds.py",
            "from bbqmis.coloring.lp import master",
            "Colouring folders, highest first",
            "bbqmis.coloring.classical.bounds -> bbqmis.coloring.lp.master",
        ),
        (
            "bbqmis/coloring/lp/master.py",
            "from bbqmis.coloring.tree import tree",
            "Colouring folders, highest first",
            "bbqmis.coloring.lp.master -> bbqmis.coloring.tree.tree",
        ),
        (
            "backends/vqpu/client.py",
            "from backends.vqpu.server import store",
            "vQPU folders, highest first",
            "backends.vqpu.client -> backends.vqpu.server.store",
        ),
        (
            "backends/utils/validation.py",
            "import backends.registry",
            "backends.utils is the ground floor",
            "backends.utils.validation -> backends.registry",
        ),
    ],
)
def test_a_planted_back_up_import_breaks_its_contract(tree_copy, module, line, contract, arrow):
    plant(tree_copy, module, line)
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert verdict(result.stdout, contract) == "BROKEN"
    assert arrow in result.stdout


def verdict(report: str, contract: str) -> str:
    """KEPT or BROKEN: what import-linter's summary says of the contract whose name starts so."""
    summary = " ".join(report.split("Analyzed", 1)[1].split("Contracts:", 1)[0].split())
    return re.search(re.escape(contract) + r".*?\b(KEPT|BROKEN)\b", summary)[1]


def test_a_cycle_between_sibling_modules_breaks_the_acyclic_contract(tree_copy):
    plant(tree_copy, "bbqmis/coloring/result.py", "from . import pipeline")
    result = lint_imports(tree_copy)
    assert result.returncode == 1
    assert "No import cycle" in result.stdout and "BROKEN" in result.stdout
