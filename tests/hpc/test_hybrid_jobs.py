"""Heterogeneous jobs with the MPI quantum service, on the emulated cluster."""

import json

import pytest

from bbqmis import read_graph
from clustagg import slurm as slurmlib

from .conftest import CLUSTER, job_output

ARGS = "--exact-share 0 --lp-share 0 --heuristic --shots 128 --seed 3"  # branching circuits only

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def check_colouring(path, graph_file):
    result = json.loads(path.read_text())
    graph = read_graph(graph_file)
    labels = {str(graph.nodes[v]["label"]): v for v in graph}
    colour = {labels[k]: c for k, c in result["coloring"].items()}
    assert set(colour) == set(graph)
    assert all(colour[u] != colour[v] for u, v in graph.edges)
    assert result["num_colors"] == len(set(colour.values()))
    return result


def test_one_world_hetjob_colours_through_the_service(slurm, tmp_path, backwards):
    graph = backwards("myciel3")  # the root bounds stay below chi: the tree sends circuits
    job = slurm.submit(CLUSTER / "hybrid_world.sh", cwd=tmp_path, env={"GRAPH": graph, "BBQMIS_ARGS": ARGS})
    state = slurm.wait(job, 240)
    assert state == "COMPLETED", job_output(tmp_path, job)
    result = check_colouring(tmp_path / f"hybrid-{job}.json", graph)
    stats = json.loads((tmp_path / f"service-{job}.json").read_text())
    assert stats["stopped"] == "goodbye"
    assert stats["requests"] >= 1 and stats["circuits"] == result["stats"]["sampler"]["circuits"]
    components = slurmlib.job_fields(job)
    assert [c["Partition"] for c in components] == ["cpu", "qpu"]


def test_dpm_hetjob_releases_the_quantum_component(slurm, tmp_path, backwards):
    graph = backwards("myciel3")  # the root bounds stay below chi: the tree sends circuits
    job = slurm.submit(
        CLUSTER / "hybrid_dpm.sh",
        cwd=tmp_path,
        env={"GRAPH": graph, "BBQMIS_ARGS": ARGS, "POST_COMMAND": "sleep 3"},
    )
    state = slurm.wait(job, 240)
    assert state == "COMPLETED", job_output(tmp_path, job)
    check_colouring(tmp_path / f"hybrid-{job}.json", graph)
    stats = json.loads((tmp_path / f"service-{job}.json").read_text())
    assert stats["stopped"] == "goodbye" and stats["requests"] >= 1
    assert "released component" in job_output(tmp_path, job)
    classical, quantum = slurmlib.job_fields(job)
    assert quantum["Partition"] == "qpu" and quantum["JobState"] == "CANCELLED"
    # the qpu component ended before the classical post-processing did
    assert quantum["EndTime"] < classical["EndTime"]
