"""Sub-job chains (sbatch --dependency=afterok) continue from checkpoints to the monolithic result:
BBQ-MIS colouring (one block of node expansions per sub-job) and clustering (one round)."""

import json
import subprocess
import sys
import time

import pytest

import clustagg
from clustagg import slurm as slurmlib
from clustagg.data import read_points

from .conftest import CLUSTER, job_output

ARGS = ["--exact-share", "0", "--lp-share", "0", "--shots", "128", "--seed", "5"]  # branching circuits only
SAME = ("coloring", "num_colors", "lower_bound", "optimal", "stopped")


def wait_for_chain(slurm, chain, cwd, first, timeout=360):
    """Wait until the chain started by job ``first`` writes ``chain/result.json``.

    Fails with the job's output past ``timeout`` s, or with the outputs of any sub-job that
    did not complete; every successor is registered with the fixture, so it is cancelled
    at the end whatever happens.
    """
    deadline = time.monotonic() + timeout
    while not (chain / "result.json").exists():
        assert time.monotonic() < deadline, job_output(cwd, first)
        followers = (chain / "jobs").read_text().split() if (chain / "jobs").exists() else []
        slurm.jobs[1:] = [int(job) for job in followers]
        failed = [j for j in slurm.jobs if slurmlib.job_state(j) in slurmlib.FINISHED - {"COMPLETED"}]
        assert not failed, [job_output(cwd, j) for j in failed]
        time.sleep(1)


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_chain_of_subjobs_gives_the_monolithic_result(slurm, tmp_path, backwards):
    monolithic, graph = tmp_path / "monolithic.json", backwards("myciel4")  # the root bounds stay below chi
    subprocess.run(
        [sys.executable, "-m", "bbqmis", graph, "--executor", "serial", "--sampler", "qaoa"]
        + ["--backend", "aer", "--quiet", "--json", str(monolithic), *ARGS],
        check=True,
        env=slurm.env,
        timeout=120,
    )
    chain = tmp_path / "chain"
    first = slurm.submit(
        CLUSTER / "chain_step.sh",
        cwd=tmp_path,
        env={"GRAPH": graph, "BLOCK": "6", "CHAIN_DIR": str(chain), "BBQMIS_ARGS": " ".join(ARGS)},
    )
    wait_for_chain(slurm, chain, tmp_path, first)
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


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_clustering_chain_of_one_round_subjobs_gives_the_one_process_result(slurm, tmp_path):
    points = tmp_path / "points.csv"
    n, seed, rounds = 900, 4, 2
    generate = [sys.executable, "-m", "clustagg", "generate", "--n-samples", str(n), "--out", str(points)]
    subprocess.run(generate, check=True, timeout=60)
    expected = clustagg.run(read_points(points), solver="exact", max_iter=rounds, threshold=0.99, seed=seed)
    chain = tmp_path / "chain"
    before = len(slurmlib.read_job_records(slurm.job_records))
    first = slurm.submit(
        CLUSTER / "clustagg_chain_step.sh",
        cwd=tmp_path,
        env={"POINTS": str(points), "MAX_ITER": str(rounds), "THRESHOLD": "0.99", "CHAIN_DIR": str(chain)}
        | {"CLUSTAGG_ARGS": f"--seed {seed} --solver exact"},
    )
    wait_for_chain(slurm, chain, tmp_path, first)
    result = json.loads((chain / "result.json").read_text())
    assert result["iterations"] == pytest.approx(expected.iterations, abs=1e-12)
    assert result["labels"] == list(expected.labels)
    # one round per sub-job, each a heterogeneous job of 3 cpu nodes and the qpu node
    assert [len(json.loads((chain / f"step-{k}.json").read_text())["iterations"]) for k in (1, 2)] == [1, 2]
    for job in slurm.jobs:
        slurmlib.wait_for_state(job, slurmlib.FINISHED, 30)
    records = slurmlib.read_job_records(slurm.job_records)[before:]
    assert sorted((r.partition, r.nodes, r.state) for r in records) == sorted(
        [("cpu", 3, "COMPLETED"), ("qpu", 1, "COMPLETED")] * rounds
    )
