"""Each Slurm job's vQPU usage copied into its Slurm record: scontrol while running, sacctmgr after."""

import subprocess

import pytest

from backends.vqpu.server.accounting import Ledger, Usage
from backends.vqpu.server.slurm_accounting import SlurmUsageWriter, admin_comment, parse_admin_comment
from backends.vqpu.server.tokens import Caller


class FakeSlurm:
    """Answers scontrol, sacctmgr and sacct as Slurm would for jobs running or ended."""

    def __init__(self, running):
        self.running = set(running)
        self.comments = {}  # what sacct would show once the job ended
        self.calls = []
        self.broken = False

    def __call__(self, command):
        self.calls.append(command)
        if self.broken:
            return subprocess.CompletedProcess(
                command, 1, "", "slurm_load_jobs error: Unable to contact slurm controller"
            )
        tool = command[0]
        if tool == "scontrol":
            job = command[2].removeprefix("JobId=")
            if job not in self.running:
                return subprocess.CompletedProcess(command, 1, "", f"Job has already finished for job {job}")
            self.comments[job] = command[3].removeprefix("AdminComment=")
            return subprocess.CompletedProcess(command, 0, "", "")
        if tool == "sacctmgr":
            self.comments[command[4].removeprefix("jobid=")] = command[6].removeprefix("AdminComment=")
            return subprocess.CompletedProcess(command, 0, "", "")
        assert tool == "sacct"
        return subprocess.CompletedProcess(command, 0, self.comments.get(command[2], "") + "\n", "")


def charge(ledger, job, seconds):
    ledger.charge(
        Caller(job, "ann", "phys", 1), Usage(batches=1, circuits=2, shots=200, quantum_seconds=seconds)
    )


def test_the_comment_round_trips():
    usage = Usage(batches=3, circuits=5, shots=500, quantum_seconds=1.25)
    assert parse_admin_comment(admin_comment(usage)) == {
        "vqpu_seconds": 1.25,
        "vqpu_circuits": 5,
        "vqpu_shots": 500,
        "vqpu_batches": 3,
    }


@pytest.mark.parametrize("text", ["", "owner note", "vqpu_seconds=x", "vqpu_seconds=1,other=2"])
def test_other_comments_are_not_ours(text):
    assert parse_admin_comment(text) == {}


def test_a_running_job_is_written_by_scontrol_when_its_totals_change():
    ledger, slurm = Ledger(), FakeSlurm(running={"41"})
    writer = SlurmUsageWriter(ledger, runner=slurm)
    charge(ledger, "41", 0.5)
    writer.sync()
    writer.sync()
    charge(ledger, "41", 0.25)
    writer.sync()
    assert [call[0] for call in slurm.calls] == ["scontrol", "scontrol"]
    assert parse_admin_comment(slurm.comments["41"])["vqpu_seconds"] == 0.75


def test_an_ended_job_is_written_by_sacctmgr_and_checked_with_sacct():
    ledger, slurm = Ledger(), FakeSlurm(running=set())
    writer = SlurmUsageWriter(ledger, runner=slurm)
    charge(ledger, "42", 0.5)
    writer.sync()  # scontrol: finished; sacct: nothing yet; sacctmgr writes
    writer.sync()  # sacct now shows it: nothing more is written
    assert [call[0] for call in slurm.calls] == ["scontrol", "sacct", "sacctmgr", "sacct"]
    assert slurm.comments["42"] == admin_comment(ledger.jobs["42"])
    assert writer.written["42"] == slurm.comments["42"]


def test_an_older_comment_stored_at_the_job_s_end_is_corrected():
    ledger, slurm = Ledger(), FakeSlurm(running={"43"})
    writer = SlurmUsageWriter(ledger, runner=slurm)
    charge(ledger, "43", 0.5)
    writer.sync()
    slurm.running.clear()  # the job ends; its last batch is charged after the last write
    charge(ledger, "43", 0.5)
    writer.sync()
    writer.sync()
    assert parse_admin_comment(slurm.comments["43"])["vqpu_seconds"] == 1.0
    assert slurm.calls[-1][0] == "sacct"  # the last pass only checked


def test_a_failing_slurm_is_retried_at_the_next_pass(caplog):
    ledger, slurm = Ledger(), FakeSlurm(running={"44"})
    writer = SlurmUsageWriter(ledger, runner=slurm)
    charge(ledger, "44", 0.5)
    slurm.broken = True
    writer.sync()
    assert "could not record its vQPU usage" in caplog.text and "44" not in slurm.comments
    slurm.broken = False
    writer.sync()
    assert slurm.comments["44"] == admin_comment(ledger.jobs["44"])


def test_stop_writes_once_more():
    ledger, slurm = Ledger(), FakeSlurm(running={"45"})
    writer = SlurmUsageWriter(ledger, interval=3600, runner=slurm).start()
    charge(ledger, "45", 0.5)
    writer.stop()
    writer.stop()
    assert slurm.comments["45"] == admin_comment(ledger.jobs["45"])
