"""The ``bbqmis.coloring`` package: public names, a docstring that lists it, tests that mirror it, layers."""

import ast
import pathlib
import re

import pytest

import bbqmis
import bbqmis.coloring

PACKAGE = pathlib.Path(bbqmis.coloring.__file__).parent
TESTS = pathlib.Path(__file__).parent
SUBPACKAGES = ["classical", "lp", "tree"]
#: Highest first: a module may import its own layer and those below it, never one above.
LAYERS = [
    {"cli", "options", "plot", "report", "certificate"},
    {"pipeline"},
    {"phases"},
    {"component"},
    {"tree"},
    {"lp"},
    {"classical"},
    {"limits", "result", "samplers", "errors"},
]


def listed_modules(package: str, doc: str) -> set[str]:
    return set(re.findall(rf":mod:`~?{re.escape(package)}\.(\w+)`", doc))


def test_every_public_name_is_importable_from_the_package_and_from_bbqmis():
    assert len(bbqmis.coloring.__all__) == len(set(bbqmis.coloring.__all__))
    for name in bbqmis.coloring.__all__:
        assert getattr(bbqmis.coloring, name) is not None, name
    for name in ["color_graph", "ColoringResult", "SearchError", "get_sampler", "QAOASampler"]:
        assert getattr(bbqmis, name) is getattr(bbqmis.coloring, name), name


def test_the_docstring_lists_every_module_and_subpackage():
    modules = {path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("__")}
    assert listed_modules("bbqmis.coloring", bbqmis.coloring.__doc__) == modules | set(SUBPACKAGES)


def test_every_module_has_a_test_module():
    missing = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if not (TESTS / path.parent.relative_to(PACKAGE) / f"test_{path.stem.strip('_')}.py").is_file()
    ]
    assert missing == []


def layer_of(module: str) -> int:
    return next(i for i, names in enumerate(LAYERS) if module.split(".")[0] in names)


def imported(path: pathlib.Path) -> set[str]:
    """The modules of bbqmis.coloring that ``path`` imports, relative to the package."""
    relative = path.relative_to(PACKAGE).with_suffix("").parts
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(relative[: len(relative) - node.level])
            target = [*base, *(node.module.split(".") if node.module else [])]
            if target and target[0] not in ("mis", "samples", "solver"):
                names.add(".".join(target))
    return {name for name in names if not name.startswith(("mis", "samples", "solver"))}


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "__init__.py" or p.parent != PACKAGE],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_module_imports_a_higher_layer(path):
    own = layer_of(".".join(path.relative_to(PACKAGE).with_suffix("").parts))
    above = {name for name in imported(path) if layer_of(name) < own}
    assert above == set()
