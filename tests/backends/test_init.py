"""The ``backends`` package: its public names, its place as the lowest layer, and its test layout."""

import ast
import pathlib

import backends

PACKAGE = pathlib.Path(backends.__file__).parent
TESTS = pathlib.Path(__file__).parent


def test_every_public_name_is_importable():
    assert len(backends.__all__) == len(set(backends.__all__))
    for name in backends.__all__:
        assert getattr(backends, name) is not None, name


def test_backends_is_the_lowest_layer():
    imported = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
    assert {"backends", "qiskit", "fastapi"} <= imported  # the walk saw the subpackage too
    assert imported.isdisjoint({"bbqmis", "cutting", "clustagg"})


def _test_file_name(module):
    """``aer`` -> ``test_aer.py``; dunder modules lose their underscores: ``__init__`` -> ``test_init.py``."""
    if module.startswith("__") and module.endswith("__"):
        module = module.strip("_")
    return f"test_{module}.py"


def test_every_module_has_a_test_module():
    missing = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (TESTS / path.parent.relative_to(PACKAGE) / _test_file_name(path.stem)).is_file()
    ]
    assert missing == []
