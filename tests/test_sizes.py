"""The house stays readable: no module in ``src/`` over 600 lines, no function body over 60
lines (docstrings excluded), and no build product, log or database tracked by git."""

import ast
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "src").rglob("*.py"))
MAX_MODULE_LINES = 600
MAX_BODY_LINES = 60
UNTRACKED_SUFFIXES = (".whl", ".log", ".db", ".db-shm", ".db-wal", ".sqlite", ".pyc")


def body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the end of the body."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    if not body:
        return 0
    return body[-1].end_lineno - body[0].lineno + 1


def long_functions(source: str) -> list[tuple[str, int]]:
    """(name, body lines) of every function in ``source`` whose body exceeds the bound."""
    return [
        (node.name, lines)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (lines := body_lines(node)) > MAX_BODY_LINES
    ]


def test_the_measure_sees_a_long_body_and_skips_the_docstring():
    docstring = '    """' + "\n".join(["doc"] * 100) + '"""\n'
    short = "def f():\n" + docstring + "".join(f"    x{i} = {i}\n" for i in range(MAX_BODY_LINES))
    long = short.replace("def f", "def g") + "    y = 0\n"
    assert long_functions(short) == []
    assert long_functions(long) == [("g", MAX_BODY_LINES + 1)]


def test_no_module_in_src_is_over_600_lines():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in SOURCES}
    assert {path: n for path, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_no_function_body_in_src_is_over_60_lines():
    found = {
        f"{p.relative_to(ROOT)}:{name}": lines
        for p in SOURCES
        for name, lines in long_functions(p.read_text())
    }
    assert found == {}


def test_git_tracks_no_wheel_log_or_database():
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert [f for f in files if f.endswith(UNTRACKED_SUFFIXES)] == []
