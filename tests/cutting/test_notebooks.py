"""The cutting notebooks run top to bottom, and their checks of the key results run with them."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parents[2] / "notebooks").glob("cutting_*.ipynb"))


def checking_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The code cells holding an ``assert`` statement."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return [cell for cell in code if any(line.startswith("assert ") for line in cell.source.splitlines())]


def test_every_notebook_checks_its_results():
    assert NOTEBOOKS
    for path in NOTEBOOKS:
        assert len(checking_cells(nbformat.read(path, as_version=4))) >= 2, path.name


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom_and_passes_its_checks(path):
    notebook = nbformat.read(path, as_version=4)
    for cell in checking_cells(notebook):
        cell.execution_count = None  # the stored counts must not pass for this run's
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()  # a failing assert raises CellExecutionError here
    checks = checking_cells(notebook)
    assert checks and all(cell.execution_count is not None for cell in checks)
    assert not any(output.output_type == "error" for cell in checks for output in cell.outputs)
