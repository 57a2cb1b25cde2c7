"""Output files, written the one way every command of the project writes them.

:func:`atomic_write` writes a new or regular file through a temporary file in the same
folder, renamed over it at the end, so a reader never sees half a file and a failed
write leaves the old file as it was. The new file gets the usual mode (``0o666`` less
the umask) or keeps the mode of the file it replaces. Anything else named as output (a
device such as ``/dev/null``, a FIFO, a symbolic link) is written through, as the
shell's ``>`` does, and never replaced. Errors name the path given, never the
temporary file.

:func:`check_writable` and :func:`check_distinct` let a command refuse a bad output
path before any long work, with one :class:`~backends.utils.errors.InvalidParameterError`
naming the option and the path. :func:`check_writable` actually makes (and removes) a
file where the output would go: ``os.access`` says yes to root and on file systems such
as ``/proc``.
"""

from __future__ import annotations

import errno
import io
import os
import secrets
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TextIO

from backends.utils.errors import InvalidParameterError

__all__ = ["atomic_write", "atomic_write_text", "check_distinct", "check_folder_writable", "check_writable"]

PathLike = str | os.PathLike[str]

#: Mode asked for a new file; the kernel takes the umask (or a default ACL) off it.
_NEW_FILE_MODE = 0o666


def atomic_write(path: PathLike, write: Callable[[IO[bytes]], object]) -> None:
    """Call ``write(handle)`` to write ``path``: atomically if it is a regular file or new.

    A new or regular file is written as a temporary file next to it, flushed to disk and
    renamed over it, so ``path`` holds either its old content or the complete new one.
    It gets mode ``0o666`` less the umask, or the mode of the file it replaces. A path
    that is a symbolic link or names a device or FIFO is opened and written in place
    (``/dev/null`` stays a device, a link stays a link), as the shell's ``>`` would.

    Parameters
    ----------
    path : str or path-like
        The output; its folder must exist.
    write : callable
        Writes the content to the binary file handle it is given; what it returns is
        ignored.

    Raises
    ------
    OSError
        If the file cannot be made, written or renamed; its ``filename`` is ``path``,
        never the temporary file. The temporary file is removed and an existing
        ``path`` is left as it was. Whatever ``write`` raises passes through the same
        way.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     atomic_write(f"{folder}/a.txt", lambda handle: handle.write(b"done"))
    ...     try:
    ...         atomic_write(f"{folder}/a.txt", lambda handle: 1 / 0)
    ...     except ZeroDivisionError:
    ...         pass
    ...     Path(f"{folder}/a.txt").read_bytes(), sorted(p.name for p in Path(folder).iterdir())
    (b'done', ['a.txt'])

    A link (or a device such as ``/dev/null``) is written through, not replaced:

    >>> with tempfile.TemporaryDirectory() as folder:
    ...     Path(f"{folder}/link.txt").symlink_to("a.txt")
    ...     atomic_write(f"{folder}/link.txt", lambda handle: handle.write(b"via the link"))
    ...     Path(f"{folder}/link.txt").is_symlink(), Path(f"{folder}/a.txt").read_bytes()
    (True, b'via the link')
    """
    target = Path(path)
    if _writes_through(target):
        _write_through(target, write)
    else:
        _replace(target, write)


def atomic_write_text(
    path: PathLike,
    write: Callable[[TextIO], object],
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
) -> None:
    """:func:`atomic_write` with a text handle (``encoding`` and ``newline`` as for :func:`open`).

    Parameters
    ----------
    path : str or path-like
        The output; its folder must exist.
    write : callable
        Writes the content to the text file handle it is given.
    encoding : str, default "utf-8"
    newline : str or None, default None
        ``""`` writes line ends unchanged (what :mod:`csv` asks for).

    Raises
    ------
    OSError
        As :func:`atomic_write`.

    Examples
    --------
    >>> import json, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     atomic_write_text(f"{folder}/r.json", lambda file: json.dump({"colours": 4}, file))
    ...     Path(f"{folder}/r.json").read_text()
    '{"colours": 4}'
    """

    def write_text(handle: IO[bytes]) -> None:
        text = io.TextIOWrapper(handle, encoding=encoding, newline=newline)
        try:
            write(text)
            text.flush()
        finally:
            text.detach()  # the caller closes the binary handle

    atomic_write(path, write_text)


