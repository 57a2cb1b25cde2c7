"""``write_points`` through the shared output writer: modes, FIFOs, no partial files."""

import os
import stat

import numpy as np

from clustagg.data import make_reference_points, read_points, write_points


def test_points_get_the_mode_the_umask_leaves_and_no_partial_file_stays(tmp_path):
    old = os.umask(0o027)
    try:
        write_points(make_reference_points(20), tmp_path / "points.npy")
    finally:
        os.umask(old)
    assert os.listdir(tmp_path) == ["points.npy"]
    assert stat.S_IMODE((tmp_path / "points.npy").stat().st_mode) == 0o640


def test_points_to_a_fifo_reach_its_reader_and_the_fifo_stays(tmp_path):
    pipe = tmp_path / "points.csv"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    points = make_reference_points(20)
    try:
        write_points(points, pipe)
        text = os.read(reader, 1 << 16).decode()
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    (tmp_path / "copy.csv").write_text(text)
    np.testing.assert_array_equal(read_points(tmp_path / "copy.csv"), points)
