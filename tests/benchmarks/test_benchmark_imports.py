"""The benchmark scripts import each other in one direction only: no cycle among ``benchmarks/*.py``."""

import ast
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
#: Top-level packages of src: ``import cutting`` in a script means the package, not benchmarks/cutting.py
#: (the scripts that import one take their own folder off ``sys.path`` first).
PACKAGES = {p.name for p in (ROOT / "src").iterdir() if (p / "__init__.py").is_file()}


def imported_names(source: str) -> set[str]:
    """Top-level module names ``source`` imports anywhere (inside functions too), or loads by file name.

    A script loaded by path (``spec_from_file_location(..., ROOT / "benchmarks" / "x.py")``)
    counts as imported under its stem.
    """
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "spec_from_file_location":
            names.update(
                Path(part.value).stem
                for arg in node.args
                for part in ast.walk(arg)
                if isinstance(part, ast.Constant) and str(part.value).endswith(".py")
            )
    return names


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Script stem -> the scripts of ``folder`` it imports (itself and names of src packages left out)."""
    scripts = {path.stem: path for path in folder.glob("*.py")}
    targets = scripts.keys() - PACKAGES
    return {
        name: (imported_names(path.read_text(encoding="utf-8")) & targets) - {name}
        for name, path in scripts.items()
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as ``[a, b, ..., a]``, or None when it has none (depth-first search)."""
    state: dict[str, str] = {}  # "open" while on the current path, "done" once fully explored
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for child in sorted(graph.get(node, ())):
            if state.get(child) == "open":
                return path[path.index(child) :] + [child]
            if child not in state and (cycle := visit(child)) is not None:
                return cycle
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_find_cycle_on_small_graphs():
    assert find_cycle({}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) is None  # a diamond
    assert find_cycle({"a": {"a"}}) == ["a", "a"]
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"x": {"a"}, "a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_imported_names_sees_lazy_imports_and_scripts_loaded_by_path():
    source = (
        "import os, json as j\nfrom a.b import c\nfrom . import d\n"
        "def f():\n    from vqpu_paper import table\n"
        "spec = importlib.util.spec_from_file_location('m', ROOT / 'benchmarks' / 'robustness.py')\n"
    )
    assert imported_names(source) == {"os", "json", "a", "vqpu_paper", "robustness"}


def test_the_graph_sees_the_known_imports():
    graph = import_graph(BENCHMARKS)
    assert {"_vqpu_common", "vqpu_paper"} <= graph["vqpu_multiplexing"]
    assert "_graphs" in graph["coloring"]
    assert "cutting" not in set().union(*graph.values())  # ``import cutting`` is the package


def test_no_cycle_among_the_benchmark_scripts():
    assert find_cycle(import_graph(BENCHMARKS)) is None


def test_a_cycle_planted_in_a_copy_is_seen(tmp_path):
    copy = tmp_path / "benchmarks"
    shutil.copytree(BENCHMARKS, copy, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    paper = copy / "vqpu_paper.py"
    paper.write_text(paper.read_text() + "\n\ndef planted():\n    import vqpu_multiplexing  # noqa: F401\n")
    cycle = find_cycle(import_graph(copy))
    assert cycle is not None and {"vqpu_paper", "vqpu_multiplexing"} <= set(cycle)