def check_writable(path: PathLike, option: str) -> None:
    """Refuse an output file that :func:`atomic_write` could not write, before any work.

    For a new or regular file, a file is made and removed in its folder; a device, FIFO
    or link is opened for writing (without waiting for a FIFO's reader). Nothing is left
    behind and an existing file is not changed.

    Parameters
    ----------
    path : str or path-like
        The output file, as the user gave it.
    option : str
        What the user called it (``"--json"``), named in the message.

    Raises
    ------
    InvalidParameterError
        Naming ``option`` and ``path``: a directory, a folder that does not exist or is
        not a directory, or one where no file can be made (also for root and on ``/proc``),
        or a device that cannot be opened for writing.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     check_writable(f"{folder}/result.json", "--json")
    ...     os.listdir(folder)
    []
    >>> check_writable(os.devnull, "--json")
    >>> check_writable("/no-such/out.json", "--json")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: --json /no-such/out.json: folder /no-such does not exist
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidParameterError(f"{option} {path}: is a directory")
    if _writes_through(target) and target.exists():
        try:
            os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY))
        except OSError as error:
            if error.errno != errno.ENXIO:  # a FIFO nobody reads yet: it waits, as with ``>``
                raise InvalidParameterError(
                    f"{option} {path}: cannot write to it: {error.strerror or error}"
                ) from None
        return
    folder = Path(os.path.realpath(target)).parent if target.is_symlink() else target.parent
    if not folder.is_dir():
        reason = "is not a directory" if folder.exists() else "does not exist"
        raise InvalidParameterError(f"{option} {path}: folder {folder} {reason}")
    check_folder_writable(folder, option, path)


def check_folder_writable(folder: PathLike, option: str, path: PathLike | None = None) -> None:
    """Refuse an existing ``folder`` in which no file can be made, by making (and removing) one.

    Parameters
    ----------
    folder : str or path-like
        An existing folder.
    option : str
        What the user called the output (``"--workdir"``), named in the message.
    path : str or path-like, optional
        The output as the user gave it, named in the message; default ``folder``.

    Raises
    ------
    InvalidParameterError
        ``"{option} {path}: cannot write in {folder}: {reason}"``, also for root and on
        file systems such as ``/proc``, where ``os.access`` says yes.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     check_folder_writable(folder, "--workdir")
    ...     os.listdir(folder)
    []
    """
    try:
        handle, temporary = _make_temporary(Path(folder), ".write-check", _NEW_FILE_MODE)
        os.close(handle)
        temporary.unlink()
    except OSError as error:
        reason = error.strerror or str(error)
        shown = folder if path is None else path
        raise InvalidParameterError(f"{option} {shown}: cannot write in {folder}: {reason}") from None


def check_distinct(outputs: Mapping[str, PathLike | None]) -> None:
    """Refuse two options naming the same output file (one would overwrite the other).

    Paths are compared after resolving links and ``..``; options given None are
    skipped, and so are devices and FIFOs (``--json /dev/null --plot /dev/null`` is fine).

    Parameters
    ----------
    outputs : mapping of str to path-like or None
        Option name (``"--json"``) to the path given, or None when not given.

    Raises
    ------
    InvalidParameterError
        Naming both options and the path.

    Examples
    --------
    >>> check_distinct({"--json": "run.json", "--checkpoint": "run.ckpt", "--plot": None})
    >>> check_distinct({"--json": "run.json", "--checkpoint": "./run.json"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: --json run.json and --checkpoint ./run.json name the same...
    """
    seen: dict[Path, tuple[str, PathLike]] = {}
    for option, path in outputs.items():
        if path is None or (Path(path).exists() and not Path(path).is_file()):
            continue
        key = Path(os.path.realpath(path))
        if key in seen:
            first, first_path = seen[key]
            raise InvalidParameterError(f"{first} {first_path} and {option} {path} name the same file")
        seen[key] = (option, path)


# -- helpers ----------------------------------------------------------------------------
def _writes_through(target: Path) -> bool:
    """Whether ``target`` is a link or exists as something other than a regular file."""
    try:
        return target.is_symlink() or not stat.S_ISREG(target.stat().st_mode)
    except OSError:  # missing, or a folder on the way is not searchable: a new file
        return False


def _write_through(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Open ``target`` for writing (truncated, created behind a dangling link) and write it."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOCTTY, _NEW_FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.fsync(fd)
    except OSError as error:
        raise _naming(error, target, None) from None


def _replace(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """Write a temporary file next to ``target``, then rename it over ``target``."""
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode) & 0o777
    except OSError:
        mode = None
    try:
        fd, temporary = _make_temporary(target.parent, target.name, _NEW_FILE_MODE)
    except OSError as error:  # about the temporary file: say which output could not be made
        raise OSError(error.errno, error.strerror, str(target)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(fd, mode)
            write(handle)
            handle.flush()
            os.fsync(fd)
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise _naming(error, target, temporary) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _make_temporary(folder: Path, name: str, mode: int) -> tuple[int, Path]:
    """Create a new file ``.NAME.RANDOM.tmp`` in ``folder``; its descriptor and path.

    Unlike :func:`tempfile.mkstemp` (always ``0o600``), the file gets ``mode`` less the
    umask, as :func:`open` would give it.
    """
    while True:
        temporary = folder / f".{name[:100]}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode), temporary
        except FileExistsError:
            continue


def _naming(error: OSError, target: Path, temporary: Path | None) -> OSError:
    """``error`` naming ``target`` where it named the temporary file or no file.

    An error of the writer about another file (one it reads, say) is left as it is.
    """
    ours = error.filename is None or (temporary is not None and str(error.filename) == str(temporary))
    if error.errno is None or not ours:
        return error
    return OSError(error.errno, error.strerror, str(target))
