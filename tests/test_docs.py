"""The documentation site builds with warnings as errors, and its API reference covers every public name."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Seconds a build may take (about 30 s on 2 busy cores).
BUILD_SECONDS = 240


def build_docs(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """Run the documented build command, ``sphinx-build -W --keep-going -b html SOURCE OUT``."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    done = build_docs(ROOT / "docs", out)
    assert done.returncode == 0, done.stderr[-5000:]  # -W: a warning fails the build
    return out


@pytest.mark.slow
@pytest.mark.timeout(BUILD_SECONDS + 60)
def test_site_builds_without_a_warning_and_has_every_section(site: Path) -> None:
    for page in ["index", "getting-started", "api/index", "results/index", "contributing"]:
        assert (site / f"{page}.html").is_file(), page
    for folder, least in [("tutorials", 5), ("howto", 5), ("api", 7), ("results", 2)]:
        assert len(list((site / folder).glob("*.html"))) >= least, folder


@pytest.mark.slow
@pytest.mark.timeout(BUILD_SECONDS + 60)
def test_api_reference_documents_every_public_name(site: Path) -> None:
    from sphinx.util.inventory import InventoryFile

    with (site / "objects.inv").open("rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    # A mapping of kind -> {name: item} (Sphinx < 9 wraps it in an object's ``data``).
    entries = getattr(inventory, "data", inventory)
    documented = {name for kind, names in entries.items() if kind.startswith("py:") for name in names}
    # A re-exported name is documented once, where it is defined (see docs/api/bbqmis.md).
    canonical = {"InvalidParameterError": "backends.InvalidParameterError", "qaoa": "bbqmis.mis.qaoa"}
    layers = ["bbqmis.mis", "bbqmis.samples", "bbqmis.solver", "bbqmis.coloring"]
    missing = []
    for package in ["backends", "bbqmis", "bbqmis.mis", "bbqmis.coloring", "cutting", "clustagg"]:
        for name in importlib.import_module(package).__all__:
            where = [canonical[name]] if name in canonical else [f"{package}.{name}"]
            if package == "bbqmis" and name not in canonical:
                where = [f"{layer}.{name}" for layer in layers]
            if not documented.intersection(where):
                missing.append(f"{package}.{name}")
    assert not missing, f"not in the API reference: {missing}"


@pytest.mark.timeout(120)
def test_build_command_fails_on_a_warning(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "conf.py").write_text('extensions = ["myst_parser"]\n', "utf-8")
    (source / "index.md").write_text("# Title\n\n[a page that does not exist](missing.md)\n", "utf-8")
    done = build_docs(source, tmp_path / "out")
    assert done.returncode != 0
    assert "missing.md" in done.stderr


@pytest.mark.parametrize("page", ["README.md", "benchmarks/README.md"])
def test_relative_links_of_the_front_pages_reach_files_in_the_repository(page: str) -> None:
    from markdown_it import MarkdownIt

    path = ROOT / page
    tokens = MarkdownIt("commonmark").parse(path.read_text("utf-8"))
    links = [
        child.attrs["href"]
        for token in tokens
        if token.type == "inline" and token.children
        for child in token.children
        if child.type == "link_open"
    ]
    relative = [
        str(link).split("#")[0] for link in links if "://" not in str(link) and not str(link).startswith("#")
    ]
    assert relative, "the page links into the docs"
    broken = [link for link in relative if not (path.parent / link).resolve().is_file()]
    assert not broken, broken
    outside = [link for link in relative if not (path.parent / link).resolve().is_relative_to(ROOT)]
    assert not outside, outside
