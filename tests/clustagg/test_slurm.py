"""clustagg.slurm without a cluster: record parsing, command failures, and recorded sacct outputs and
resizes replayed (tests/hpc runs the rest on the emulated cluster)."""

import json
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

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


# ---------------------------------------------------------------- recorded sacct outputs
# tests/clustagg/data/sacct (README.md there): real outputs of read_accounting's sacct command
# on the emulated cluster, and transcripts of the Slurm commands SlurmAllocation ran. The
# expected durations below are differences of the fixtures' timestamps (all on 2026-11-27).

DATA = Path(__file__).parent / "data" / "sacct"


def recorded(name):
    """The ``-S`` time (``# since`` line) and the sacct output lines of scenario ``name``."""
    first, *lines = (DATA / f"{name}.txt").read_text().splitlines()
    return first.removeprefix("# since "), lines


def at(clock):
    """``HH:MM:SS`` on the fixtures' day, as parse_accounting reads it (local time)."""
    return datetime.fromisoformat(f"2026-11-27T{clock}").timestamp()


def segments(records):
    return [(r.job_id, r.name, r.state, r.nodes, r.start, r.end, r.seconds, r.node_seconds) for r in records]


#: resize.txt, by hand: job 45 (1 -> 3 -> 1 -> 3 -> 1 nodes) and its expansion jobs 46 and 47
#: (0 nodes once handed over); the stale open records of jobs 14 and 27 (End Unknown) are left out.
RESIZE = [
    (45, "resize", "RESIZING", 1, at("02:10:01"), at("02:10:11"), 10.0, 10.0),  # 10:11 - 10:01 = 10 s x 1
    (45, "resize", "RESIZING", 3, at("02:10:11"), at("02:10:16"), 5.0, 15.0),  # 10:16 - 10:11 = 5 s x 3
    (45, "resize", "RESIZING", 1, at("02:10:16"), at("02:10:19"), 3.0, 3.0),  # 10:19 - 10:16 = 3 s x 1
    (45, "resize", "RESIZING", 3, at("02:10:19"), at("02:10:24"), 5.0, 15.0),  # 10:24 - 10:19 = 5 s x 3
    (45, "resize", "COMPLETED", 1, at("02:10:24"), at("02:10:27"), 3.0, 3.0),  # 10:27 - 10:24 = 3 s x 1
    (46, "grow-45", "RESIZING", 0, at("02:10:11"), at("02:10:11"), 0.0, 0.0),
    (47, "grow-45", "RESIZING", 0, at("02:10:19"), at("02:10:19"), 0.0, 0.0),
]


def test_a_resized_job_has_one_record_per_size_with_its_own_seconds():
    _, lines = recorded("resize")
    records = slurm.parse_accounting(lines)
    assert segments(records) == RESIZE
    # node-seconds of job 45: 10 + 15 + 3 + 15 + 3 = 46 over its 26 s (10:27 - 10:01)
    assert sum(r.node_seconds for r in records) == 46.0
    assert sum(r.seconds for r in records if r.job_id == 45) == at("02:10:27") - at("02:10:01") == 26.0


def test_the_22_05_start_of_the_second_record_is_the_end_of_the_first():
    # resize-2205.txt: resize.txt with the 3-node record starting at the job's start (10:01),
    # as Slurm 22.05 writes it; read as is it would count 3 x (10:16 - 10:01) = 45 node-s, not 15
    _, lines = recorded("resize-2205")
    assert "45|resize|RESIZING|cpu|2026-11-27T02:10:01|2026-11-27T02:10:16|3" in lines
    records = slurm.parse_accounting(lines)
    assert segments(records) == RESIZE
    assert sum(r.node_seconds for r in records) == 46.0  # 10 + 15 + 3 + 15 + 3, not 76


