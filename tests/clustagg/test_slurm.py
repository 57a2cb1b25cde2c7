"""clustagg.slurm without a cluster: record parsing, command failures (tests/hpc runs the rest)."""

import pytest

from clustagg import slurm

RECORD = (
    "JobId={job} UserId=root(0) GroupId=root(0) Name=x JobState={state} Partition={partition} TimeLimit=60 "
    "StartTime={start} EndTime=2026-01-01T00:01:00 NodeList=c[1-3] NodeCnt={nodes} ProcCnt=6 HetJobOffset=1"
)


def test_records_give_nodes_times_seconds_and_skip_jobs_that_never_started():
    lines = [
        RECORD.format(job=3, state="COMPLETED", partition="cpu", start="2026-01-01T00:00:00", nodes=3),
        RECORD.format(job=4, state="CANCELLED", partition="qpu", start="Unknown", nodes=1),
        RECORD.format(job=5, state="CANCELLED", partition="qpu", start="2026-01-01T00:00:30", nodes=1),
        "",
    ]
    records = slurm.parse_job_records(lines)
    assert [(r.job_id, r.partition, r.seconds, r.node_seconds) for r in records] == [
        (3, "cpu", 60.0, 180.0),
        (5, "qpu", 30.0, 30.0),
    ]


def test_a_missing_records_file_is_no_record(tmp_path):
    assert slurm.read_job_records(tmp_path / "jobcomp.txt") == []


def test_a_failing_command_names_itself_and_its_stderr():
    with pytest.raises(slurm.SlurmError, match=r"ls /nonexistent-dir failed \(2\): .*No such file"):
        slurm.slurm(["ls", "/nonexistent-dir"])


def test_a_missing_command_is_a_slurm_error():
    with pytest.raises(slurm.SlurmError, match="no-such-slurm-command"):
        slurm.slurm(["no-such-slurm-command"])
