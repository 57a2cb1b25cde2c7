"""Output files: atomic replacement, normal modes, devices written through, checks up front."""

import contextlib
import csv
import os
import stat
from pathlib import Path

import pytest

from backends.utils.errors import InvalidParameterError
from backends.utils.files import atomic_write, atomic_write_text, check_distinct, check_writable

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
needs_proc = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")


@contextlib.contextmanager
def umask(mask):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def device_copy(folder, name, minor):
    """A private character device ``mem`` ``minor`` (3: like /dev/null, 7: like /dev/full)."""
    path = folder / name
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return path


@contextlib.contextmanager
def fifo_reader(path):
    """Make a FIFO at ``path`` and yield a function reading what was written to it."""
    os.mkfifo(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so writers do not wait
    try:
        yield lambda: os.read(fd, 1 << 16)
    finally:
        os.close(fd)


def test_a_new_file_gets_the_mode_the_umask_leaves(tmp_path):
    with umask(0o027):
        atomic_write(tmp_path / "out.json", lambda handle: handle.write(b"{}"))
    assert stat.S_IMODE((tmp_path / "out.json").stat().st_mode) == 0o640


def test_a_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "out.json"
    path.write_bytes(b"old")
    path.chmod(0o664)
    with umask(0o077):
        atomic_write(path, lambda handle: handle.write(b"new"))
    assert path.read_bytes() == b"new" and stat.S_IMODE(path.stat().st_mode) == 0o664


def test_a_failing_writer_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "out.json"
    path.write_bytes(b"old")

    def fail(handle):
        handle.write(b"half")
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        atomic_write(path, fail)
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["out.json"]


@needs_root
def test_a_device_is_written_through_not_replaced(tmp_path):
    null = device_copy(tmp_path, "null", 3)
    atomic_write(null, lambda handle: handle.write(b"discarded"))
    assert stat.S_ISCHR(null.stat().st_mode) and null.stat().st_rdev == os.makedev(1, 3)
    assert os.listdir(tmp_path) == ["null"]


@needs_root
def test_a_device_write_error_names_the_path_given(tmp_path):
    full = device_copy(tmp_path, "full", 7)
    with pytest.raises(OSError, match="No space left on device") as caught:
        atomic_write(full, lambda handle: handle.write(b"x" * 10))
    assert caught.value.filename == str(full)
    assert stat.S_ISCHR(full.stat().st_mode)


def test_a_fifo_is_written_through_not_replaced(tmp_path):
    path = tmp_path / "pipe"
    with fifo_reader(path) as read:
        atomic_write(path, lambda handle: handle.write(b"result"))
        assert read() == b"result"
    assert stat.S_ISFIFO(path.stat().st_mode)


def test_a_symlink_stays_a_link_and_its_target_gets_the_content(tmp_path):
    (tmp_path / "real.json").write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to("real.json")
    atomic_write(link, lambda handle: handle.write(b"new"))
    assert link.is_symlink() and (tmp_path / "real.json").read_bytes() == b"new"


def test_errors_name_the_path_given_never_the_temporary_file(tmp_path):
    path = tmp_path / "missing" / "out.json"
    with pytest.raises(FileNotFoundError) as caught:
        atomic_write(path, lambda handle: handle.write(b"{}"))
    assert caught.value.filename == str(path) and ".tmp" not in str(caught.value)


def test_a_writer_error_about_another_file_is_left_alone(tmp_path):
    def read_elsewhere(handle):
        (tmp_path / "absent.csv").read_bytes()

    with pytest.raises(FileNotFoundError) as caught:
        atomic_write(tmp_path / "out.json", read_elsewhere)
    assert caught.value.filename == str(tmp_path / "absent.csv")


def test_text_variant_passes_newline_to_csv(tmp_path):
    path = tmp_path / "t.csv"
    atomic_write_text(path, lambda file: csv.writer(file).writerows([["a", "b"], ["1", "2"]]), newline="")
    assert path.read_bytes() == b"a,b\r\n1,2\r\n"


def test_check_writable_leaves_nothing_behind(tmp_path):
    check_writable(tmp_path / "out.json", "--json")
    (tmp_path / "old.json").write_bytes(b"keep")
    check_writable(tmp_path / "old.json", "--json")
    assert os.listdir(tmp_path) == ["old.json"] and (tmp_path / "old.json").read_bytes() == b"keep"


@needs_proc
def test_check_writable_tries_the_folder_even_as_root():
    # os.access says yes to root for /proc, where no file can be made
    with pytest.raises(InvalidParameterError) as caught:
        check_writable("/proc/out.json", "--json")
    assert str(caught.value) == "--json /proc/out.json: cannot write in /proc: No such file or directory"


def test_check_writable_names_the_option_and_the_folder(tmp_path):
    missing = tmp_path / "missing" / "out.json"
    under_file = tmp_path / "file" / "o.png"
    (tmp_path / "file").write_bytes(b"")
    cases = [
        (tmp_path, f"--plot {tmp_path}: is a directory"),
        (missing, f"--plot {missing}: folder {missing.parent} does not exist"),
        (under_file, f"--plot {under_file}: folder {under_file.parent} is not a directory"),
    ]
    for path, message in cases:
        with pytest.raises(InvalidParameterError) as caught:
            check_writable(path, "--plot")
        assert str(caught.value) == message


@pytest.mark.timeout(10)
def test_check_writable_accepts_a_fifo_nobody_reads_yet_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    check_writable(tmp_path / "pipe", "--json")
    check_writable(os.devnull, "--json")


def test_check_distinct_refuses_one_file_under_two_options(tmp_path):
    (tmp_path / "real").write_bytes(b"")
    (tmp_path / "link").symlink_to("real")
    with pytest.raises(InvalidParameterError) as caught:
        check_distinct({"--json": tmp_path / "real", "--plot": None, "--checkpoint": tmp_path / "link"})
    assert str(caught.value) == f"--json {tmp_path}/real and --checkpoint {tmp_path}/link name the same file"


def test_check_distinct_allows_different_files_and_one_device_twice(tmp_path):
    check_distinct({"--json": tmp_path / "a", "--checkpoint": tmp_path / "b", "--plot": None})
    check_distinct({"--json": os.devnull, "--plot": os.devnull})
