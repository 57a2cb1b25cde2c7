"""Argument types for command lines: numbers in a range, refused with one line naming the range.

``argparse`` calls a type with the option's text and turns an
``ArgumentTypeError`` into ``error: argument --OPTION: MESSAGE`` and exit status 2,
so every numeric option of the project's command lines gets the same message shape.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

__all__ = ["integer", "real"]


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

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be an integer in [{low}, {high}], got {text!r}")
        return value

    return convert


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

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(f"must be a number in [{low:.15g}, {high:.15g}], got {text!r}")
        return value

    return convert
