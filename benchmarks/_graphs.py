"""What the benchmark scripts share about the bundled DIMACS graphs (``data/graphs``).

Scripts import this module (``from _graphs import literature_chi``) *before* they take
their own folder off ``sys.path`` (``benchmarks/cutting.py`` would shadow the ``cutting``
package), so it imports nothing but the standard library.
"""

from __future__ import annotations

import csv
import fnmatch
import os
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GRAPH_DIR = ROOT / "data" / "graphs"


def literature_chi(readme: Path = GRAPH_DIR / "README.md") -> dict[str, int | None]:
    """Chromatic numbers from the README table: graph name -> chi, None when open or a range."""
    chi: dict[str, int | None] = {}
    for line in readme.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and cells[0].endswith(".col"):
            chi[cells[0][: -len(".col")]] = int(cells[3]) if re.fullmatch(r"\d+", cells[3]) else None
    return chi


#: Published gc-cdcl times and their sources (see coloring_vs_cpsat.py); no source column may be empty.
PUBLISHED = Path(__file__).resolve().parent / "data" / "gc_cdcl_published.csv"
SOURCE_COLUMNS = ("paper", "table", "machine", "quoted_in")


def select_graphs(names: list[str] | None, defaults: tuple[str, ...] = ()) -> list[str]:
    """Bundled names as given and the files of folders as absolute paths, or the bundled graphs
    matching a pattern of ``defaults`` (``fnmatch``).

    Raises ``ValueError`` (one line) for an unknown name, a missing or graph-less folder, a
    file ``read_graph`` refuses, or two graphs of one name.
    """
    from bbqmis.mis.graphio import EXTENSIONS

    present = sorted(p.stem for p in GRAPH_DIR.glob("*.col"))
    specs = [] if names else [n for n in present if any(fnmatch.fnmatchcase(n, p) for p in defaults)]
    for arg in names or []:
        path = Path(arg).expanduser()
        if path.is_dir() or os.sep in arg or path.suffix.lower() in EXTENSIONS:
            specs += graph_files(arg, path, EXTENSIONS)
        elif arg in present:
            specs.append(arg)
        else:
            raise ValueError(f"--graphs: unknown graph {arg!r}; expected a data/graphs name, folder or file")
    labels = [graph_label(spec) for spec in specs]
    twice = [spec for spec, label in zip(specs, labels, strict=True) if labels.count(label) > 1]
    if twice:
        raise ValueError(f"--graphs: two graphs named {graph_label(twice[0])!r}: {twice}")
    return specs


def graph_files(arg: str, path: Path, extensions: dict[str, str]) -> list[str]:
    """The graph files of folder (or the one file) ``path``, each read once to check it: absolute paths."""
    from bbqmis import GraphFormatError, read_graph

    if not path.exists():
        raise ValueError(
            f"--graphs: {'file' if path.suffix.lower() in extensions else 'folder'} {arg} does not exist"
        )
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in extensions) if path.is_dir() else [path]
    if not files:
        raise ValueError(f"--graphs: folder {arg} holds no graph file ({' '.join(extensions)})")
    for file in files:
        try:
            read_graph(file)
        except GraphFormatError as error:
            raise ValueError(f"--graphs: {error}") from None
    return [str(file.resolve()) for file in files]


def graph_file(spec: str) -> Path:
    """The file of a graph of :func:`select_graphs`: an absolute path as it is, a name in ``data/graphs``."""
    return Path(spec) if Path(spec).is_absolute() else GRAPH_DIR / f"{spec}.col"


def graph_label(spec: str) -> str:
    """The name a graph goes by in the table and the JSON: the file stem (the name for bundled graphs)."""
    return graph_file(spec).stem


def load_published(path: Path = PUBLISHED) -> dict[str, dict[str, Any]]:
    """Graph -> ``{"n", "m", "seconds", "source"}``; ``ValueError`` naming file and line for a bad row."""
    table: dict[str, dict[str, Any]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            try:
                entry = {"n": int(row["n"]), "m": int(row["m"]), "seconds": float(row["gc_cdcl_s"])}
                source = "; ".join(f"{c}: {row[c].strip()}" for c in SOURCE_COLUMNS)
                valid = row["graph"] not in table and entry["seconds"] > 0
            except (KeyError, TypeError, ValueError, AttributeError):
                valid = False
            if not (valid and all(row[c].strip() for c in SOURCE_COLUMNS)):
                raise ValueError(
                    f"{path}:{line}: expected a new graph, integer n and m, seconds > 0 and every one of "
                    f"{', '.join(SOURCE_COLUMNS)}; found {row}"
                )
            table[row["graph"]] = {**entry, "source": source}
    return table
