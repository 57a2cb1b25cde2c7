"""The ``bbqmis.coloring.classical`` package: its docstring lists its modules, none imports a higher layer."""

import pathlib
import re

import bbqmis.coloring.classical as package

FOLDER = pathlib.Path(package.__file__).parent


def test_docstring_lists_every_module():
    listed = set(re.findall(r":mod:`~?bbqmis\.coloring\.classical\.(\w+)`", package.__doc__))
    assert listed == {path.stem for path in FOLDER.glob("*.py") if not path.stem.startswith("__")}


def test_no_module_imports_a_higher_layer():
    higher = re.compile(r"^\s*from \.\.(?:lp|tree|cli|component)\b", re.M)
    offenders = [path.name for path in FOLDER.glob("*.py") if higher.search(path.read_text())]
    assert offenders == []