def test_an_early_grow_counts_the_expansion_job_until_it_is_handed_over():
    _, lines = recorded("resize-early")
    records = slurm.parse_accounting(lines)
    assert segments(records) == [
        (48, "resize-early", "RESIZING", 1, at("02:10:32"), at("02:10:37"), 5.0, 5.0),  # 37 - 32 = 5 s x 1
        (48, "resize-early", "RESIZING", 3, at("02:10:37"), at("02:10:41"), 4.0, 12.0),  # 41 - 37 = 4 s x 3
        (48, "resize-early", "RESIZING", 1, at("02:10:41"), at("02:10:44"), 3.0, 3.0),  # 44 - 41 = 3 s x 1
        (48, "resize-early", "RESIZING", 3, at("02:10:44"), at("02:10:49"), 5.0, 15.0),  # 49 - 44 = 5 s x 3
        (48, "resize-early", "COMPLETED", 1, at("02:10:49"), at("02:10:53"), 4.0, 4.0),  # 53 - 49 = 4 s x 1
        # the expansion held its 2 nodes from 10:36 to 10:37 (its COMPLETED record never ends)
        (49, "grow-48", "RESIZING", 2, at("02:10:36"), at("02:10:37"), 1.0, 2.0),
        (50, "grow-48", "RESIZING", 2, at("02:10:44"), at("02:10:44"), 0.0, 0.0),
    ]


def test_refused_grows_leave_one_record_and_zero_second_expansions():
    _, lines = recorded("resize-refused")
    assert segments(slurm.parse_accounting(lines)) == [
        # hold-nodes: 11:18 - 10:58 = 20 s x 2 nodes; resize-refused: 11:25 - 10:59 = 26 s x 1
        (51, "hold-nodes", "COMPLETED", 2, at("02:10:58"), at("02:11:18"), 20.0, 40.0),
        (52, "resize-refused", "COMPLETED", 1, at("02:10:59"), at("02:11:25"), 26.0, 26.0),
        (53, "grow-52", "CANCELLED", 1, at("02:11:06"), at("02:11:06"), 0.0, 0.0),  # "CANCELLED by 0"
        (54, "grow-52", "CANCELLED", 1, at("02:11:16"), at("02:11:16"), 0.0, 0.0),
    ]


def test_a_heterogeneous_job_has_a_record_per_component_and_partition():
    _, lines = recorded("hetjob")
    records = slurm.parse_accounting(lines)
    # both components 09:16 -> 09:20 = 4 s on one node each
    assert [(r.job_id, r.partition, r.nodes, r.seconds) for r in records] == [
        (36, "cpu", 1, 4.0),
        (37, "qpu", 1, 4.0),
    ]


def test_a_chain_runs_each_job_after_the_previous_one_ended():
    _, lines = recorded("chain")
    records = {r.name: r for r in slurm.parse_accounting(lines)}
    assert sorted(records) == ["chain-a", "chain-b", "chain-c", "fails"]  # "never" never started
    a, b, c = records["chain-a"], records["chain-b"], records["chain-c"]
    assert b.start >= a.end and c.start >= b.end  # afterok
    # 2 x (09:29 - 09:26) + 1 x (09:31 - 09:29) + 3 x (09:34 - 09:32) + 1 x (09:27 - 09:26) = 6 + 2 + 6 + 1
    assert [r.node_seconds for r in (a, b, c, records["fails"])] == [6.0, 2.0, 6.0, 1.0]
    assert records["fails"].state == "FAILED"


def test_a_running_job_is_left_out_until_it_ends():
    _, lines = recorded("running")
    assert "44|running|RUNNING|cpu|2026-11-27T02:09:39|Unknown|2" in lines
    # done: 09:41 - 09:39 = 2 s on one node
    assert [(r.job_id, r.name, r.node_seconds) for r in slurm.parse_accounting(lines)] == [(43, "done", 2.0)]


def test_read_accounting_runs_sacct_since_the_given_second(monkeypatch):
    since, lines = recorded("resize")
    calls = []

    def sacct(arguments, **options):
        calls.append(arguments)
        return "\n".join(lines) + "\n"

    monkeypatch.setattr(slurm, "slurm", sacct)
    records = slurm.read_accounting(datetime.fromisoformat(since).replace(microsecond=123))
    assert calls == [
        ["sacct", "--duplicates", "-X", "-P", "-n", "-o", "JobIDRaw,JobName,State,Partition,Start,End,NNodes"]
        + ["-S", "2026-11-27T02:09:59"]
    ]
    assert segments(records) == RESIZE


