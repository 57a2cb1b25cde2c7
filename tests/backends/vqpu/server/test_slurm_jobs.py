"""The job table: who holds the vQPU resource, from squeue output; fails closed when Slurm is away."""

import stat
import threading
import time

import pytest

from backends.vqpu.server.slurm_jobs import (
    JobTable,
    SlurmJob,
    SlurmUnavailableError,
    parse_squeue,
    resource_count,
)


@pytest.mark.parametrize(
    ("field", "count"),
    [
        ("vqpu:1", 1),
        ("vqpu@qsrv:4", 4),
        ("lqpu:1,vqpu@qsrv:2", 2),
        ("gres:vqpu:3", 3),
        ("gres/vqpu:2", 2),
        ("gres:gpu:1", 0),
        ("(null)", 0),
        ("N/A", 0),
        ("vqpux:2", 0),
        ("", 0),
    ],
)
def test_resource_count_reads_licences_and_gres(field, count):
    assert resource_count(field) == count


def test_jobs_without_the_resource_are_not_listed():
    jobs = parse_squeue("11|11|1000|ann|phys|(null)|N/A\n12|12|1000|ann|phys|lqpu:1|gres:gpu:1\n")
    assert jobs == {}


def test_licence_and_gres_counts_add_up_as_shares():
    jobs = parse_squeue("13|13|1000|ann|phys|vqpu:2|gres:vqpu:1\n")
    assert jobs == {"13": SlurmJob("13", 1000, "ann", "phys", 3)}


def test_a_heterogeneous_job_is_known_by_its_leader_with_the_largest_count():
    text = "20|20+0|1001|bob|chem|(null)|N/A\n21|20+1|1001|bob|chem|vqpu:2|N/A\n"
    jobs = parse_squeue(text)
    assert jobs["20"] == SlurmJob("20", 1001, "bob", "chem", 2)
    assert jobs["21"].shares == 2


def test_array_tasks_are_jobs_of_their_own():
    text = "31|30_1|1002|cy|bio|vqpu:1|N/A\n32|30_2|1002|cy|bio|(null)|N/A\n"
    jobs = parse_squeue(text)
    assert set(jobs) == {"31", "30_1"} and "32" not in jobs


def test_malformed_lines_are_ignored():
    jobs = parse_squeue("garbage\n1|1|notuid|x|y|vqpu:1|N/A\n2|2|5|u|a|vqpu:1|N/A\n")
    assert list(jobs) == ["2"]


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def fake_squeue(tmp_path, output, status=0):
    script = tmp_path / "squeue"
    script.write_text(f"#!/bin/sh\nprintf '{output}'\nexit {status}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return [str(script)]


def test_a_job_is_looked_up_after_a_refresh(tmp_path):
    table = JobTable(squeue=fake_squeue(tmp_path, "5|5|1000|ann|phys|vqpu:1|N/A\\n"), clock=Clock())
    table.refresh()
    assert table.lookup("5") == SlurmJob("5", 1000, "ann", "phys", 1)
    assert table.lookup("6") is None


def test_nothing_is_admitted_before_slurm_has_been_read(tmp_path):
    table = JobTable(squeue=fake_squeue(tmp_path, "", status=1), clock=Clock())
    with pytest.raises(SlurmUnavailableError, match="squeue failed"):
        table.lookup("5")  # the look-up asks Slurm itself, which fails: closed


def counting_squeue(tmp_path, output):
    """A fake squeue printing ``output`` that counts its calls in ``tmp_path/calls``."""
    script = tmp_path / "squeue"
    script.write_text(f"#!/bin/sh\necho x >> {tmp_path}/calls\nprintf '{output}'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return [str(script)]


def calls(tmp_path):
    return len((tmp_path / "calls").read_text().split()) if (tmp_path / "calls").exists() else 0


def test_a_job_started_after_the_last_poll_is_looked_up_again_at_most_once_per_recheck(tmp_path):
    clock = Clock()
    table = JobTable(squeue=counting_squeue(tmp_path, ""), clock=clock, recheck=0.25)
    table.refresh()
    table.command = counting_squeue(tmp_path, "5|5|1000|ann|phys|vqpu:1|N/A\\n")  # job 5 starts
    assert [table.lookup("5") for _ in range(50)] == [None] * 50  # polled this instant: Slurm not asked
    assert calls(tmp_path) == 1
    clock.now += 0.25
    assert table.lookup("5").user == "ann"  # asked again: admitted from its first request
    assert [table.lookup("7") for _ in range(50)] == [None] * 50  # unknown jobs: no query per request
    assert calls(tmp_path) == 2


def test_a_job_gone_from_squeue_is_refused_at_the_next_poll(tmp_path):
    clock = Clock()
    table = JobTable(squeue=fake_squeue(tmp_path, "5|5|1000|ann|phys|vqpu:1|N/A\\n"), clock=clock)
    table.refresh()
    table.command = fake_squeue(tmp_path, "")
    clock.now += 1
    table.refresh()
    assert table.lookup("5") is None


def test_failing_squeue_keeps_the_set_until_max_age_then_fails_closed(tmp_path):
    clock = Clock()
    table = JobTable(squeue=fake_squeue(tmp_path, "5|5|1000|ann|phys|vqpu:1|N/A\\n"), max_age=5, clock=clock)
    table.refresh()
    table.command = fake_squeue(tmp_path, "", status=1)
    clock.now += 4
    table.refresh()
    assert table.lookup("5").user == "ann"
    clock.now += 2
    table.refresh()
    with pytest.raises(SlurmUnavailableError, match="squeue failed"):
        table.lookup("5")


def test_a_missing_squeue_fails_closed(tmp_path):
    table = JobTable(squeue=[str(tmp_path / "no-squeue")], clock=Clock())
    table.refresh()
    with pytest.raises(SlurmUnavailableError, match="squeue could not run"):
        table.lookup("5")


def test_the_thread_polls_until_stopped(tmp_path):
    table = JobTable(squeue=counting_squeue(tmp_path, "5|5|1000|ann|phys|vqpu:1|N/A\\n"), interval=0.05)
    table.start()  # one poll now, then one every 0.05 s
    try:
        deadline = time.monotonic() + 10
        while calls(tmp_path) < 3:
            assert time.monotonic() < deadline, "the thread did not poll"
            time.sleep(0.05)
        assert table.lookup("5").shares == 1
    finally:
        table.stop()
    assert "vqpu-slurm-jobs" not in {thread.name for thread in threading.enumerate()}
