"""``python -m bbqmis`` output files: checked up front, devices kept, a failed plot keeps the result."""

import json
import os
import stat

import pytest

from bbqmis.coloring import cli
from bbqmis.coloring.cli import main

MYCIEL3 = "data/graphs/myciel3.col"
EXACT = [MYCIEL3, "--sampler", "exact", "--quiet"]


@pytest.fixture
def no_search(monkeypatch):
    """Make any search fail loudly: the checks under test must stop the run before it."""

    def search(*args, **kwargs):
        raise AssertionError("the search ran")

    monkeypatch.setattr(cli, "color_graph", search)


@pytest.mark.usefixtures("linux_proc")
@pytest.mark.parametrize("option", ["--json", "--plot", "--checkpoint"])
def test_an_output_on_proc_is_refused_before_the_search_even_as_root(option, no_search, capsys):
    path = f"/proc/bbqmis-out.{option.lstrip('-')}"
    assert main([*EXACT, option, path]) == 2
    assert (
        capsys.readouterr().err
        == f"bbqmis: error: {option} {path}: cannot write in /proc: No such file or directory\n"
    )


def test_json_and_checkpoint_naming_one_file_are_refused(tmp_path, no_search, capsys):
    same, detour = tmp_path / "same.out", tmp_path / "sub" / ".." / "same.out"
    (tmp_path / "sub").mkdir()
    assert main([*EXACT, "--checkpoint", str(same), "--json", str(detour)]) == 2
    assert capsys.readouterr().err == (
        f"bbqmis: error: --json {detour} and --checkpoint {same} name the same file\n"
    )
    assert not same.exists()


def test_a_checkpoint_that_is_not_a_regular_file_is_refused(tmp_path, no_search, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert main([*EXACT, "--checkpoint", str(pipe)]) == 2
    assert capsys.readouterr().err == (
        f"bbqmis: error: --checkpoint {pipe}: not a regular file (--resume reads it back)\n"
    )
    assert stat.S_ISFIFO(pipe.stat().st_mode)


@pytest.mark.usefixtures("as_root")
def test_json_to_a_device_writes_through_and_keeps_the_device(tmp_path, capsys):
    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    null.chmod(0o666)
    assert main([*EXACT, "--json", str(null)]) == 0
    assert "optimal      yes" in capsys.readouterr().out
    assert stat.S_ISCHR(null.stat().st_mode) and null.stat().st_rdev == os.makedev(1, 3)
    assert stat.S_IMODE(null.stat().st_mode) == 0o666


def test_json_to_a_fifo_reaches_its_reader(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert main([*EXACT, "--json", str(pipe)]) == 0
        assert json.loads(os.read(reader, 1 << 16))["num_colors"] == 4
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_a_plot_failure_keeps_the_printed_result_and_the_json(tmp_path, monkeypatch, capsys):
    def disk_full(graph, result, history, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(cli, "plot_run", disk_full)
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    assert main([*EXACT, "--json", str(out), "--plot", str(png)]) == 1
    captured = capsys.readouterr()
    assert "optimal      yes" in captured.out
    assert captured.err == f"bbqmis: error: --plot {png}: cannot write the figure: No space left on device\n"
    assert json.loads(out.read_text())["num_colors"] == 4


def test_plot_and_json_get_the_mode_the_umask_leaves(tmp_path):
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    old = os.umask(0o022)
    try:
        assert main([*EXACT, "--json", str(out), "--plot", str(png)]) == 0
    finally:
        os.umask(old)
    assert [stat.S_IMODE(p.stat().st_mode) for p in (out, png)] == [0o644, 0o644]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "r.png"]
