"""Smoke tests of the vQPU paper experiment: BBQ-MIS jobs under a real single-node Slurm.

The short mode of ``vqpu_multiplexing.py`` (the ``null`` device), and ``vqpu_paper.py``'s
trained variant: one job (N = 1, alpha = 0) training its angles on a vQPU over Aer with IQM's
fake Adonis noise, on two Moser spindles joined by an edge, whose 7-vertex problems are cut to
fit the device's 5 qubits; ``--lp-share 0`` keeps the job to its branching sampler's problems.
"""

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "vqpu_multiplexing.py"
PAPER = ROOT / "benchmarks" / "vqpu_paper.py"
#: The Moser spindle (chi 4, 7 vertices); two of them joined by an edge make the trained job's graph.
SPINDLE = [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (0, 4), (0, 5), (4, 5), (4, 6), (5, 6), (3, 6)]


def spindles(path: Path) -> list[tuple[str, str]]:
    """Write the two joined spindles to ``path`` (DIMACS); their edges by vertex label."""
    edges = SPINDLE + [(u + 7, v + 7) for u, v in SPINDLE] + [(3, 7)]
    path.write_text(f"p edge 14 {len(edges)}\n" + "".join(f"e {u + 1} {v + 1}\n" for u, v in edges))
    return [(str(u + 1), str(v + 1)) for u, v in edges]


def require_slurm() -> None:
    missing = [c for c in ("munged", "slurmctld", "slurmd", "sinfo", "sbatch") if shutil.which(c) is None]
    if missing:
        pytest.fail(f"Slurm is not installed (no {', '.join(missing)}): run 'bash examples/slurm/install.sh'")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_short_paper_experiment_under_slurm(tmp_path):
    require_slurm()
    command = [
        sys.executable,
        str(SCRIPT),
        "--short",
        "--out",
        str(tmp_path),
        "--figures",
        str(tmp_path / "fig"),
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=580)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert lines[0].split()[:3] == ["alpha", "N", "reps"]  # the table comes first
    assert summary["points"] == 4 and summary["n"] == [1, 2] and summary["repeats"] == 1
    for alpha in ("0", "2"):
        lone, pair = summary["occupancy"][alpha]
        assert 0 < lone < pair <= 1  # two jobs keep the device busier than one
        assert summary["ratio_at_max_n"][alpha] < 1  # sharing beats running one after another
    rows = (tmp_path / "vqpu_paper.csv").read_text().splitlines()
    assert len(rows) == 1 + 4 and all(int(row.split(",")[9]) > 0 for row in rows[1:])  # batches per point
    for figure in summary["figures"]:
        assert Path(figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # every job held a licence and its batches ran under its own token
    tokens = [line.split() for line in (tmp_path / "tokens.txt").read_text().splitlines() if line[0] != "#"]
    assert len(tokens) == 6 and all(len(t) == 3 for t in tokens)


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_trained_job_on_the_shared_noisy_device(tmp_path):
    require_slurm()
    command = [
        sys.executable,
        str(PAPER),
        "--variants",
        "trained",
        "--n",
        "1",
        "--alpha",
        "0",
        "--repeats",
        "1",
    ]
    edges = spindles(tmp_path / "spindles.col")
    command += [
        "--graph",
        str(tmp_path / "spindles.col"),
        "--trained-args",
        "--lp-share 0",
        "--out",
        str(tmp_path),
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=380)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("# trained: spindles on aer:noisy-adonis")
    assert lines[1].split()[:3] == ["alpha", "N", "reps"]
    trained = json.loads(lines[-1])["variants"]["trained"]
    assert trained["points"] == 1 and trained["jobs"] == 1
    assert 0 < trained["occupancy"]["0"][0] <= 1
    assert trained["classical_quantum_per_job"]["0"][0] > 0
    assert trained["training_evaluations"] >= 1 and trained["fallbacks"] == 0
    assert trained["cut_problems"] >= 1  # trained through the cut reconstruction, on the vQPU
    # the job coloured its graph properly, with the angles trained on the device
    (output,) = (tmp_path / "trained" / "jobs").glob("bbqmis-*.json")
    job = json.loads(output.read_text())
    colour = job["coloring"]
    assert len(colour) == 14 and all(colour[u] != colour[v] for u, v in edges)
    assert job["num_colors"] == len(set(colour.values())) == 4
    assert job["stats"]["training"]["evaluations"] == trained["training_evaluations"]
    assert job["stats"]["training"]["circuits"] >= job["stats"]["training"]["evaluations"]
    (row,) = csv.DictReader((tmp_path / "vqpu_paper_trained.csv").open())
    assert int(row["batches"]) > 0 and float(row["quantum_seconds"]) > 0
    for figure in trained["figures"]:
        assert Path(figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
