"""Every documented command runs: the marked shell and Python blocks of README.md and docs/.

A fenced ```bash or ```python block directly after the line ``<!-- ci: run -->`` is run
from a temporary copy of the repository root (so the files it writes land there), bash as
``bash -euo pipefail``, Python with this interpreter, and must exit 0. Each block is its
own test, named ``file:line`` after the line of its opening fence.

Expectations
------------
A marker can also state what the block's output must hold::

    <!-- ci: run; expect: {"summary.wrong_optima": 0, "summary.modes.exact.proven": 2} -->

After ``expect:`` comes one JSON object, on the marker's line. The last non-blank line of
the block's stdout must then be a JSON object (every benchmark script in ``benchmarks/``
ends its output with one), and each key of the expectation is checked in it:

* a key is a dotted path: ``a.b`` is ``line["a"]["b"]``; a part that is an integer indexes
  a list (``occupancy.0.1``), so a key holding a dot cannot be reached;
* a plain value (number, string, boolean, null, list) must equal the value found; ``1``
  and ``1.0`` are equal, ``true`` and ``1`` are not;
* an object is a condition on a number, made of the operators ``"=="`` (with an optional
  absolute tolerance ``"tol"``), ``"<"``, ``"<="``, ``">"`` and ``">="``, all of which
  must hold: ``{"==": 0.5, "tol": 0.01}``, ``{">": 0, "<=": 1}``.

A failed check names the key, what was expected and what was found. A malformed marker
(``<!-- ci:`` followed by anything but ``run`` and an optional ``; expect: {...}``, bad
JSON, an unknown operator) fails the collection with its file and line, like a marker
before anything but a bash or python block. A marked block that runs a script of
``benchmarks/`` must carry an expectation of the script's correctness figures (wrong
answers, lost batches, matches; not timings), checked by
``test_every_marked_benchmark_states_its_expected_figures``.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- ci: run -->"
#: An HTML comment that means to be a marker: it starts with ``<!-- ci:``.
MARKER_START = re.compile(r"<!--\s*ci:")
#: A well-formed marker, with the JSON text of its expectation if it has one.
MARKER_PATTERN = re.compile(r"<!--\s*ci:\s*run\s*(?:;\s*expect:\s*(?P<expect>\{.*\})\s*)?-->", re.DOTALL)
#: The operators of a condition (called with the value found, the operand and the tolerance)
#: and the key of the absolute tolerance, which only ``"=="`` uses (default 0).
OPERATORS = {
    "==": lambda got, bound, tol: abs(got - bound) <= tol,
    "<": lambda got, bound, tol: got < bound,
    "<=": lambda got, bound, tol: got <= bound,
    ">": lambda got, bound, tol: got > bound,
    ">=": lambda got, bound, tol: got >= bound,
}
TOLERANCE = "tol"
#: A benchmark script run by a block (not one of the ``_``-prefixed helper modules).
BENCHMARK_SCRIPT = re.compile(r"\bbenchmarks/(?!_)[A-Za-z0-9_]+\.py\b")
LANGUAGES = ("bash", "python")
#: Seconds one block may run: documented blocks take under a minute of CPU, more wall time on a busy machine.
BLOCK_SECONDS = 300
#: What the copy of the repository leaves out: version control, caches and build output.
NOT_COPIED = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache", ".ruff_cache", "_build", ".venv"
)


@dataclass(frozen=True)
class Block:
    """A marked code block: its file, the line of its opening fence (1-based), language, code
    and the expectation of its marker (None without one)."""

    path: Path
    line: int
    language: str
    code: str
    expect: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path.as_posix()}:{self.line}"


class MarkerError(ValueError):
    """A malformed marker, or one that is not directly followed by a ```bash or ```python block."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_condition(key: str, condition: dict[str, Any]) -> None:
    """Raise ValueError unless ``condition`` is a valid condition object of ``key``."""
    unknown = sorted(set(condition) - {*OPERATORS, TOLERANCE})
    if unknown or not set(condition) & set(OPERATORS):
        raise ValueError(
            f"expect key {key!r}: a condition takes the operators {', '.join(OPERATORS)} "
            f"(and {TOLERANCE!r} with '=='), got {json.dumps(condition)}"
        )
    if not all(_number(condition[op]) for op in condition):
        raise ValueError(f"expect key {key!r}: the operands must be numbers, got {json.dumps(condition)}")
    if TOLERANCE in condition and ("==" not in condition or condition[TOLERANCE] < 0):
        raise ValueError(
            f"expect key {key!r}: {TOLERANCE!r} is a number >= 0 beside '==', got {json.dumps(condition)}"
        )


