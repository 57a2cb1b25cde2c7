"""Per-job tokens of a vQPU server, read from a file that may grow while the server runs.

The file holds one ``name token`` pair per line; blank lines and lines starting with
``#`` are ignored.

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

__all__ = ["TokenBook", "parse_tokens"]

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


class TokenBook:
    """Per-job tokens from a file with one ``name token`` pair per line.

    The file is read again when its modification time changes, so tokens of new jobs
    can be appended while the server runs; if the new contents are unreadable or
    invalid, the tokens read before stay in use.

    Parameters
    ----------
    path : str or Path
        The token file.

    Raises
    ------
    OSError
        If the file cannot be read.
    ValueError
        If the file is invalid, see :func:`parse_tokens`.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._mtime: int | None = None
        self._names: dict[str, str] = {}
        self._lock = threading.Lock()
        self._load()

    def _load(self) -> None:
        """Read the file again if its modification time changed."""
        mtime = self.path.stat().st_mtime_ns
        if mtime == self._mtime:
            return
        self._names = parse_tokens(self.path.read_text(), self.path)
        self._mtime = mtime

    def name_of(self, token: str) -> str | None:
        """Return the job name of ``token``, or None if it is unknown."""
        with self._lock:
            try:
                self._load()
            except (OSError, ValueError) as exc:  # keep serving with the tokens read before
                log.error("token file not reloaded: %s", exc)
            return self._names.get(token)
