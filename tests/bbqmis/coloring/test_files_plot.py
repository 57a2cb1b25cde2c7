"""``plot_run`` through the shared output writer: the normal mode, devices kept."""

import os
import stat

import networkx as nx
import pytest

from bbqmis.coloring import color_graph
from bbqmis.coloring.plot import plot_run


def test_the_png_gets_the_mode_the_umask_leaves(tmp_path):
    graph = nx.cycle_graph(5)
    old = os.umask(0o022)
    try:
        plot_run(graph, color_graph(graph, "exact"), [(0.0, 3, 2)], tmp_path / "run.png")
    finally:
        os.umask(old)
    assert os.listdir(tmp_path) == ["run.png"]
    assert stat.S_IMODE((tmp_path / "run.png").stat().st_mode) == 0o644


@pytest.mark.usefixtures("as_root")
def test_a_png_to_a_device_keeps_the_device(tmp_path):
    graph = nx.cycle_graph(5)
    null = tmp_path / "null.png"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a private /dev/null
    plot_run(graph, color_graph(graph, "exact"), [(0.0, 3, 2)], null)
    assert stat.S_ISCHR(null.stat().st_mode) and null.stat().st_rdev == os.makedev(1, 3)
    assert os.listdir(tmp_path) == ["null.png"]