def parse_marker(comment: str) -> dict[str, Any] | None:
    """The expectation of a marker comment: None for ``<!-- ci: run -->``, else its JSON object.

    Raises
    ------
    ValueError
        If the comment is not ``<!-- ci: run -->`` or ``<!-- ci: run; expect: {...} -->``,
        the expectation is not a non-empty JSON object, or one of its conditions is invalid.
    """
    match = MARKER_PATTERN.fullmatch(comment.strip())
    if match is None:
        raise ValueError(f"expected {MARKER} or <!-- ci: run; expect: {{...}} -->, got {comment.strip()!r}")
    if match["expect"] is None:
        return None
    try:
        expect = json.loads(match["expect"])
    except json.JSONDecodeError as error:
        raise ValueError(f"the expectation is not JSON ({error}): {match['expect']}") from None
    if not isinstance(expect, dict) or not expect:
        raise ValueError(f"the expectation must be a non-empty JSON object, got {match['expect']}")
    for key, value in expect.items():
        if not key or "" in key.split("."):
            raise ValueError(f"expect key {key!r}: expected a dotted path such as 'summary.wrong_optima'")
        if isinstance(value, dict):
            _check_condition(key, value)
    return expect


def marked_blocks(text: str, path: Path) -> list[Block]:
    """The blocks of a Markdown text that carry the marker, in order.

    Raises
    ------
    MarkerError
        If a marker is followed by anything but a bash or python fence.
    """
    tokens = MarkdownIt("commonmark").parse(text)
    blocks = []
    for index, token in enumerate(tokens):
        if token.type != "html_block" or not MARKER_START.match(token.content.strip()):
            continue
        fence = tokens[index + 1] if index + 1 < len(tokens) else None
        marker_line = token.map[0] + 1 if token.map else 0
        try:
            expect = parse_marker(token.content)
        except ValueError as error:
            raise MarkerError(f"{path}:{marker_line}: {error}") from None
        if fence is None or fence.type != "fence" or fence.info.strip() not in LANGUAGES or not fence.map:
            raise MarkerError(
                f"{path}:{marker_line}: {MARKER} must come directly before a ```bash or ```python block"
            )
        if fence.map[0] != marker_line:
            raise MarkerError(f"{path}:{marker_line}: a blank line separates {MARKER} from its block")
        blocks.append(Block(path, fence.map[0] + 1, fence.info.strip(), fence.content, expect))
    return blocks


def last_json_line(stdout: str) -> dict[str, Any]:
    """The JSON object on the last non-blank line of ``stdout``.

    Raises
    ------
    ValueError
        If there is no such line or it is not a JSON object.
    """
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        raise ValueError("expected a JSON object on the last line of stdout, got no output")
    try:
        last = json.loads(lines[-1])
    except json.JSONDecodeError:
        last = None
    if not isinstance(last, dict):
        raise ValueError(f"expected a JSON object on the last line of stdout, got {lines[-1][:300]!r}")
    return last


_MISSING = object()


