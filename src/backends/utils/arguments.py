"""The project's command lines: one parser class, and numbers in a range as argument types.

Every command (``python -m bbqmis``, ``python -m clustagg``, ``python -m backends.vqpu``,
``python -m backends.mpi_service``) builds its parser from :class:`CommandParser`, whose
errors are one line and exit status 2. ``argparse`` calls a type with the option's text
and turns an ``ArgumentTypeError`` into ``error: argument --OPTION: MESSAGE``, so every
numeric option gets the same message shape.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

__all__ = ["CommandParser", "integer", "real"]

_Number = TypeVar("_Number", int, float)


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2.

    Parameters
    ----------
    *args, **kwargs
        As for :class:`argparse.ArgumentParser`.
    name : str, optional
        The command's name in error lines (default: ``prog``), for a command whose
        ``prog`` reads ``python -m NAME``.

    Examples
    --------
    >>> parser = CommandParser(prog="demo", name="demo")
    >>> _ = parser.add_argument("--shots", type=integer(1, 10))
    >>> parser.parse_args(["--shots", "5"]).shots
    5
    """

    def __init__(self, *args: Any, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.name = name

    def error(self, message: str) -> NoReturn:
        r"""Print ``message`` as one line, prefixed by the command's name, and exit with status 2.

        Examples
        --------
        >>> import contextlib, io
        >>> stderr = io.StringIO()
        >>> with contextlib.redirect_stderr(stderr):
        ...     try:
        ...         CommandParser(prog="python -m demo", name="demo").error("bad\n  option")
        ...     except SystemExit as exit_:
        ...         print(exit_.code)
        2
        >>> stderr.getvalue()
        'demo: error: bad option\n'
        """
        self.exit(2, f"{self.name or self.prog}: error: {' '.join(message.split())}\n")


def integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in ``[low, high]`` (no float, no exponent).

    Parameters
    ----------
    low, high : int
        Smallest and largest value accepted.

    Returns
    -------
    callable
        Text -> int; raises :class:`argparse.ArgumentTypeError` naming the range.

    Examples
    --------
    >>> integer(1, 10)("7")
    7
    >>> integer(1, 10)("1e3")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer in [1, 10], got '1e3'
    """
    return _checked(int, lambda value: low <= value <= high, f"an integer in [{low}, {high}]")


def real(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number in ``[low, high]``.

    Parameters
    ----------
    low, high : float
        Smallest and largest value accepted (``nan`` and infinities never are).

    Returns
    -------
    callable
        Text -> float; raises :class:`argparse.ArgumentTypeError` naming the range.

    Examples
    --------
    >>> real(0, 1)("0.25")
    0.25
    >>> real(0, 1)("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number in [0, 1], got 'nan'
    """
    return _checked(
        float,
        lambda value: math.isfinite(value) and low <= value <= high,
        f"a number in [{low:.15g}, {high:.15g}]",
    )


def _checked(
    parse: Callable[[str], _Number], accepts: Callable[[_Number], bool], what: str
) -> Callable[[str], _Number]:
    """An argparse type: ``parse(text)`` if it parses and ``accepts`` it, else "must be WHAT, got TEXT"."""

    def convert(text: str) -> _Number:
        try:
            value = parse(text)
            if accepts(value):
                return value
        except ValueError:  # not a number at all: refused like one out of range
            pass
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")

    return convert
