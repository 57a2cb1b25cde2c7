r"""Per-account quotas and shares of a vQPU server, and the fair-share factor of Slurm's multifactor priority.

The account file (``serve --account-quotas FILE``) holds one ``account seconds [share]``
line per Slurm account (UTF-8): the account, the quantum seconds it may use (``-`` for
no quota) and its share of the device for ``--policy fair-share`` (a positive weight,
default 1; only the ratios matter). A line whose account is ``*`` gives the terms of
every account not listed (without one: no quota, share 1). Blank lines and lines
starting with ``#`` are ignored. Like the token file it is read again when it changes,
and it fails closed: while it is missing, unreadable or invalid, every submission is
refused (:meth:`AccountBook.problem`) and the scheduler keeps the last valid shares.

The fair-share factor is the classic one of Slurm's multifactor priority plugin:
``F = 2 ** (-U / S)``, where ``U`` is the account's decayed usage divided by the
decayed usage of all accounts and ``S`` its share divided by the shares of all
accounts (:func:`fair_share_factors`). Usage decays with a half-life
(:class:`DecayedUsage`), so an account that used the device long ago is not held back
for ever. An account that used exactly its share has ``F = 0.5``.

>>> terms = parse_accounts("physics 3600 0.5\nchem - 0.3\n* 600")
>>> terms["physics"], terms["chem"].seconds, terms["*"].share
(AccountTerms(seconds=3600.0, share=0.5), None, 1.0)
>>> factors = fair_share_factors({"physics": 50.0, "chem": 50.0}, {"physics": 0.5, "chem": 0.5})
>>> factors
{'physics': 0.5, 'chem': 0.5}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from backends.errors import BackendError
from backends.utils.validation import check_interval
from backends.vqpu.server.watched_file import WatchedFile

__all__ = [
    "DEFAULT",
    "AccountBook",
    "AccountTerms",
    "AccountsUnavailableError",
    "DecayedUsage",
    "fair_share_factors",
    "parse_accounts",
]


#: The account name of the line giving the terms of every account not listed.
DEFAULT = "*"


class AccountTerms(NamedTuple):
    """What one account may use: its quota of quantum seconds (None: no quota) and its share.

    Examples
    --------
    >>> AccountTerms(None, 2.0).share
    2.0
    """

    seconds: float | None = None
    share: float = 1.0


def _number(text: str, what: str, where: str, *, positive: bool) -> float:
    """``text`` as a finite number, > 0 if ``positive`` else >= 0; the message names ``where``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (positive and value == 0):
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{where}: {what} must be a finite number {bound}, got {text!r}")
    return value


def parse_accounts(text: str, source: str | Path = "<accounts>") -> dict[str, AccountTerms]:
    r"""Parse the text of an account file (see the module docstring).

    Parameters
    ----------
    text : str
        One ``account seconds [share]`` line per account; ``-`` as seconds for no quota.
    source : str or Path, optional
        File name used in error messages.

    Returns
    -------
    dict of str to AccountTerms
        Account (``*`` for the default) -> its quota and share.

    Raises
    ------
    ValueError
        If a line holds other than two or three fields, a number is not finite, a
        quota is negative, a share is not positive, or an account repeats (the
        message names file and line).

    Examples
    --------
    >>> parse_accounts("# account seconds share\nphys 100 2\n\nchem -")
    {'phys': AccountTerms(seconds=100.0, share=2.0), 'chem': AccountTerms(seconds=None, share=1.0)}
    >>> parse_accounts("phys 100 0", "quotas.txt")
    Traceback (most recent call last):
    ...
    ValueError: quotas.txt, line 1: share must be a finite number > 0, got '0'
    """
    accounts: dict[str, AccountTerms] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        where = f"{source}, line {number}"
        if len(fields) not in (2, 3):
            raise ValueError(f"{where}: expected 'account seconds [share]', got {len(fields)} fields")
        if fields[0] in accounts:
            raise ValueError(f"{where}: account {fields[0]!r} appears twice")
        seconds = None if fields[1] == "-" else _number(fields[1], "seconds", where, positive=False)
        share = _number(fields[2], "share", where, positive=True) if len(fields) == 3 else 1.0
        accounts[fields[0]] = AccountTerms(seconds, share)
    return accounts


class AccountsUnavailableError(BackendError):
    """The account file is missing, unreadable or invalid: submissions are refused until it is fixed.

    Examples
    --------
    >>> issubclass(AccountsUnavailableError, BackendError)
    True
    """


