"""clustagg.reconfiguration and clustagg.node_pools without a cluster (tests/hpc runs them on one)."""

import pytest

from clustagg import node_pools, slurm
from clustagg.errors import InvalidParameterError
from clustagg.reconfiguration import Change, Reconfiguration

pytestmark = pytest.mark.timeout(60)


def test_node_counts_must_be_ordered():
    with pytest.raises(InvalidParameterError) as error:
        node_pools.NodeRange(3, 2)
    assert str(error.value) == (
        "node counts must satisfy 1 <= min_nodes <= preferred_nodes <= max_nodes; "
        "got min_nodes=3, preferred_nodes=2, max_nodes=2"
    )
    assert node_pools.NodeRange(1, 4, 2).clamp(0) == 1


def test_a_change_counts_the_processes_added_and_removed():
    assert (
        Change("grow", 2, 5, joined=False, leaving=False).added,
        Change("shrink", 5, 2, False, True).removed,
    ) == (3, 3)


def test_outside_slurm_a_program_keeps_its_size_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    with Reconfiguration(max_nodes=3, workdir=tmp_path) as reconfiguration:
        assert reconfiguration.reconfigure(nodes=3).size == 1 and reconfiguration.held == 1
    assert reconfiguration.comm is None and list(tmp_path.iterdir()) == []


def test_a_worker_gets_neither_the_step_nor_the_launcher_variables(monkeypatch):
    monkeypatch.setenv("SLURM_NODELIST", "c1")
    monkeypatch.setenv("PMI_RANK", "0")
    monkeypatch.setenv("SLURM_CONF", "/etc/slurm.conf")
    env = node_pools.worker_environment()
    assert "SLURM_NODELIST" not in env and "PMI_RANK" not in env and env["SLURM_CONF"] == "/etc/slurm.conf"


def test_release_keeps_the_other_nodes_by_name(monkeypatch):
    calls = []
    held = ["c1", "c2", "c3"]

    def fake(arguments, **kwargs):
        calls.append(list(arguments))
        if arguments[:3] == ["scontrol", "show", "job"]:
            return f"JobId=7 NumNodes={len(held)} NodeList=c[1-{len(held)}]\n"
        if arguments[:3] == ["scontrol", "show", "hostnames"]:
            return "\n".join(held)
        if arguments[:2] == ["scontrol", "update"]:
            held[:] = arguments[3].removeprefix("NodeList=").split(",")
        return ""

    monkeypatch.setattr(slurm, "slurm", fake)
    allocation = slurm.SlurmAllocation(7, "cpu")
    assert allocation.release(["c3", "c2"]) == 1
    assert ["scontrol", "update", "JobId=7", "NodeList=c1"] in calls
