"""Per-job tokens of a vQPU server, read from a file that may grow while the server runs.

The file holds one ``name token [user]`` line per job (UTF-8): the job's name (one
token per Slurm job), its secret token and, optionally, the user billed for it
(default: the job's name); blank lines and lines starting with ``#`` are ignored.
It fails closed: while it is deleted, unreadable or invalid, no token is valid (the
server answers 503), and once it is fixed its tokens are valid again.

>>> parse_tokens("job-a secret-a alice")["secret-a"][:2]
('job-a', 'alice')
>>> parse_tokens("job-a secret-a alice extra", "tokens.txt")
Traceback (most recent call last):
...
ValueError: tokens.txt, line 1: expected 'name token [user]', got 4 fields
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from backends.errors import BackendError
from backends.vqpu.server.watched_file import WatchedFile

__all__ = ["Caller", "TokenBook", "TokensUnavailableError", "parse_tokens"]


class Caller(NamedTuple):
    """Who sent a request: the job (one token per Slurm job) and the user billed for it.

    Attributes
    ----------
    job, user : str
        The job (a token's name, or a Slurm job id) and the user billed.
    account : str
        The Slurm account of a Slurm-bound caller (empty for token and open mode).
    shares : int
        The count of vQPU resource the job holds (``vqpu:N``); 1 without Slurm.

    Examples
    --------
    >>> caller = Caller("job-7", "alice")
    >>> caller.job, caller.user, caller.account, caller.shares
    ('job-7', 'alice', '', 1)
    """

    job: str
    user: str
    account: str = ""
    shares: int = 1


def parse_tokens(text: str, source: str | Path = "<tokens>") -> dict[str, Caller]:
    r"""Parse the text of a token file.

    Parameters
    ----------
    text : str
        One ``name token [user]`` line per job; blank lines and ``#`` comments are skipped.
    source : str or Path, optional
        File name used in error messages.

    Returns
    -------
    dict of str to Caller
        Token -> job name and user (the job's name when the line names no user).

    Raises
    ------
    ValueError
        If a line does not hold two or three fields, or a name or token repeats
        (the message names file and line).

    Examples
    --------
    >>> callers = parse_tokens("# name token user\njob-a tok-a alice\n\njob-b tok-b")
    >>> {token: (caller.job, caller.user) for token, caller in callers.items()}
    {'tok-a': ('job-a', 'alice'), 'tok-b': ('job-b', 'job-b')}
    >>> parse_tokens("job-a tok-a\njob-a tok-b", "tokens.txt")
    Traceback (most recent call last):
    ...
    ValueError: tokens.txt, line 2: name or token 'job-a' appears twice
    """
    callers: dict[str, Caller] = {}
    names: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in (2, 3):
            raise ValueError(
                f"{source}, line {number}: expected 'name token [user]', got {len(fields)} fields"
            )
        name, token, user = fields[0], fields[1], fields[-1] if len(fields) == 3 else fields[0]
        if token in callers or name in names:
            raise ValueError(f"{source}, line {number}: name or token {name!r} appears twice")
        callers[token] = Caller(name, user)
        names.add(name)
    return callers


class TokensUnavailableError(BackendError):
    """The token file became unreadable or invalid: every token is refused until it is fixed.

    Examples
    --------
    >>> from backends.errors import BackendError
    >>> issubclass(TokensUnavailableError, BackendError)
    True
    """


class TokenBook:
    r"""Per-job tokens from a file with one ``name token [user]`` line per job.

    The file is read again when it changes (modification time, size or inode), so
    tokens of new jobs can be appended while the server runs. The book fails
    closed: if the file is deleted, unreadable (including not UTF-8) or invalid,
    every token it held is revoked and :meth:`caller_of` raises
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

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "tokens"
    >>> _ = path.write_text("job-a tok-a alice\n")
    >>> book = TokenBook(path)
    >>> book.caller_of("tok-a"), book.caller_of("guess")
    (Caller(job='job-a', user='alice', account='', shares=1), None)
    >>> folder.cleanup()
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file = WatchedFile(self.path, parse_tokens, ("token file", "every token is refused", "tokens"))

    def caller_of(self, token: str) -> Caller | None:
        r"""Return the job and user of ``token``, or None if it is unknown.

        Raises
        ------
        TokensUnavailableError
            While the token file is missing, unreadable or invalid.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = Path(folder.name) / "tokens"
        >>> _ = path.write_text("job-a tok-a\n")
        >>> book = TokenBook(path)
        >>> with path.open("a") as file:  # a new job's token, appended while the server runs
        ...     _ = file.write("job-b tok-b bob\n")
        >>> book.caller_of("tok-b")
        Caller(job='job-b', user='bob', account='', shares=1)
        >>> path.unlink()
        >>> try:  # fails closed while the file is missing
        ...     book.caller_of("tok-a")
        ... except Exception as error:
        ...     print(type(error).__name__)
        TokensUnavailableError
        >>> folder.cleanup()
        """
        if (problem := self._file.problem()) is not None:  # fail closed: no file, no tokens
            raise TokensUnavailableError(problem)
        return self._file.contents.get(token)
