"""Settings read from environment variables (for job scripts, where options are awkward)."""

from __future__ import annotations

import math
import os

from .errors import InvalidParameterError

__all__ = ["seconds_from_env", "slurm_placement"]


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


def slurm_placement() -> dict[str, str | None]:
    """Where Slurm started this process: its job, partition and node; None for each outside Slurm.

    Read from ``SLURM_JOB_ID``, ``SLURM_JOB_PARTITION`` and ``SLURMD_NODENAME``, which Slurm
    sets for the tasks it starts (on an emulated cluster every node is the same host, so the
    node's name is the only sign of where a step ran).

    Examples
    --------
    >>> from unittest import mock
    >>> env = {"SLURM_JOB_ID": "12", "SLURM_JOB_PARTITION": "qpu", "SLURMD_NODENAME": "q1"}
    >>> with mock.patch.dict(os.environ, env):
    ...     slurm_placement()
    {'job': '12', 'partition': 'qpu', 'node': 'q1'}
    """
    return {
        "job": os.environ.get("SLURM_JOB_ID"),
        "partition": os.environ.get("SLURM_JOB_PARTITION"),
        "node": os.environ.get("SLURMD_NODENAME"),
    }
