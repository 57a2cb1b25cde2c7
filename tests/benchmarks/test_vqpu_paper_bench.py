"""Smoke test of the vQPU paper experiment's short mode: BBQ-MIS jobs under a real single-node Slurm."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "vqpu_multiplexing.py"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_short_paper_experiment_under_slurm(tmp_path):
    missing = [c for c in ("munged", "slurmctld", "slurmd", "sinfo", "sbatch") if shutil.which(c) is None]
    if missing:
        pytest.fail(f"Slurm is not installed (no {', '.join(missing)}): run 'bash examples/slurm/install.sh'")
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
