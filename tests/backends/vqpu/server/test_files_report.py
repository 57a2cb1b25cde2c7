"""``report`` outputs through the shared writer: normal modes, FIFOs written through."""

import csv
import io
import json
import os
import stat

from backends.vqpu.server.report import save_figures, summarize, write_csv, write_json
from backends.vqpu.server.store import Batch

BATCHES = [
    Batch(1, "job-a", "k1", 1, 2, 100, None, "done", 0.0, 0.0, 1.0, 1.0, 1, None, None, 1, "ann"),
    Batch(2, "job-b", "k1", 1, 2, 100, None, "done", 0.0, 1.0, 2.0, 1.0, 1, None, None, 1, "bob"),
]


def test_csv_json_and_figures_get_the_mode_the_umask_leaves(tmp_path):
    old = os.umask(0o022)
    try:
        write_csv(BATCHES, tmp_path / "usage.csv")
        write_json(summarize(BATCHES), tmp_path / "summary.json")
        save_figures(BATCHES, summarize(BATCHES), tmp_path / "figures")
    finally:
        os.umask(old)
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert [p.name for p in files] == ["jobs.png", "timeline.png", "summary.json", "usage.csv"]
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o644}


def test_csv_to_a_fifo_reaches_its_reader_and_the_fifo_stays(tmp_path):
    pipe = tmp_path / "usage.csv"
    os.mkfifo(pipe)
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_csv(BATCHES, pipe)
        rows = list(csv.DictReader(io.StringIO(os.read(reader, 1 << 16).decode(), newline="")))
    finally:
        os.close(reader)
    assert [row["user"] for row in rows] == ["ann", "bob"]
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_json_is_replaced_atomically_with_no_temporary_left(tmp_path):
    out = tmp_path / "summary.json"
    out.write_text("old")
    write_json(summarize(BATCHES), out)
    assert json.loads(out.read_text())["done"] == 2 and os.listdir(tmp_path) == ["summary.json"]
