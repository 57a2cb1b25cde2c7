"""Step outputs: normal file modes, devices and FIFOs written through, errors naming the output."""

import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from clustagg import steps


def test_step_outputs_get_the_mode_the_umask_leaves(tmp_path):
    old = os.umask(0o022)
    try:
        steps.save_json(tmp_path / "selection.json", {"seed": 0})
        steps.atomic_write(tmp_path / "labels.npy", lambda handle: np.save(handle, np.zeros(3)))
    finally:
        os.umask(old)
    modes = sorted(stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir())
    assert modes == [0o644, 0o644]


def test_a_fifo_output_is_written_through_not_replaced(tmp_path):
    pipe = tmp_path / "score.json"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        steps.save_json(pipe, {"seed": 3})
        assert json.loads(os.read(reader, 1 << 16)) == {"seed": 3}
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(pipe.stat().st_mode)


@pytest.fixture
def linux_proc(needs):
    """Linux's /proc: CI runs on Linux, so without it the test fails under CI, else skips."""
    needs(Path("/proc/self").is_dir(), "needs Linux /proc")


@pytest.mark.usefixtures("linux_proc")
def test_a_write_error_names_the_output_not_a_temporary_file():
    with pytest.raises(FileNotFoundError) as caught:
        steps.atomic_write("/proc/score.json", lambda handle: handle.write(b"{}"))  # no file can be made
    assert str(caught.value) == "[Errno 2] No such file or directory: '/proc/score.json'"
