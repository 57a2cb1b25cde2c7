"""A sub-job chain (sbatch --dependency=afterok) continues from checkpoints to the monolithic result."""

import json
import subprocess
import sys
import time

import pytest

from clustagg import slurm as slurmlib

from .conftest import CLUSTER, ROOT, job_output

GRAPH = ROOT / "data" / "graphs" / "myciel4.col"
ARGS = ["--exact-share", "0", "--lp-share", "0", "--shots", "128", "--seed", "5"]  # branching circuits only
SAME = ("coloring", "num_colors", "lower_bound", "optimal", "stopped")


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_chain_of_subjobs_gives_the_monolithic_result(slurm, tmp_path):
    monolithic = tmp_path / "monolithic.json"
    subprocess.run(
        [sys.executable, "-m", "bbqmis", str(GRAPH), "--executor", "serial", "--sampler", "qaoa"]
        + ["--backend", "aer", "--quiet", "--json", str(monolithic), *ARGS],
        check=True,
        env=slurm.env,
        timeout=120,
    )
    chain = tmp_path / "chain"
    first = slurm.submit(
        CLUSTER / "chain_step.sh",
        cwd=tmp_path,
        env={"GRAPH": str(GRAPH), "BLOCK": "6", "CHAIN_DIR": str(chain), "BBQMIS_ARGS": " ".join(ARGS)},
    )
    deadline = time.monotonic() + 360
    while not (chain / "result.json").exists():
        assert time.monotonic() < deadline, job_output(tmp_path, first)
        followers = (chain / "jobs").read_text().split() if (chain / "jobs").exists() else []
        slurm.jobs[1:] = [int(job) for job in followers]  # cancelled at the end, whatever happens
        failed = [j for j in slurm.jobs if slurmlib.job_state(j) in slurmlib.FINISHED - {"COMPLETED"}]
        assert not failed, [job_output(tmp_path, j) for j in failed]
        time.sleep(1)
    expected = json.loads(monolithic.read_text())
    result = json.loads((chain / "result.json").read_text())
    assert {key: result[key] for key in SAME} == {key: expected[key] for key in SAME}
    assert result["stats"]["nodes_explored"] == expected["stats"]["nodes_explored"]
    steps = sorted(chain.glob("step-*.json"))
    assert len(steps) >= 3  # 17 node expansions in blocks of 6
    for step in steps[:-1]:
        assert json.loads(step.read_text())["stopped"] == "node_limit"
    # every sub-job held the qpu node for one block only: each service ran at most 6 batches
    for stats in chain.glob("service-*.json"):
        assert 1 <= json.loads(stats.read_text())["requests"] <= 6
