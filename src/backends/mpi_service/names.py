"""Where a service's MPI port is found: a directory of port files or MPI's name service.

When the environment variable :data:`PORT_DIR_VARIABLE` names a directory (on a file
system both components see), the service writes its port to ``DIR/NAME.port`` (atomically)
and clients read it there, waiting until it appears. Otherwise ``MPI.Publish_name`` and
``MPI.Lookup_name`` are used, which need a name server shared by both sides (MPICH:
``hydra_nameserver`` and ``mpiexec -nameserver HOST``). Slurm's PMI-2 (``srun``) answers
lookups only within one step, so jobs launched by ``srun`` use the directory.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from backends.errors import BackendConnectionError, InvalidParameterError
from backends.utils.files import atomic_write

__all__ = ["PORT_DIR_VARIABLE", "check_name", "lookup", "publish", "unpublish"]

#: Environment variable naming the directory of port files.
PORT_DIR_VARIABLE = "BBQMIS_MPI_PORTS"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_name(name: str) -> str:
    """Return ``name`` if it is a valid service name (letters, digits, ``_.-``, at most 64).

    Raises
    ------
    InvalidParameterError
        Otherwise.

    Examples
    --------
    >>> check_name("qpu-1.a")
    'qpu-1.a'
    >>> check_name("-qpu")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: service name must be 1 to 64 letters, ... got '-qpu'
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidParameterError(
            f"service name must be 1 to 64 letters, digits, '_', '.' or '-' starting with a letter "
            f"or digit, got {name!r}"
        )
    return name


def _port_file(name: str) -> Path | None:
    """``DIR/NAME.port`` when :data:`PORT_DIR_VARIABLE` is set, else None."""
    directory = os.environ.get(PORT_DIR_VARIABLE)
    return Path(directory) / f"{check_name(name)}.port" if directory else None


def publish(name: str, port: str) -> None:
    """Make ``port`` findable under ``name`` (port file, or ``MPI.Publish_name``).

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.TemporaryDirectory()
    >>> with mock.patch.dict(os.environ, {PORT_DIR_VARIABLE: folder.name}):  # port files, not MPI's
    ...     publish("qpu", "tag#0$port#4242$")
    >>> (Path(folder.name) / "qpu.port").read_text()
    'tag#0$port#4242$'
    >>> folder.cleanup()
    """
    path = _port_file(name)
    if path is None:
        from mpi4py import MPI

        MPI.Publish_name(name, port)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, lambda handle: handle.write(port.encode()))


def unpublish(name: str, port: str) -> None:
    """Undo :func:`publish` (a missing entry is not an error).

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.TemporaryDirectory()
    >>> with mock.patch.dict(os.environ, {PORT_DIR_VARIABLE: folder.name}):  # port files, not MPI's
    ...     publish("qpu", "tag#0$port#4242$")
    ...     unpublish("qpu", "tag#0$port#4242$")
    ...     unpublish("qpu", "tag#0$port#4242$")
    >>> os.listdir(folder.name)
    []
    >>> folder.cleanup()
    """
    path = _port_file(name)
    if path is None:
        from mpi4py import MPI

        try:
            MPI.Unpublish_name(name, port)
        except MPI.Exception:
            pass
        return
    path.unlink(missing_ok=True)


def lookup(name: str, timeout: float, poll: float = 0.1) -> str:
    """Return the port published under ``name``, waiting at most ``timeout`` seconds for it.

    Raises
    ------
    BackendConnectionError
        If no port is published under ``name`` within ``timeout``.

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.TemporaryDirectory()
    >>> with mock.patch.dict(os.environ, {PORT_DIR_VARIABLE: folder.name}):  # port files, not MPI's
    ...     publish("qpu", "tag#0$port#4242$")
    ...     print(lookup("qpu", timeout=1.0))
    ...     try:
    ...         lookup("other", timeout=0.0)
    ...     except BackendConnectionError as error:
    ...         print(error)  # doctest: +ELLIPSIS
    tag#0$port#4242$
    no MPI quantum service named 'other' found in .../other.port within 0 s
    >>> folder.cleanup()
    """
    path = _port_file(name)
    deadline = time.monotonic() + timeout
    while True:
        port = _read_port(name, path)
        if port:
            return port
        if time.monotonic() >= deadline:
            where = f"in {path}" if path else "by MPI.Lookup_name (set BBQMIS_MPI_PORTS to use port files)"
            raise BackendConnectionError(
                f"no MPI quantum service named {name!r} found {where} within {timeout:g} s"
            )
        time.sleep(poll)


def _read_port(name: str, path: Path | None) -> str:
    """The published port, or ``""`` while there is none."""
    if path is not None:
        try:
            return path.read_text().strip()
        except FileNotFoundError:
            return ""
    from mpi4py import MPI

    try:
        return str(MPI.Lookup_name(name))
    except MPI.Exception:
        return ""
