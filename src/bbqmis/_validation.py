"""Parameter checks shared by :mod:`bbqmis`; every message names the parameter."""

from __future__ import annotations

import numbers

import numpy as np

from .errors import InvalidParameterError

__all__ = ["check_random_state", "check_positive_int", "check_nonnegative", "check_choice", "check_annealing"]


def check_random_state(seed) -> np.random.Generator:
    """Turn ``seed`` (None, int or Generator) into a :class:`numpy.random.Generator`."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, numbers.Integral):
        return np.random.default_rng(seed)
    raise InvalidParameterError(f"seed must be None, an int or a numpy Generator, got {seed!r}")


def check_positive_int(value, name: str) -> int:
    """Return ``value`` as an int, or raise naming ``name`` when it is not >= 1."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InvalidParameterError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_nonnegative(value, name: str) -> float:
    """Return ``value`` as a float, or raise naming ``name`` when it is negative or not finite."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise InvalidParameterError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


def check_choice(value, name: str, choices) -> str:
    """Return ``value`` if it is one of ``choices``, or raise listing them."""
    if value not in choices:
        raise InvalidParameterError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_annealing(num_reads, num_sweeps, beta_range) -> tuple[int, int, tuple[float, float]]:
    """Check simulated-annealing settings; return them as (int, int, (float, float))."""
    if len(beta_range) != 2 or not 0 < beta_range[0] < beta_range[1]:
        raise InvalidParameterError(f"beta_range must be (low, high) with 0 < low < high, got {beta_range!r}")
    return (
        check_positive_int(num_reads, "num_reads"),
        check_positive_int(num_sweeps, "num_sweeps"),
        (float(beta_range[0]), float(beta_range[1])),
    )
