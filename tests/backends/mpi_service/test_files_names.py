"""Port files through the shared output writer: complete when seen, the normal mode, no leftovers."""

import os
import stat

from backends.mpi_service.names import PORT_DIR_VARIABLE, lookup, publish


def test_a_port_file_gets_the_normal_mode_and_replaces_an_old_one(monkeypatch, tmp_path):
    monkeypatch.setenv(PORT_DIR_VARIABLE, str(tmp_path))
    (tmp_path / "qpu.port").write_text("stale")
    old = os.umask(0o022)
    try:
        publish("qpu", "tag#1$port#4243$")
    finally:
        os.umask(old)
    assert lookup("qpu", timeout=0.1) == "tag#1$port#4243$"
    assert os.listdir(tmp_path) == ["qpu.port"]
    assert stat.S_IMODE((tmp_path / "qpu.port").stat().st_mode) == 0o644
