"""``python -m backends.vqpu`` on bad input: one line naming the option and file, exit 2, no change."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from vqpu_helpers import free_port, loopback_socket, server_command, spawn_server, subprocess_env

from backends.vqpu.cli import _max_shots, main
from backends.vqpu.server.store import Store

PREFIX = "python -m backends.vqpu"


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``main(argv)``; assert exit status 2, one stderr line and no stdout; return that line."""
    with pytest.raises(SystemExit) as exit_info:  # argparse's refusals exit, ours return
        raise SystemExit(main(argv))
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1, err
    return err.strip()


def serve_argv(db: Path | str, *options: str, port: int | None = None) -> list[str]:
    return ["serve", "--backend", "null", "--port", str(port or free_port()), "--db", str(db), *options]


def text_file(path: Path) -> Path:
    path.write_text("hello, this is not SQLite at all " * 10 + "\n")
    return path


def test_serve_db_in_a_missing_folder(tmp_path, capsys):
    db = tmp_path / "nonexistent" / "x.db"
    assert refused(serve_argv(db), capsys) == (
        f"{PREFIX} serve: error: --db {db}: cannot create the lock file {db}.lock: No such file or directory"
    )


def test_serve_db_that_is_a_directory(tmp_path, capsys):
    assert refused(serve_argv(tmp_path), capsys) == f"{PREFIX} serve: error: --db {tmp_path}: is a directory"


def test_serve_db_that_is_a_text_file(tmp_path, capsys):
    db = text_file(tmp_path / "notes.db")
    line = refused(serve_argv(db), capsys)
    # "--db PATH is not an SQLite database" from the store, or SQLite's own "file is not a database"
    assert line.startswith(f"{PREFIX} serve: error: --db {db}") and "not a" in line


def test_serve_token_file_that_is_a_directory(tmp_path, capsys):
    argv = serve_argv(tmp_path / "x.db", "--token-file", str(tmp_path))
    assert refused(argv, capsys) == f"{PREFIX} serve: error: --token-file {tmp_path}: is a directory"
    assert not (tmp_path / "x.db").exists()


def test_serve_host_that_does_not_resolve(tmp_path, capsys):
    port = free_port()
    argv = serve_argv(tmp_path / "x.db", "--host", "999.1.1.1", "--insecure-open", port=port)
    line = refused(argv, capsys)
    assert line.startswith(f"{PREFIX} serve: error: --host: cannot listen on 999.1.1.1:{port}: ")
    assert not (tmp_path / "x.db").exists()


def test_serve_port_in_use_changes_nothing(tmp_path, capsys):
    with contextlib.closing(loopback_socket()) as taken:
        taken.listen()
        port = taken.getsockname()[1]
        line = refused(serve_argv(tmp_path / "x.db", port=port), capsys)
    assert line == f"{PREFIX} serve: error: --port: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert list(tmp_path.iterdir()) == []  # neither database nor lock file


def running_batch(db: Path) -> None:
    """A database whose batch 1 is running, as while a live server executes it."""
    store = Store(db)
    batch, _ = store.accept(
        job="j", user="u", key="k", payload=b"x", circuits=1, qubits=1, shots=5, seed=None, submitted=1.0
    )
    store.start(batch.id, 2.0)
    store.close()


def locked(db: Path) -> str:
    return f"another server uses this database (its lock file {db}.lock is held)"


def status_and_runs(db: Path) -> list[tuple[str, int]]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT status, runs FROM batches").fetchall()


@pytest.mark.skipif(sys.platform == "win32", reason="fcntl.flock")
def test_serve_on_a_locked_database_leaves_its_batches_alone(tmp_path, capsys):
    db = tmp_path / "vq.db"
    running_batch(db)
    with open(f"{db}.lock", "a+b") as lock:  # what a live server holds
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        line = refused(serve_argv(db), capsys)
    assert line == f"{PREFIX} serve: error: --db {db}: {locked(db)}"
    assert status_and_runs(db) == [("running", 1)]  # not re-queued, not run a second time


