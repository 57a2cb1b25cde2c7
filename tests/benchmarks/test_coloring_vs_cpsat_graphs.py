"""``benchmarks/coloring_vs_cpsat.py --graphs DIR`` and the published gc-cdcl column."""

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from bbqmis import read_graph

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SCRIPT = BENCHMARKS / "coloring_vs_cpsat.py"
GRAPHS = ROOT / "data" / "graphs"


def load(name: str) -> ModuleType:
    """Load ``benchmarks/NAME.py`` as a module (the benchmark imports ``_graphs`` from its folder)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_under_test", BENCHMARKS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = [p for p in sys.path if p != str(BENCHMARKS)]
    return module


BENCH = load("coloring_vs_cpsat")
GRAPHS_MODULE = load("_graphs")
CHI = GRAPHS_MODULE.literature_chi()


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    command = [sys.executable, str(SCRIPT), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def table_cells(stdout: str, graph: str) -> dict[str, str]:
    """The results table's row of ``graph`` as header -> cell (headers made unique by mode prefix)."""
    lines = stdout.splitlines()
    header, keys, mode = lines[0].split(), [], ""
    for cell in header:
        mode = cell.split(":")[0] if ":" in cell else mode
        keys.append(cell if ":" in cell or not mode else f"{mode}:{cell}")
    row = next(line.split() for line in lines[1:] if line.split()[:1] == [graph])
    return dict(zip(keys, row, strict=False))


@pytest.mark.timeout(60)
def test_a_folder_of_two_graphs_in_two_formats_is_run_and_reported(tmp_path: Path) -> None:
    shutil.copy(GRAPHS / "myciel3.col", tmp_path / "myciel3.col")
    (tmp_path / "c5.edges").write_text("".join(f"{i} {(i + 1) % 5}\n" for i in range(5)))
    (tmp_path / "README.md").write_text("not a graph\n")
    result = run("--graphs", str(tmp_path), "--modes", "exact", "cpsat", "--time-limit", "5")
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    rows = {row["graph"]: row for row in report["rows"]}
    assert list(rows) == ["c5", "myciel3"]  # the folder's graph files in name order, README.md left out
    assert rows["myciel3"]["chi"] == CHI["myciel3"]  # the bundled graph's name, n and m: its chi applies
    assert rows["c5"]["chi"] is None
    assert (rows["c5"]["n"], rows["c5"]["m"]) == (5, 5)
    assert rows["c5"]["file"] == str(tmp_path / "c5.edges")
    assert report["summary"]["wrong_optima"] == 0
    for name, row in rows.items():
        assert row["gc_cdcl_s"] is None and row["gc_cdcl_source"] is None  # neither is in the table
        for mode in ("exact", "cpsat"):
            out = row["results"][mode]
            assert out["proven"] and out["proper"], (name, mode, out)
            cells = table_cells(result.stdout, name)
            assert cells[f"{mode}:proven"] == "yes"
            assert cells[f"{mode}:colours"] == str(out["colors"])
            assert cells[f"{mode}:how"] == (",".join(sorted(set(out["how"]))) or "-")
        assert table_cells(result.stdout, name)["gc-cdcl:s"] == "\u2014"
        # an odd cycle needs 3 colours; myciel3 its literature chi
        assert row["results"]["exact"]["colors"] == {"c5": 3, "myciel3": CHI["myciel3"]}[name]
    assert rows["myciel3"]["results"]["cpsat"]["how"] == ["search"]  # its clique is an edge, chi is 4


@pytest.mark.timeout(60)
def test_the_gc_cdcl_column_shows_the_published_time_of_a_graph_that_has_one(tmp_path: Path) -> None:
    published = GRAPHS_MODULE.load_published()
    name = next(iter(published))
    shutil.copy(GRAPHS / f"{name}.col", tmp_path / f"{name}.col")
    (tmp_path / "c5.edges").write_text("".join(f"{i} {(i + 1) % 5}\n" for i in range(5)))
    result = run("--graphs", str(tmp_path), "--modes", "cpsat", "--time-limit", "1")
    assert result.returncode == 0, result.stderr[-3000:]
    rows = {row["graph"]: row for row in json.loads(result.stdout.strip().splitlines()[-1])["rows"]}
    assert rows[name]["gc_cdcl_s"] == published[name]["seconds"]
    assert rows[name]["gc_cdcl_source"] == published[name]["source"]
    assert table_cells(result.stdout, name)["gc-cdcl:s"] == f"{published[name]['seconds']:g}"
    assert rows["c5"]["gc_cdcl_s"] is None
    assert table_cells(result.stdout, "c5")["gc-cdcl:s"] == "\u2014"


def test_the_published_table_loads_every_row_names_its_source_and_matches_the_bundled_graph() -> None:
    published = GRAPHS_MODULE.load_published()
    assert published  # the figures of issue 38 at least
    for name, entry in published.items():
        assert entry["seconds"] > 0
        for column in GRAPHS_MODULE.SOURCE_COLUMNS:
            assert f"{column}: " in entry["source"] and f"{column}: ;" not in entry["source"], (name, column)
        graph = read_graph(GRAPHS / f"{name}.col")  # the counts are the bundled graph's
        assert (entry["n"], entry["m"]) == (graph.number_of_nodes(), graph.number_of_edges()), name


def test_a_published_row_applies_only_to_a_graph_with_its_counts() -> None:
    published = {"myciel6": {"n": 95, "m": 755, "seconds": 0.5, "source": "paper: p; table: t"}}
    chis = {"myciel6": 7}
    same = read_graph(GRAPHS / "myciel6.col")
    chi, entry = BENCH.graph_facts("myciel6", same, chis, published)
    assert (chi, entry) == (7, published["myciel6"])
    other = read_graph(GRAPHS / "myciel5.col")  # another graph under the same name
    assert BENCH.graph_facts("myciel6", other, chis, published) == (7, None)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("myciel6,95,755,0.003,,t,m,q", "paper"),
        ("myciel6,95,755,fast,p,t,m,q", "seconds"),
        ("myciel6,95,755,0,p,t,m,q", "seconds"),
    ],
)
def test_a_published_row_without_a_source_or_a_time_is_refused_naming_the_line(
    tmp_path: Path, row: str, problem: str
) -> None:
    path = tmp_path / "published.csv"
    path.write_text("graph,n,m,gc_cdcl_s,paper,table,machine,quoted_in\n" + row + "\n")
    with pytest.raises(ValueError, match=f"^{path}:2: expected .*{problem}"):
        GRAPHS_MODULE.load_published(path)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("case", ["missing", "empty", "bad"])
def test_a_folder_that_is_missing_or_holds_no_readable_graph_is_one_line_and_status_2(
    tmp_path: Path, case: str
) -> None:
    folder = tmp_path / "graphs"
    if case != "missing":
        folder.mkdir()
        (folder / "README.md").write_text("not a graph\n")
    if case == "bad":
        (folder / "broken.col").write_text("p edge 2 1\ne 1 3\n")
    result = run("--graphs", str(folder), "--time-limit", "1", timeout=50)
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("coloring_vs_cpsat.py: error: --graphs: ")
    named = str(folder / "broken.col") if case == "bad" else str(folder)
    assert named in line
    expected = {"missing": "does not exist", "empty": "holds no graph file", "bad": "broken.col:2"}[case]
    assert expected in line
