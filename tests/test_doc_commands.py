"""Every documented command runs: the marked shell and Python blocks of README.md and docs/.

A fenced ```bash or ```python block directly after the line ``<!-- ci: run -->`` is run
from a temporary copy of the repository root (so the files it writes land there), bash as
``bash -euo pipefail``, Python with this interpreter, and must exit 0. Each block is its
own test, named ``file:line`` after the line of its opening fence.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- ci: run -->"
LANGUAGES = ("bash", "python")
#: Seconds one block may run: documented blocks take under a minute of CPU, more wall time on a busy machine.
BLOCK_SECONDS = 300
#: What the copy of the repository leaves out: version control, caches and build output.
NOT_COPIED = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache", ".ruff_cache", "_build", ".venv"
)


@dataclass(frozen=True)
class Block:
    """A marked code block: its file, the line of its opening fence (1-based), language and code."""

    path: Path
    line: int
    language: str
    code: str

    @property
    def name(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{path.as_posix()}:{self.line}"


class MarkerError(ValueError):
    """A marker line that is not directly followed by a ```bash or ```python block."""


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
        if token.type != "html_block" or token.content.strip() != MARKER:
            continue
        fence = tokens[index + 1] if index + 1 < len(tokens) else None
        marker_line = token.map[0] + 1 if token.map else 0
        if fence is None or fence.type != "fence" or fence.info.strip() not in LANGUAGES or not fence.map:
            raise MarkerError(
                f"{path}:{marker_line}: {MARKER} must come directly before a ```bash or ```python block"
            )
        if fence.map[0] != marker_line:
            raise MarkerError(f"{path}:{marker_line}: a blank line separates {MARKER} from its block")
        blocks.append(Block(path, fence.map[0] + 1, fence.info.strip(), fence.content))
    return blocks


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