@pytest.mark.slow
def test_a_running_server_holds_the_database_lock(tmp_path, capsys):
    db = tmp_path / "vq.db"
    with spawn_server(db):
        line = refused(serve_argv(db), capsys)
    assert line == f"{PREFIX} serve: error: --db {db}: {locked(db)}"


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda path: text_file(path), "not a"),
        (lambda path: sqlite3.connect(path).close(), ""),  # an empty SQLite file
        (lambda path: _sqlite(path, "CREATE TABLE batches(id INTEGER PRIMARY KEY, name TEXT)"), ""),
        (lambda path: _sqlite(path, "CREATE TABLE invoices(a)"), ""),
    ],
    ids=["text", "empty", "other-batches", "no-batches"],
)
def test_report_on_a_database_it_cannot_read(tmp_path, capsys, make, expected):
    db = tmp_path / "x.db"
    make(db)
    line = refused(["report", "--db", str(db)], capsys)
    assert line.startswith(f"{PREFIX} report: error: --db {db}") and expected in line


def _sqlite(path: Path, sql: str) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(sql)
        conn.commit()


@pytest.fixture
def good_db(tmp_path) -> Path:
    db = tmp_path / "good.db"
    store = Store(db)
    batch, _ = store.accept(
        job="j", user="u", key="k", payload=b"x", circuits=1, qubits=1, shots=5, seed=None, submitted=1.0
    )
    store.start(batch.id, 2.0)
    store.finish(batch.id, ended=3.0, quantum_seconds=0.5, counts=[{"0": 5}])
    store.close()
    return db


@pytest.mark.parametrize("option", ["--csv", "--json"])
def test_report_checks_an_output_file_before_printing(good_db, tmp_path, capsys, option):
    argv = ["report", "--db", str(good_db), option]
    expected = f"{PREFIX} report: error: {option} {tmp_path}: is a directory"
    assert refused([*argv, str(tmp_path)], capsys) == expected
    missing = tmp_path / "missing" / "r.out"
    assert refused([*argv, str(missing)], capsys) == (
        f"{PREFIX} report: error: {option} {missing}: folder {missing.parent} does not exist"
    )
    under_file = good_db / "r.out"
    assert refused([*argv, str(under_file)], capsys) == (
        f"{PREFIX} report: error: {option} {under_file}: folder {good_db} is not a directory"
    )


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize(("option", "path"), [("--csv", "/proc/nope.csv"), ("--figures", "/proc/figs")])
def test_report_checks_outputs_even_as_root(good_db, capsys, option, path):
    # os.access says yes to root for /proc, where no file can be made
    assert refused(["report", "--db", str(good_db), option, path], capsys) == (
        f"{PREFIX} report: error: {option} {path}: cannot write in /proc: No such file or directory"
    )


def test_report_figures_must_be_a_directory(good_db, capsys):
    assert refused(["report", "--db", str(good_db), "--figures", str(good_db)], capsys) == (
        f"{PREFIX} report: error: --figures {good_db}: not a directory"
    )


def test_report_writes_into_a_new_figures_folder_and_a_csv(good_db, tmp_path, capsys):
    csv = tmp_path / "usage.csv"
    assert main(["report", "--db", str(good_db), "--csv", str(csv)]) == 0
    assert csv.read_text().count("\n") == 2
    assert f"wrote {csv}" in capsys.readouterr().out


def test_probe_qubits_beyond_the_limit(capsys):
    line = refused(["probe", "--url", "http://127.0.0.1:1", "--qubits", "100000000000"], capsys)
    assert line == (
        f"{PREFIX} probe: error: argument --qubits: must be an integer in [1, 65536], got '100000000000'"
    )