class AccountBook:
    r"""Quotas and shares per account from a file, read again when it changes, failing closed.

    Parameters
    ----------
    path : str or Path
        The account file (see the module docstring).

    Raises
    ------
    OSError
        If the file cannot be read when the book is made.
    ValueError
        If the file is invalid, see :func:`parse_accounts`.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "accounts"
    >>> _ = path.write_text("phys 100 3\n* - 1\n")
    >>> book = AccountBook(path)
    >>> book.terms("phys"), book.share("other")
    (AccountTerms(seconds=100.0, share=3.0), 1.0)
    >>> _ = path.write_text("phys 100 3 extra\n")  # broken: submissions refused, shares kept
    >>> book.problem() is not None, book.share("phys")
    (True, 3.0)
    >>> folder.cleanup()
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file = WatchedFile(
            self.path, parse_accounts, ("account file", "every submission is refused", "accounts")
        )

    def problem(self) -> str | None:
        r"""Why the file is unusable now (every submission is then refused), or None.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = Path(folder.name) / "accounts"
        >>> _ = path.write_text("phys 100\n")
        >>> book = AccountBook(path)
        >>> path.unlink()
        >>> print(book.problem())  # doctest: +ELLIPSIS
        account file .../accounts unusable, every submission is refused until it is fixed: ...
        >>> folder.cleanup()
        """
        return self._file.problem()

    def terms(self, account: str) -> AccountTerms:
        r"""The quota and share of ``account``: its line, else the ``*`` line, else no quota and share 1.

        Raises
        ------
        AccountsUnavailableError
            While the file is missing, unreadable or invalid.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = Path(folder.name) / "accounts"
        >>> _ = path.write_text("phys 100\n")
        >>> book = AccountBook(path)
        >>> book.terms("phys"), book.terms("chem")
        (AccountTerms(seconds=100.0, share=1.0), AccountTerms(seconds=None, share=1.0))
        >>> folder.cleanup()
        """
        if (problem := self.problem()) is not None:
            raise AccountsUnavailableError(problem)
        return self._of(account)

    def share(self, account: str) -> float:
        r"""The share of ``account`` (:meth:`terms`), from the last valid file while it is unusable.

        Examples
        --------
        >>> import tempfile
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = Path(folder.name) / "accounts"
        >>> _ = path.write_text("phys - 0.5\nchem - 0.3\n")
        >>> book = AccountBook(path)
        >>> book.share("phys"), book.share("chem"), book.share("bio")
        (0.5, 0.3, 1.0)
        >>> folder.cleanup()
        """
        self.problem()  # re-read if it changed
        return self._of(account).share

    def _of(self, account: str) -> AccountTerms:
        """The terms of ``account`` in the last valid file."""
        terms = self._file.contents
        return terms.get(account) or terms.get(DEFAULT) or AccountTerms()


def fair_share_factors(usage: Mapping[str, float], shares: Mapping[str, float]) -> dict[str, float]:
    """The fair-share factor ``2 ** (-U / S)`` of each account of ``shares``.

    ``U`` is the account's usage over the usage of all accounts of ``usage`` and
    ``shares`` (0 when none has any), ``S`` its share over the sum of ``shares``:
    the classic formula of Slurm's multifactor priority plugin, with the accounts as
    the children of one root. A factor of 1 means no usage, 0.5 usage equal to the
    share, less than 0.5 usage beyond it.

    Parameters
    ----------
    usage : mapping of str to float
        Decayed usage per account (seconds); an account missing has none.
    shares : mapping of str to float
        Positive share per account: the accounts to rate.

    Returns
    -------
    dict of str to float
        Account -> factor in ``(0, 1]``, in the order of ``shares``.

    Examples
    --------
    >>> fair_share_factors({"a": 30.0, "b": 10.0}, {"a": 0.5, "b": 0.5})
    {'a': 0.3535533905932738, 'b': 0.7071067811865476}
    >>> fair_share_factors({}, {"a": 1.0})
    {'a': 1.0}
    """
    total_usage = sum(usage.get(account, 0.0) for account in shares)
    total_usage += sum(used for account, used in usage.items() if account not in shares)
    total_share = sum(shares.values())
    factors = {}
    for account, share in shares.items():
        used = usage.get(account, 0.0) / total_usage if total_usage > 0 else 0.0
        factors[account] = 2.0 ** (-used / (share / total_share))
    return factors


class DecayedUsage:
    """Usage per account that halves every ``half_life`` seconds, as Slurm's ``PriorityDecayHalfLife``.

    The usage is kept at the time of the last update; a charge or a read at a later
    time first decays every account's usage to it, so each costs time linear in the
    number of accounts. Accounts whose usage decayed below a nanosecond are forgotten.

    Parameters
    ----------
    half_life : float
        Seconds after which usage counts half, > 0 and finite.

    Raises
    ------
    InvalidParameterError
        If ``half_life`` is not a finite number > 0.

    Examples
    --------
    >>> usage = DecayedUsage(half_life=10.0)
    >>> usage.charge("a", 8.0, now=0.0)
    >>> usage.at(now=20.0)
    {'a': 2.0}
    """

    def __init__(self, half_life: float) -> None:
        self.half_life = check_interval(half_life, "half_life", 0.0, 1e12)
        self._usage: dict[str, float] = {}
        self._stamp: float | None = None

    def _decay(self, now: float) -> None:
        """Decay every account's usage to ``now`` (a clock that stepped back decays nothing)."""
        if self._stamp is not None and now > self._stamp:
            scale = 2.0 ** (-(now - self._stamp) / self.half_life)
            self._usage = {a: u * scale for a, u in self._usage.items() if u * scale >= 1e-9}
        if self._stamp is None or now > self._stamp:
            self._stamp = now

    def charge(self, account: str, seconds: float, *, now: float) -> None:
        """Add ``seconds`` of use by ``account`` at time ``now`` (epoch seconds).

        Examples
        --------
        >>> usage = DecayedUsage(half_life=1.0)
        >>> usage.charge("a", 1.0, now=0.0); usage.charge("a", 1.0, now=1.0)
        >>> usage.at(now=1.0)
        {'a': 1.5}
        """
        self._decay(now)
        if seconds > 0:
            self._usage[account] = self._usage.get(account, 0.0) + seconds

    def at(self, *, now: float) -> dict[str, float]:
        """The decayed usage of every account with some, at time ``now``.

        Examples
        --------
        >>> DecayedUsage(half_life=5.0).at(now=3.0)
        {}
        """
        self._decay(now)
        return dict(self._usage)

    def accounts(self) -> Iterable[str]:
        """The accounts with usage not yet decayed away (as of the last update).

        Examples
        --------
        >>> usage = DecayedUsage(half_life=5.0)
        >>> usage.charge("a", 1.0, now=0.0)
        >>> list(usage.accounts())
        ['a']
        """
        return list(self._usage)
