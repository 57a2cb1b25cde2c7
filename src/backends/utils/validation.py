"""Parameter checks shared by every package of the project.

This module sits in the lowest layer (``backends`` imports none of the other packages,
and all of them import ``backends``), so ``bbqmis``, ``cutting`` and ``clustagg`` use
these checks instead of writing their own. Each check returns the normalised value or
raises :class:`~backends.utils.errors.InvalidParameterError` with a message that names the
parameter, what was expected and what was given.

>>> check_positive_int(3, "shots")
3
>>> check_positive_int(0, "shots")
Traceback (most recent call last):
...
backends.utils.errors.InvalidParameterError: shots must be a positive integer, got 0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from numbers import Integral, Real
from typing import TypeAlias, TypeGuard, TypeVar

import numpy as np

from backends.utils.errors import InvalidParameterError

__all__ = [
    "SeedLike",
    "check_choice",
    "check_finite",
    "check_finite_array",
    "check_finite_pair",
    "check_interval",
    "check_nonnegative",
    "check_nonnegative_int",
    "check_positive_int",
    "check_probability",
    "check_random_state",
    "check_seed",
    "build_named",
]

_T = TypeVar("_T")

#: What ``seed`` parameters accept: None (fresh entropy), an int, or a Generator to draw from.
SeedLike: TypeAlias = int | np.random.Generator | None


def _is_int(value: object) -> TypeGuard[Integral]:
    """Whether ``value`` is an integer (Python or numpy) other than a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_real(value: object) -> TypeGuard[Real]:
    """Whether ``value`` is a finite real number (Python or numpy) other than a bool."""
    if not isinstance(value, Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def check_positive_int(value: object, name: str) -> int:
    """Return ``value`` as an int if it is an integer >= 1 (bools are refused).

    Raises
    ------
    InvalidParameterError
        If ``value`` is not an integer or is < 1.

    Examples
    --------
    >>> check_positive_int(1024, "shots")
    1024
    >>> check_positive_int(True, "shots")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: shots must be a positive integer, got True
    """
    if not _is_int(value) or value < 1:
        raise InvalidParameterError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_nonnegative_int(value: object, name: str) -> int:
    """Return ``value`` as an int if it is an integer >= 0 (bools are refused).

    Raises
    ------
    InvalidParameterError
        If ``value`` is not an integer or is negative.

    Examples
    --------
    >>> check_nonnegative_int(0, "retries")
    0
    >>> check_nonnegative_int(-1, "retries")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: retries must be a non-negative integer, got -1
    """
    if not _is_int(value) or value < 0:
        raise InvalidParameterError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_nonnegative(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a finite real number >= 0.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a real number, is negative or is not finite.

    Examples
    --------
    >>> check_nonnegative(2, "sleep_factor")
    2.0
    >>> check_nonnegative(float("inf"), "sleep_factor")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: sleep_factor must be a finite number >= 0, got inf
    """
    if not _is_real(value) or value < 0:
        raise InvalidParameterError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def check_finite(value: object, name: str) -> float:
    """Return ``value`` as a float if it is a finite real number (bools are refused).

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a real number, or is NaN or infinite.

    Examples
    --------
    >>> check_finite(-0.5, "gamma")
    -0.5
    >>> check_finite(float("nan"), "gamma")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: gamma must be a finite number, got nan
    """
    if not _is_real(value):
        raise InvalidParameterError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def check_finite_pair(value: object, name: str, fields: tuple[str, str]) -> tuple[float, float]:
    """Return two finite floats from a pair, or from an object with the two attributes ``fields``.

    Parameters
    ----------
    value : object with the attributes ``fields``, or (float, float)
        For example QAOA angles: a ``QAOAAngles`` or a pair ``(gamma, beta)``.
    name : str
        The parameter's name in messages.
    fields : (str, str)
        The two values' names: the attributes looked up, and the names in messages.

    Raises
    ------
    InvalidParameterError
        If ``value`` is neither a pair nor has both attributes, or a value is not finite.

    Examples
    --------
    >>> check_finite_pair((0.4, 0.2), "angles", ("gamma", "beta"))
    (0.4, 0.2)
    >>> check_finite_pair((0.4,), "angles", ("gamma", "beta"))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: angles must be a pair (gamma, beta) or have attributes \
gamma and beta, got (0.4,)
    >>> check_finite_pair((0.4, float("inf")), "angles", ("gamma", "beta"))
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: beta must be a finite number, got inf
    """
    first_name, second_name = fields
    first: object
    second: object
    if hasattr(value, first_name) and hasattr(value, second_name):
        first, second = getattr(value, first_name), getattr(value, second_name)
    else:
        try:
            first, second = value  # type: ignore[misc]
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"{name} must be a pair ({first_name}, {second_name}) or have attributes {first_name} "
                f"and {second_name}, got {value!r}"
            ) from None
    return check_finite(first, first_name), check_finite(second, second_name)


def check_finite_array(values: object, name: str) -> np.ndarray:
    """Return ``values`` (a number or an array-like of numbers) as a float ndarray of finite entries.

    Raises
    ------
    InvalidParameterError
        If ``values`` is not numeric, or an entry is NaN or infinite; the message
        names the first such entry by its index.

    Examples
    --------
    >>> check_finite_array([0.1, 0.2], "gamma").tolist()
    [0.1, 0.2]
    >>> check_finite_array([[0.1, 0.2], [0.3, float("inf")]], "gamma")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: gamma must hold finite numbers; gamma[1, 1] is inf
    >>> check_finite_array("abc", "gamma")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: gamma must be a number or an array of numbers, got 'abc'
    """
    problem = f"{name} must be a number or an array of numbers, got {values!r}"
    if isinstance(values, str | bytes):  # numpy would parse "0.5"
        raise InvalidParameterError(problem)
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(problem) from None
    finite = np.isfinite(array)
    if not finite.all():
        if array.ndim == 0:
            raise InvalidParameterError(f"{name} must be a finite number, got {float(array)!r}")
        index = tuple(int(i) for i in np.argwhere(~finite)[0])
        where = ", ".join(map(str, index))
        raise InvalidParameterError(
            f"{name} must hold finite numbers; {name}[{where}] is {float(array[index])!r}"
        )
    return array


def check_interval(value: object, name: str, low: float, high: float) -> float:
    """Return ``value`` as a float if ``low < value <= high``.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a finite real number in ``(low, high]``.

    Examples
    --------
    >>> check_interval(0.5, "fraction", 0, 1)
    0.5
    >>> check_interval(0, "fraction", 0, 1)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: fraction must be a number in (0, 1], got 0
    """
    if not _is_real(value) or not low < float(value) <= high:
        raise InvalidParameterError(f"{name} must be a number in ({low:g}, {high:g}], got {value!r}")
    return float(value)


def check_probability(value: object, name: str) -> float:
    """Return ``value`` as a float if it is in [0, 1].

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a real number in [0, 1].

    Examples
    --------
    >>> check_probability(1, "p")
    1.0
    >>> check_probability(1.5, "p")
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: p must be a probability in [0, 1], got 1.5
    """
    if not _is_real(value) or not 0 <= float(value) <= 1:
        raise InvalidParameterError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def check_choice(value: _T, name: str, choices: Collection[_T]) -> _T:
    """Return ``value`` if it is one of ``choices``.

    Raises
    ------
    InvalidParameterError
        If it is not; the message lists the choices.

    Examples
    --------
    >>> check_choice("serial", "executor", ["serial", "process"])
    'serial'
    >>> check_choice("mpi", "executor", ["serial", "process"])
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: executor must be one of 'serial', 'process'; got 'mpi'
    """
    if value not in choices:
        raise InvalidParameterError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_seed(seed: object, name: str = "seed", *, optional: bool = True) -> int | None:
    """Return ``seed`` as an int >= 0, or ``None`` when ``optional`` and it is ``None``.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is neither a non-negative integer nor an allowed ``None``.

    Examples
    --------
    >>> check_seed(7), check_seed(None)
    (7, None)
    >>> check_seed(None, optional=False)
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: seed must be an integer >= 0, got None
    """
    if seed is None and optional:
        return None
    if not _is_int(seed) or seed < 0:
        expected = "None or an integer >= 0" if optional else "an integer >= 0"
        raise InvalidParameterError(f"{name} must be {expected}, got {seed!r}")
    return int(seed)


def check_random_state(seed: object) -> np.random.Generator:
    """Turn ``seed`` (None, an int or a Generator) into a :class:`numpy.random.Generator`.

    A Generator is returned as is, so a caller's stream continues.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is of any other type, or a negative integer.

    Examples
    --------
    >>> rng = check_random_state(3)
    >>> int(rng.integers(100)) == int(np.random.default_rng(3).integers(100))
    True
    >>> check_random_state(rng) is rng
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or _is_int(seed):
        return np.random.default_rng(check_seed(seed))
    raise InvalidParameterError(f"seed must be None, an int or a numpy Generator, got {seed!r}")


def build_named(
    value: object, name: str, registry: Mapping[str, Callable[..., _T]], options: Mapping
) -> _T | None:
    """Build ``registry[value](**options)`` when ``value`` is a name; else check no options came.

    The pattern of "a strategy by name or an object" (networkx's greedy strategies):
    names build a new object with ``options``; an object is the caller's to check, and
    returns ``None`` here.

    Raises
    ------
    InvalidParameterError
        For an unknown name (the message lists the names), or options with an object.

    Examples
    --------
    >>> registry = {"list": list, "set": set}
    >>> build_named("set", "container", registry, {})
    set()
    >>> build_named(["mine"], "container", registry, {}) is None
    True
    >>> build_named(["mine"], "container", registry, {"size": 2})
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: container options can only be given with a container name
    """
    if isinstance(value, str):
        return registry[check_choice(value, name, registry)](**options)
    if options:
        raise InvalidParameterError(f"{name} options can only be given with a {name} name")
    return None
