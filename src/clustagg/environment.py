"""Settings read from environment variables (for job scripts, where options are awkward)."""

from __future__ import annotations

import math
import os

from .errors import InvalidParameterError

__all__ = ["seconds_from_env"]


def seconds_from_env(name: str) -> float | None:
    """The positive number of seconds in the environment variable ``name``; None when unset or empty.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"CLUSTAGG_STEP_TIMEOUT": "90"}):
    ...     seconds_from_env("CLUSTAGG_STEP_TIMEOUT")
    90.0

    Raises
    ------
    InvalidParameterError
        If the variable is set but not a positive, finite number of seconds.
    """
    text = os.environ.get(name)
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < math.inf:
        raise InvalidParameterError(f"{name} must be a positive number of seconds, got {text!r}")
    return seconds
