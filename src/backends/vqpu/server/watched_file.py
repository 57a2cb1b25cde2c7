"""A configuration file the server reads again whenever it changes, and that fails closed.

The token file and the account file are edited while the server runs (a new job's token
appended, a quota raised). :class:`WatchedFile` parses its file again when its
modification time, change time, size or inode change; while the file is missing,
unreadable or invalid, :meth:`WatchedFile.problem` says why (and the server refuses what
depends on it), keeping the last valid contents for whoever may use them. Each new
problem, and the recovery, is logged once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sized
from pathlib import Path
from typing import Generic, TypeVar

__all__ = ["WatchedFile"]

log = logging.getLogger("backends.vqpu")
_Contents = TypeVar("_Contents", bound=Sized)


class WatchedFile(Generic[_Contents]):
    r"""A file parsed by ``parse(text, path)``, again whenever it changes.

    Parameters
    ----------
    path : str or Path
        The file (UTF-8).
    parse : callable
        ``parse(text, path)``: the contents (a sized collection, e.g. a dict), or
        :class:`ValueError` naming the file and line.
    what : (str, str, str)
        For messages: what the file is, what its loss refuses, and what it holds
        (``"token file"``, ``"every token is refused"``, ``"tokens"``).

    Raises
    ------
    OSError
        If the file cannot be read when the object is made.
    ValueError
        If the file is invalid then.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "names"
    >>> _ = path.write_text("a b\n")
    >>> parse = lambda text, source: dict(line.split() for line in text.splitlines())
    >>> watched = WatchedFile(path, parse, ("name file", "every name is refused", "names"))
    >>> watched.problem(), watched.contents
    (None, {'a': 'b'})
    >>> path.unlink()
    >>> print(watched.problem())  # doctest: +ELLIPSIS
    name file .../names unusable, every name is refused until it is fixed: ...
    >>> watched.contents  # the last valid contents are kept
    {'a': 'b'}
    >>> folder.cleanup()
    """

    def __init__(
        self, path: str | Path, parse: Callable[[str, Path], _Contents], what: tuple[str, str, str]
    ) -> None:
        self.path = Path(path)
        self.parse = parse
        self.kind, self.refused, self.entries = what
        self._stamp: tuple[int, ...] | None = None
        self._problem: str | None = None
        self._lock = threading.Lock()
        self.contents: _Contents = self._read()

    def _read(self) -> _Contents:
        """The file's contents, parsed again only if it changed (OSError, ValueError if unusable)."""
        try:
            info = self.path.stat()
        except OSError:
            self._stamp = None
            raise
        stamp = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
        if stamp == self._stamp:
            return self.contents
        self._stamp = None
        contents = self.parse(self.path.read_text(encoding="utf-8"), self.path)
        self._stamp = stamp
        return contents

    def problem(self) -> str | None:
        r"""Read the file again if it changed; why it is unusable now, or ``None``.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = Path(folder.name) / "names"
        >>> _ = path.write_text("")
        >>> split = lambda text, source: text.split()
        >>> watched = WatchedFile(path, split, ("name file", "all refused", "names"))
        >>> _ = path.write_text("a b c\n")
        >>> watched.problem(), watched.contents
        (None, ['a', 'b', 'c'])
        >>> folder.cleanup()
        """
        with self._lock:
            try:
                self.contents = self._read()
            except (OSError, ValueError) as exc:
                problem = f"{self.kind} {self.path} unusable, {self.refused} until it is fixed: {exc}"
                if problem != self._problem:
                    log.error("%s", problem)
                    self._problem = problem
                return problem
            if self._problem is not None:
                log.warning(
                    "%s %s usable again: %d %s", self.kind, self.path, len(self.contents), self.entries
                )
                self._problem = None
            return None
