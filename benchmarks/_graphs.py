"""What the benchmark scripts share about the bundled DIMACS graphs (``data/graphs``).

Scripts import this module (``from _graphs import literature_chi``) *before* they take
their own folder off ``sys.path`` (``benchmarks/cutting.py`` would shadow the ``cutting``
package), so it imports nothing but the standard library.
"""

from __future__ import annotations

import re
from pathlib import Path

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