# ---------------------------------------------------------------- SlurmAllocation, replayed


class Replay:
    """Stands for clustagg.slurm.slurm: answers each command as it was answered in the recorded
    job (``NAME-commands.json``), checking that the commands come in the recorded order; the
    clock advances by each command's recorded duration and by every sleep."""

    def __init__(self, name):
        self.calls = json.loads((DATA / f"{name}-commands.json").read_text())
        self.now = 0.0

    def __call__(self, arguments, *, timeout=30.0, env=None, with_stderr=False, cwd=None):
        assert self.calls, f"unrecorded command {arguments}"
        call = self.calls.pop(0)
        assert (list(arguments), with_stderr) == (call["arguments"], call["with_stderr"])
        self.now += call["seconds"]
        if "error" in call:
            raise slurm.SlurmError(call["error"])
        return call["output"]

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def replay(monkeypatch, name):
    commands = Replay(name)
    monkeypatch.setattr(slurm, "slurm", commands)
    monkeypatch.setattr(slurm, "time", SimpleNamespace(monotonic=commands.monotonic, sleep=commands.sleep))
    return commands


def resizes(name):
    """The recorded commands that change an allocation (salloc, scontrol update, scancel)."""
    calls = json.loads((DATA / f"{name}-commands.json").read_text())
    return [" ".join(c["arguments"]) for c in calls if c["arguments"][:2] != ["scontrol", "show"]]


@pytest.mark.parametrize("name, job", [("resize", 45), ("resize-early", 48)])
def test_grow_and_shrink_hand_nodes_over_and_back_as_recorded(monkeypatch, name, job):
    commands = replay(monkeypatch, name)
    lines = []
    allocation = slurm.SlurmAllocation(job, "cpu", grow_timeout=30, log=lines.append)
    assert allocation.base == 1
    held = [allocation.grow(3), allocation.shrink(), allocation.grow(3), allocation.shrink()]
    assert commands.calls == []  # every recorded command was run, none more
    assert held == [3, 1, 3, 1]
    assert lines == [f"job {job} grown to 3 node(s)", f"job {job} shrunk to 1 node(s)"] * 2
    # what was run: for each grow one expansion, emptied, released and merged; for each shrink one update
    first, second = job + 1, job + 2
    grow = (
        "salloc --no-shell --nodes=1-2 --partition=cpu --dependency=expand:{0} --immediate=30 "
        "--job-name=grow-{0}"
    )
    assert resizes(name) == [
        grow.format(job), f"scontrol update JobId={first} NumNodes=0", f"scancel {first}",
        f"scontrol update JobId={job} NumNodes=ALL", f"scontrol update JobId={job} NumNodes=1",
        grow.format(job), f"scontrol update JobId={second} NumNodes=0", f"scancel {second}",
        f"scontrol update JobId={job} NumNodes=ALL", f"scontrol update JobId={job} NumNodes=1",
    ]  # fmt: skip
    # and Slurm's accounting of that job has one record per size the allocation reported
    _, lines = recorded(name)
    assert [r.nodes for r in slurm.parse_accounting(lines) if r.job_id == job] == [1, *held]


def test_a_grow_that_finds_no_free_node_gives_up_after_its_timeout(monkeypatch):
    commands = replay(monkeypatch, "resize-refused")
    lines = []
    allocation = slurm.SlurmAllocation(52, "cpu", grow_timeout=3, log=lines.append)
    held = [allocation.grow(3), allocation.shrink(), allocation.grow(3), allocation.shrink()]
    assert commands.calls == []
    assert held == [1, 1, 1, 1]
    refusal = "salloc: error: Unable to allocate resources: Connection timed out"
    assert (
        lines
        == [
            f"job 52 gave up growing to 3 nodes after 3 s (last refusal: {refusal})",
            "job 52 shrunk to 1 node(s)",
        ]
        * 2
    )
    assert commands.now >= 6  # two salloc --immediate=3 that waited their 3 s
    _, lines = recorded("resize-refused")
    assert [r.nodes for r in slurm.parse_accounting(lines) if r.job_id == 52] == [1]