def _lookup(document: Any, key: str) -> Any:
    """The value at the dotted path ``key`` of ``document``, or ``_MISSING``."""
    value = document
    for part in key.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif (
            isinstance(value, list)
            and re.fullmatch(r"-?[0-9]+", part)
            and -len(value) <= int(part) < len(value)
        ):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def _equal(expected: Any, got: Any) -> bool:
    """JSON equality in which numbers compare by value but booleans are not numbers."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if _number(expected) and _number(got):
        return expected == got
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(map(_equal, expected, got))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(_equal(v, got[k]) for k, v in expected.items())
    return type(expected) is type(got) and expected == got


def _describe(condition: dict[str, Any]) -> str:
    """A condition in words: ``== 0.5 +- 0.01``, ``> 0 and <= 1``."""
    tolerance = f" +- {json.dumps(condition[TOLERANCE])}" if TOLERANCE in condition else ""
    return " and ".join(
        f"{op} {json.dumps(bound)}{tolerance if op == '==' else ''}"
        for op, bound in condition.items()
        if op != TOLERANCE
    )


def _holds(condition: dict[str, Any], got: Any) -> bool:
    if not _number(got) or math.isnan(got):
        return False
    tolerance = condition.get(TOLERANCE, 0)
    return all(OPERATORS[op](got, bound, tolerance) for op, bound in condition.items() if op != TOLERANCE)


def check_expectation(expect: dict[str, Any], stdout: str) -> list[str]:
    """What in the last JSON line of ``stdout`` breaks ``expect``: one message per failed key.

    An empty list means every key holds. Each message names the key, the expected and the
    found value: ``summary.wrong_optima: expected 0, got 1``.

    Raises
    ------
    ValueError
        If a condition of ``expect`` is invalid (as :func:`parse_marker` refuses it).
    """
    try:
        line = last_json_line(stdout)
    except ValueError as error:
        return [str(error)]
    failures = []
    for key, expected in expect.items():
        got = _lookup(line, key)
        if got is _MISSING:
            failures.append(f"{key}: expected {_expected(expected)}, got no such key in {_keys(line, key)}")
        elif isinstance(expected, dict):
            _check_condition(key, expected)
            if not _holds(expected, got):
                failures.append(f"{key}: expected {_describe(expected)}, got {json.dumps(got)}")
        elif not _equal(expected, got):
            failures.append(f"{key}: expected {json.dumps(expected)}, got {json.dumps(got)}")
    return failures


def _expected(expected: Any) -> str:
    return _describe(expected) if isinstance(expected, dict) else json.dumps(expected)


def _keys(line: dict[str, Any], key: str) -> str:
    """Where a missing key's path stops, and the keys there: ``summary (keys: graphs, modes)``."""
    parts, value, found = key.split("."), line, []
    for part in parts:
        child = _lookup(value, part)
        if child is _MISSING:
            break
        found.append(part)
        value = child
    where = ".".join(found) or "the JSON line"
    if isinstance(value, dict):
        shown = f"keys: {', '.join(sorted(value))}"
    elif isinstance(value, list):
        shown = f"a list of {len(value)}"
    else:
        shown = f"the value {json.dumps(value)}"
    return f"{where} ({shown})"


def runs_a_benchmark(block: Block) -> bool:
    """Whether the block runs a script of ``benchmarks/``."""
    return BENCHMARK_SCRIPT.search(block.code) is not None


