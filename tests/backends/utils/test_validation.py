"""The project-wide parameter checks: normalised results, exact messages naming the parameter."""

import math

import numpy as np
import pytest

from backends import InvalidParameterError
from backends.utils.validation import (
    check_choice,
    check_interval,
    check_nonnegative,
    check_nonnegative_int,
    check_positive_int,
    check_probability,
    check_random_state,
    check_seed,
)


def rejected(call, *args, **kwargs):
    """Return the message of the InvalidParameterError raised by ``call(*args, **kwargs)``."""
    with pytest.raises(InvalidParameterError) as info:
        call(*args, **kwargs)
    return str(info.value)


def test_the_error_is_both_value_and_type_error():
    assert issubclass(InvalidParameterError, ValueError) and issubclass(InvalidParameterError, TypeError)


# ---- integers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        (check_positive_int, 1, 1),
        (check_positive_int, 10**30, 10**30),
        (check_positive_int, np.int64(3), 3),
        (check_positive_int, np.uint8(7), 7),
        (check_nonnegative_int, 0, 0),
        (check_nonnegative_int, np.int32(5), 5),
    ],
)
def test_integers_are_accepted_as_plain_ints(check, value, expected):
    result = check(value, "n")
    assert result == expected and type(result) is int


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0, "0"),
        (-3, "-3"),
        (True, "True"),
        (np.True_, "np.True_"),
        (2.0, "2.0"),
        ("3", "'3'"),
        (None, "None"),
    ],
)
def test_positive_int_refuses(value, shown):
    assert rejected(check_positive_int, value, "shots") == f"shots must be a positive integer, got {shown}"


@pytest.mark.parametrize(
    ("value", "shown"), [(-1, "-1"), (False, "False"), (0.0, "0.0"), (np.int8(-2), "np.int8(-2)")]
)
def test_nonnegative_int_refuses(value, shown):
    assert (
        rejected(check_nonnegative_int, value, "depth")
        == f"depth must be a non-negative integer, got {shown}"
    )


# ---- real numbers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"), [(0, 0.0), (2, 2.0), (0.5, 0.5), (np.float32(0.25), 0.25), (np.int64(3), 3.0)]
)
def test_nonnegative_accepts_finite_numbers_as_floats(value, expected):
    result = check_nonnegative(value, "alpha")
    assert result == expected and type(result) is float


@pytest.mark.parametrize(
    "value", [-0.1, -1, math.nan, math.inf, -math.inf, True, "1", None, 10**400, np.float64("nan")]
)
def test_nonnegative_refuses(value):
    assert rejected(check_nonnegative, value, "sleep_factor") == (
        f"sleep_factor must be a finite number >= 0, got {value!r}"
    )


@pytest.mark.parametrize(
    ("value", "expected"), [(1, 1.0), (0.5, 0.5), (1e-12, 1e-12), (np.float64(0.75), 0.75)]
)
def test_interval_is_open_below_and_closed_above(value, expected):
    result = check_interval(value, "fraction", 0, 1)
    assert result == expected and type(result) is float


@pytest.mark.parametrize("value", [0, 0.0, -0.5, 1.0000001, math.nan, math.inf, True, "0.5"])
def test_interval_refuses(value):
    assert rejected(check_interval, value, "fraction", 0, 1) == (
        f"fraction must be a number in (0, 1], got {value!r}"
    )


def test_interval_message_shows_the_bounds_compactly():
    assert rejected(check_interval, 3, "ratio", 0.5, 2.5) == "ratio must be a number in (0.5, 2.5], got 3"


@pytest.mark.parametrize(("value", "expected"), [(0, 0.0), (1, 1.0), (0.3, 0.3), (np.float16(0.5), 0.5)])
def test_probability_accepts_the_closed_unit_interval(value, expected):
    result = check_probability(value, "p")
    assert result == expected and type(result) is float


@pytest.mark.parametrize("value", [-0.01, 1.01, 2, math.nan, False, None, "0.5"])
def test_probability_refuses(value):
    assert rejected(check_probability, value, "p") == f"p must be a probability in [0, 1], got {value!r}"


# ---- choices --------------------------------------------------------------------------------


def test_choice_returns_the_value_itself():
    choice = "greedy"
    assert check_choice(choice, "strategy", ("greedy", "dsatur")) is choice
    assert check_choice(2, "level", {1, 2, 3}) == 2


@pytest.mark.parametrize("value", ["random", None, "Greedy"])
def test_choice_refuses_and_lists_the_choices(value):
    assert rejected(check_choice, value, "strategy", ("greedy", "dsatur")) == (
        f"strategy must be one of 'greedy', 'dsatur'; got {value!r}"
    )


# ---- seeds ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "expected"), [(None, None), (0, 0), (2**40, 2**40), (np.int64(7), 7)])
def test_seed_accepts_none_and_non_negative_integers(seed, expected):
    result = check_seed(seed)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize(("seed", "shown"), [(-1, "-1"), (True, "True"), (1.5, "1.5"), ("7", "'7'")])
def test_seed_refuses(seed, shown):
    assert rejected(check_seed, seed) == f"seed must be None or an integer >= 0, got {shown}"
    assert rejected(check_seed, seed, "transpiler_seed") == (
        f"transpiler_seed must be None or an integer >= 0, got {shown}"
    )


def test_required_seed_refuses_none():
    assert check_seed(4, optional=False) == 4
    assert rejected(check_seed, None, "seed", optional=False) == "seed must be an integer >= 0, got None"


def test_random_state_passes_a_generator_through():
    rng = np.random.default_rng(1)
    rng.random()
    assert check_random_state(rng) is rng


@pytest.mark.parametrize("seed", [5, np.int64(5)])
def test_random_state_from_an_integer_is_reproducible(seed):
    assert check_random_state(seed).integers(10**6, size=4).tolist() == (
        np.random.default_rng(5).integers(10**6, size=4).tolist()
    )


def test_random_state_from_none_is_fresh():
    draws = {int(check_random_state(None).integers(2**62)) for _ in range(3)}
    assert len(draws) == 3


def test_random_state_refuses_negative_integers_with_the_seed_message():
    assert rejected(check_random_state, -1) == "seed must be None or an integer >= 0, got -1"


@pytest.mark.parametrize("seed", [True, 1.5, "1", np.random.RandomState(0)])
def test_random_state_refuses_other_types(seed):
    assert rejected(check_random_state, seed) == (
        f"seed must be None, an int or a numpy Generator, got {seed!r}"
    )
