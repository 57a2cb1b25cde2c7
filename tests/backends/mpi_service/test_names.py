"""Port files and name lookup."""

import pytest

from backends.errors import BackendConnectionError, InvalidParameterError
from backends.mpi_service.names import PORT_DIR_VARIABLE, check_name, lookup, publish, unpublish


def test_lookup_gives_up_after_its_timeout(monkeypatch, tmp_path):
    monkeypatch.setenv(PORT_DIR_VARIABLE, str(tmp_path))
    with pytest.raises(
        BackendConnectionError, match=f"no MPI quantum service named 'nobody' found in {tmp_path}"
    ):
        lookup("nobody", timeout=0.2)


def test_published_port_is_found_and_unpublished(monkeypatch, tmp_path):
    monkeypatch.setenv(PORT_DIR_VARIABLE, str(tmp_path / "ports"))
    publish("qpu-1", "tag#0$port")
    assert lookup("qpu-1", timeout=0.1) == "tag#0$port"
    unpublish("qpu-1", "tag#0$port")
    assert not (tmp_path / "ports" / "qpu-1.port").exists()


@pytest.mark.parametrize("name", ["", "a b", "../x", "x" * 65, "-lead"])
def test_bad_names_are_refused(name):
    with pytest.raises(InvalidParameterError, match=f"service name must be.*got {name!r}"):
        check_name(name)