def documentation_files() -> list[Path]:
    """README.md and every Markdown page of the documentation site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def all_blocks() -> list[Block]:
    return [block for path in documentation_files() for block in marked_blocks(path.read_text("utf-8"), path)]


BLOCKS = all_blocks()


def run_block(block: Block, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run one block in ``workdir`` (a copy of the repository), its script kept beside it."""
    script = workdir.parent / ("block.sh" if block.language == "bash" else "block.py")
    script.write_text(block.code, "utf-8")
    command = (
        ["bash", "-euo", "pipefail", str(script)]
        if block.language == "bash"
        else [sys.executable, str(script)]
    )
    env = dict(os.environ, MPLBACKEND="Agg")
    # `python` and `mpiexec` in a shell block are this interpreter's and its environment's.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(
        command,
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=BLOCK_SECONDS,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
@pytest.mark.timeout(BLOCK_SECONDS + 60)
@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_documented_command_runs(block: Block, tmp_path: Path) -> None:
    workdir = tmp_path / "repo"
    shutil.copytree(ROOT, workdir, ignore=NOT_COPIED, symlinks=True)
    done = run_block(block, workdir)
    assert done.returncode == 0, (
        f"{block.name} exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    if block.expect is not None:
        failures = check_expectation(block.expect, done.stdout)
        assert not failures, f"{block.name}: " + "; ".join(failures) + f"\n{done.stdout[-3000:]}"


def test_every_page_with_commands_is_found_and_the_two_fixed_commands_are_marked() -> None:
    pages = {block.path.relative_to(ROOT).as_posix() for block in BLOCKS}
    assert "README.md" in pages
    codes = [block.code for block in BLOCKS]
    # The two commands that failed as documented (issue 16): both now run in CI.
    assert any('if __name__ == "__main__":' in code and "make_executor" in code for code in codes)
    assert any("examples/clustagg/job.yml" in code and "clustagg generate" in code for code in codes)


def test_marker_collects_only_marked_bash_and_python_blocks(tmp_path: Path) -> None:
    text = (
        "# Page\n\n```bash\necho unmarked\n```\n\n"
        f"{MARKER}\n```bash\necho one\n```\n\n"
        "- in a list:\n\n"
        f"  {MARKER}\n  ```python\n  print(2)\n  ```\n"
    )
    blocks = marked_blocks(text, tmp_path / "page.md")
    assert [(block.line, block.language, block.code) for block in blocks] == [
        (8, "bash", "echo one\n"),
        (15, "python", "print(2)\n"),
    ]


@pytest.mark.parametrize(
    "text",
    [f"{MARKER}\n```text\nx\n```\n", f"{MARKER}\n\n```bash\nx\n```\n", f"{MARKER}\nsome prose\n", MARKER],
    ids=["other-language", "blank-line", "prose", "end-of-file"],
)
def test_a_misplaced_marker_is_an_error_naming_the_line(text: str, tmp_path: Path) -> None:
    with pytest.raises(MarkerError, match=r"page\.md:1: "):
        marked_blocks(text, tmp_path / "page.md")


def test_a_failing_block_fails(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    failing = run_block(
        Block(tmp_path / "page.md", 1, "bash", "true\nfalse\necho never\n"), tmp_path / "repo"
    )
    assert failing.returncode != 0 and "never" not in failing.stdout
    unset = run_block(Block(tmp_path / "page.md", 1, "bash", 'echo "$NOT_SET_ANYWHERE"\n'), tmp_path / "repo")
    assert unset.returncode != 0
    raising = run_block(Block(tmp_path / "page.md", 1, "python", "raise SystemExit(3)\n"), tmp_path / "repo")
    assert raising.returncode == 3


def test_every_marked_benchmark_states_its_expected_figures() -> None:
    benchmarks = [block for block in BLOCKS if runs_a_benchmark(block)]
    assert benchmarks, "no marked block runs a benchmarks/*.py script any more: is the pattern still right?"
    forgotten = [block.name for block in benchmarks if block.expect is None]
    assert not forgotten, (
        f"marked blocks run a benchmark but state no expectation: {forgotten}; write the marker as "
        '<!-- ci: run; expect: {"key.of.the.last.json.line": value} --> with its correctness figures'
    )


@pytest.mark.parametrize(
    ("code", "runs"),
    [
        ("python benchmarks/coloring_vs_cpsat.py --time-limit 5\n", True),
        ('python "$PWD/benchmarks/vqpu_multiplexing.py" --short\n', True),
        ("python benchmarks/_null_http_server.py\n", False),
        ("python -m bbqmis data/graphs/myciel3.col\n", False),
        ("ls benchmarks/\n", False),
    ],
)
def test_a_block_runs_a_benchmark_when_it_names_a_script_of_benchmarks(code: str, runs: bool) -> None:
    assert runs_a_benchmark(Block(Path("page.md"), 1, "bash", code)) is runs


@pytest.mark.parametrize(
    ("comment", "expect"),
    [
        (MARKER, None),
        ("<!--ci:run-->\n", None),
        ('<!-- ci: run; expect: {"wrong_answers": 0} -->', {"wrong_answers": 0}),
        (
            '<!-- ci: run;expect:{"a.b": [1, 2], "c": {">": 0, "<=": 1}, "d": {"==": 0.5, "tol": 0.01}} -->',
            {"a.b": [1, 2], "c": {">": 0, "<=": 1}, "d": {"==": 0.5, "tol": 0.01}},
        ),
    ],
    ids=["plain", "no-spaces", "one-key", "paths-bounds-tolerance"],
)
def test_a_marker_parses_to_its_expectation(comment: str, expect: dict | None) -> None:
    assert parse_marker(comment) == expect


@pytest.mark.parametrize(
    ("comment", "message"),
    [
        (
            "<!-- ci: skip -->",
            r"expected <!-- ci: run --> or <!-- ci: run; expect: \{...\} -->, got '<!-- ci: skip -->'",
        ),
        ('<!-- ci: run; expect {"a": 1} -->', r"expected <!-- ci: run -->"),
        ("<!-- ci: run; expect: {a: 1} -->", r"the expectation is not JSON \(Expecting property name"),
        ("<!-- ci: run; expect: {} -->", r"the expectation must be a non-empty JSON object, got \{\}"),
        ('<!-- ci: run; expect: {"a..b": 1} -->', r"expect key 'a\.\.b': expected a dotted path"),
        ('<!-- ci: run; expect: {"a": {"~": 1}} -->', r"expect key 'a': a condition takes the operators"),
        ('<!-- ci: run; expect: {"a": {"tol": 1}} -->', r"expect key 'a': a condition takes the operators"),
        ('<!-- ci: run; expect: {"a": {"<": "1"}} -->', r"expect key 'a': the operands must be numbers"),
        ('<!-- ci: run; expect: {"a": {"<": 1, "tol": 0.1}} -->', r"expect key 'a': 'tol' is a number >= 0"),
    ],
    ids=[
        "other-word",
        "no-colon",
        "bad-json",
        "empty",
        "empty-part",
        "operator",
        "tol-alone",
        "string",
        "tol-no-eq",
    ],
)
def test_a_malformed_marker_is_refused_with_the_reason(comment: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_marker(comment)


def test_a_malformed_marker_is_an_error_naming_the_line(tmp_path: Path) -> None:
    text = '# Page\n\n<!-- ci: run; expect: {"a": 1,} -->\n```bash\necho\n```\n'
    with pytest.raises(MarkerError, match=r"page\.md:3: the expectation is not JSON"):
        marked_blocks(text, tmp_path / "page.md")


def test_a_marker_with_an_expectation_gives_it_to_its_block(tmp_path: Path) -> None:
    text = (
        f"{MARKER}\n```bash\necho one\n```\n\n"
        '<!-- ci: run; expect: {"summary.lost": 0} -->\n```bash\necho two\n```\n\n'
        "<!-- another comment -->\n```bash\necho unmarked\n```\n"
    )
    blocks = marked_blocks(text, tmp_path / "page.md")
    assert [(block.line, block.code, block.expect) for block in blocks] == [
        (2, "echo one\n", None),
        (7, "echo two\n", {"summary.lost": 0}),
    ]


OUTPUT = (
    "a table\n  | 1 | 2 |\n"
    + json.dumps(
        {
            "lost": 0,
            "proven_subset": True,
            "summary": {"wrong_optima": 0, "modes": {"exact": {"proven": 2}}, "disagreements": []},
            "occupancy": {"0": [0.6, 0.8]},
            "ratio": 0.75,
            "n": [1, 2],
            "label": "x",
            "none": None,
        }
    )
    + "\n\n"
)


@pytest.mark.parametrize(
    "expect",
    [
        {"lost": 0, "proven_subset": True, "label": "x", "none": None},
        {"summary.wrong_optima": 0.0, "summary.modes.exact.proven": 2, "summary.disagreements": []},
        {"n": [1, 2], "n.1": 2, "n.-1": 2, "occupancy.0.0": {">": 0, "<=": 1}},
        {"ratio": {"==": 0.7, "tol": 0.051}, "occupancy.0.1": {">=": 0.8, "<": 0.81}},
        {"ratio": {"==": 0.75}, "summary.modes.exact.proven": {">=": 2, "<=": 2}},
    ],
    ids=["flags", "nested", "lists-and-bounds", "tolerance", "exact-condition"],
)
def test_an_expectation_that_holds_has_no_failures(expect: dict) -> None:
    assert check_expectation(expect, OUTPUT) == []


@pytest.mark.parametrize(
    ("expect", "message"),
    [
        ({"summary.wrong_optima": 0}, None),
        ({"lost": 1}, "lost: expected 1, got 0"),
        ({"summary.wrong_optima": 1}, "summary.wrong_optima: expected 1, got 0"),
        ({"proven_subset": False}, "proven_subset: expected false, got true"),
        ({"lost": False}, "lost: expected false, got 0"),
        ({"proven_subset": 1}, "proven_subset: expected 1, got true"),
        ({"n": [1, 2, 4]}, "n: expected [1, 2, 4], got [1, 2]"),
        ({"label": "y"}, 'label: expected "y", got "x"'),
        ({"ratio": {"==": 0.7, "tol": 0.01}}, "ratio: expected == 0.7 +- 0.01, got 0.75"),
        ({"occupancy.0.1": {">": 0, "<=": 0.5}}, "occupancy.0.1: expected > 0 and <= 0.5, got 0.8"),
        ({"label": {"<": 1}}, 'label: expected < 1, got "x"'),
        ({"none": {">=": 0}}, "none: expected >= 0, got null"),
        (
            {"summary.modes.price.proven": 2},
            "summary.modes.price.proven: expected 2, got no such key in summary.modes (keys: exact)",
        ),
        ({"n.2": 4}, "n.2: expected 4, got no such key in n (a list of 2)"),
        ({"lost.count": {"<=": 0}}, "lost.count: expected <= 0, got no such key in lost (the value 0)"),
    ],
    ids=[
        "holds",
        "flag",
        "nested",
        "boolean",
        "boolean-is-not-zero",
        "one-is-not-true",
        "list",
        "string",
        "tolerance",
        "bounds",
        "bound-on-a-string",
        "bound-on-null",
        "missing-key",
        "missing-index",
        "path-through-a-number",
    ],
)
def test_a_wrong_figure_fails_naming_the_key_the_expected_and_the_got_value(
    expect: dict, message: str | None
) -> None:
    assert check_expectation({"summary.wrong_optima": 0, **expect}, OUTPUT) == ([message] if message else [])


def test_every_failed_key_is_reported() -> None:
    failures = check_expectation({"lost": 2, "ratio": 0.75, "summary.wrong_optima": 3}, OUTPUT)
    assert failures == ["lost: expected 2, got 0", "summary.wrong_optima: expected 3, got 0"]


@pytest.mark.parametrize(
    ("stdout", "message"),
    [
        ("", "expected a JSON object on the last line of stdout, got no output"),
        ('{"lost": 0}\nall done\n', "expected a JSON object on the last line of stdout, got 'all done'"),
        ("[0, 1]\n", "expected a JSON object on the last line of stdout, got '[0, 1]'"),
    ],
    ids=["no-output", "text-after-the-json", "not-an-object"],
)
def test_output_without_a_final_json_object_fails(stdout: str, message: str) -> None:
    assert check_expectation({"lost": 0}, stdout) == [message]


def test_an_invalid_condition_is_refused_by_the_check_too() -> None:
    with pytest.raises(ValueError, match="expect key 'lost': a condition takes the operators"):
        check_expectation({"lost": {"~": 0}}, OUTPUT)


def test_a_block_with_an_expectation_is_checked_against_its_own_output(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    code = 'echo "table"\necho \'{"summary": {"lost": 1, "matches": true}}\'\n'
    done = run_block(Block(tmp_path / "page.md", 1, "bash", code), tmp_path / "repo")
    assert done.returncode == 0
    assert check_expectation({"summary.matches": True}, done.stdout) == []
    assert check_expectation({"summary.lost": 0}, done.stdout) == ["summary.lost: expected 0, got 1"]
