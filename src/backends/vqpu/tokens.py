"""Per-job tokens of a vQPU server, read from a file that may grow while the server runs.

The file holds one ``name token`` pair per line (UTF-8); blank lines and lines
starting with ``#`` are ignored. It fails closed: while it is deleted, unreadable
or invalid, no token is valid (the server answers 503), and once it is fixed its
tokens are valid again.

>>> parse_tokens("job-a secret-a")
{'secret-a': 'job-a'}
>>> parse_tokens("job-a secret-a extra", "tokens.txt")
Traceback (most recent call last):
...
ValueError: tokens.txt, line 1: expected 'name token', got 3 fields
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from backends.errors import BackendError

__all__ = ["TokenBook", "TokensUnavailableError", "parse_tokens"]

log = logging.getLogger("backends.vqpu")


def parse_tokens(text: str, source: str | Path = "<tokens>") -> dict[str, str]:
    """Parse the text of a token file.

    Parameters
    ----------
    text : str
        One ``name token`` pair per line; blank lines and ``#`` comments are skipped.
    source : str or Path, optional
        File name used in error messages.

    Returns
    -------
    dict of str to str
        Token -> job name.

    Raises
    ------
    ValueError
        If a line does not hold exactly two fields, or a name or token repeats
        (the message names file and line).
    """
    names: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise ValueError(f"{source}, line {number}: expected 'name token', got {len(fields)} fields")
        name, token = fields
        if token in names or name in names.values():
            raise ValueError(f"{source}, line {number}: name or token {name!r} appears twice")
        names[token] = name
    return names


class TokensUnavailableError(BackendError):
    """The token file became unreadable or invalid: every token is refused until it is fixed."""


class TokenBook:
    """Per-job tokens from a file with one ``name token`` pair per line.

    The file is read again when it changes (modification time, size or inode), so
    tokens of new jobs can be appended while the server runs. The book fails
    closed: if the file is deleted, unreadable (including not UTF-8) or invalid,
    every token it held is revoked and :meth:`name_of` raises
    :class:`TokensUnavailableError` until a valid file is back; each new problem,
    and the recovery, is logged once.

    Parameters
    ----------
    path : str or Path
        The token file.

    Raises
    ------
    OSError
        If the file cannot be read when the book is made.
    ValueError
        If the file is invalid, see :func:`parse_tokens`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._stamp: tuple[int, ...] | None = None
        self._names: dict[str, str] = {}
        self._problem: str | None = None
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        """Read the file again if it changed since the last read.

        Raises
        ------
        OSError, ValueError
            If the file is missing, unreadable or invalid (the tokens are then revoked).
        """
        try:
            info = self.path.stat()
        except OSError:
            self._stamp, self._names = None, {}
            raise
        stamp = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
        if stamp == self._stamp:
            return
        self._stamp, self._names = None, {}
        self._names = parse_tokens(self.path.read_text(encoding="utf-8"), self.path)
        self._stamp = stamp

    def name_of(self, token: str) -> str | None:
        """Return the job name of ``token``, or None if it is unknown.

        Raises
        ------
        TokensUnavailableError
            While the token file is missing, unreadable or invalid.
        """
        with self._lock:
            try:
                self._load()
            except (OSError, ValueError) as exc:  # fail closed: no file, no tokens
                problem = f"token file {self.path} unusable, every token is refused until it is fixed: {exc}"
                if problem != self._problem:
                    log.error("%s", problem)
                    self._problem = problem
                raise TokensUnavailableError(problem) from None
            if self._problem is not None:
                log.warning("token file %s usable again: %d tokens", self.path, len(self._names))
                self._problem = None
            return self._names.get(token)