# -- --max-shots and the backend's own limit ---------------------------------------------------------
@pytest.mark.timeout(120)
def test_serve_max_shots_above_the_backend_limit_refuses_to_start(tmp_path, capsys):
    argv = ["serve", "--backend", "aer", "--port", str(free_port()), "--db", str(tmp_path / "x.db")]
    assert refused([*argv, "--max-shots", "2000000"], capsys) == (
        f"{PREFIX} serve: error: --max-shots 2000000 exceeds the shot limit of backend 'aer' "
        "(1000000 per circuit)"
    )
    assert list(tmp_path.iterdir()) == []  # checked before the port is bound and the database opened


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_serve_max_shots_at_and_above_the_backend_limit_as_processes(tmp_path):
    db = tmp_path / "vq.db"
    done = subprocess.run(
        server_command(db, free_port(), "--max-shots", "2000000"),
        capture_output=True,
        text=True,
        timeout=120,
        env=subprocess_env(),
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"{PREFIX} serve: error: --max-shots 2000000 exceeds the shot limit of backend 'plain-aer' "
        "(1000000 per circuit)"
    ]
    assert list(tmp_path.iterdir()) == []
    with spawn_server(db, "--max-shots", "1000000") as (_, url):  # the backend's limit itself is fine
        assert httpx.get(f"{url}/health", timeout=30).json()["limits"]["max_shots"] == 1_000_000


@pytest.mark.timeout(60)
def test_without_max_shots_the_default_is_lowered_to_a_smaller_backend_limit():
    tiny, unlimited = SimpleNamespace(name="tiny", max_shots=10), SimpleNamespace(name="remote")
    assert (_max_shots(None, tiny), _max_shots(10, tiny), _max_shots(5, tiny)) == (10, 10, 5)
    assert (_max_shots(None, unlimited), _max_shots(10**9, unlimited)) == (100_000, 10**9)
    with pytest.raises(
        ValueError, match=r"^--max-shots 11 exceeds the shot limit of backend 'tiny' \(10 per"
    ):
        _max_shots(11, tiny)


# -- readers take no lock ------------------------------------------------------------------------------
@pytest.mark.timeout(120)
def test_report_reads_a_database_a_store_is_writing(good_db, capsys):
    store = Store(good_db)  # what a live server holds
    try:
        assert main(["report", "--db", str(good_db)]) == 0
        while_held = capsys.readouterr().out
    finally:
        store.close()
    assert main(["report", "--db", str(good_db)]) == 0
    assert while_held == capsys.readouterr().out and "batches" in while_held


def test_serve_dynamic_count_bounds_out_of_order(tmp_path, capsys):
    line = refused(serve_argv(tmp_path / "x.db", "--dynamic-count", "3:1"), capsys)
    assert line.endswith("argument --dynamic-count: expected MIN:MAX with 1 <= MIN <= MAX, got '3:1'")


def test_serve_dynamic_count_without_slurm_auth(tmp_path, capsys):
    argv = serve_argv(tmp_path / "x.db", "--dynamic-count", "1:4", "--licence-server", "qsrv")
    assert refused(argv, capsys) == (
        f"{PREFIX} serve: error: --dynamic-count needs --slurm-auth and --licence-server, "
        "and the other way round"
    )
    assert not (tmp_path / "x.db").exists()


def test_serve_dynamic_count_of_a_licence_slurm_does_not_have(tmp_path, capsys, monkeypatch):
    bin = tmp_path / "bin"
    bin.mkdir()
    (bin / "scontrol").write_text(
        "#!/bin/sh\necho 'LicenseName=vqpu Total=4 Used=0 Free=4 Reserved=0 Remote=no'\n"
    )
    (bin / "scontrol").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin}:{os.environ['PATH']}")
    options = ("--slurm-auth", "--dynamic-count", "1:4", "--licence-server", "qsrv")
    assert refused(serve_argv(tmp_path / "x.db", *options), capsys) == (
        f"{PREFIX} serve: error: --dynamic-count: Slurm has no licence vqpu@qsrv "
        "(create it: sacctmgr add resource name=vqpu server=qsrv ...)"
    )
    assert not (tmp_path / "x.db").exists()
