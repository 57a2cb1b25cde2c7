"""The argparse types: every text either gives a number in range or one line naming the range."""

from __future__ import annotations

import argparse
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backends.utils.arguments import integer, real


@given(st.integers(min_value=-(10**20), max_value=10**20))
def test_integer_accepts_exactly_the_range(value):
    convert = integer(-5, 10**6)
    if -5 <= value <= 10**6:
        assert convert(str(value)) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError) as info:
            convert(str(value))
        assert str(info.value) == f"must be an integer in [-5, 1000000], got '{value}'"


@pytest.mark.parametrize("text", ["1e3", "2.0", "", "seven", "0x10", "nan"])
def test_integer_refuses_what_is_not_an_integer(text):
    with pytest.raises(argparse.ArgumentTypeError) as info:
        integer(0, 10**6)(text)
    assert str(info.value) == f"must be an integer in [0, 1000000], got {text!r}"


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_real_accepts_exactly_the_finite_range(value):
    convert = real(0.001, 1e9)
    if math.isfinite(value) and 0.001 <= value <= 1e9:
        assert convert(repr(value)) == value
    else:
        with pytest.raises(argparse.ArgumentTypeError) as info:
            convert(repr(value))
        assert str(info.value) == f"must be a number in [0.001, 1000000000], got {repr(value)!r}"


def test_an_option_out_of_range_is_one_argparse_line(capsys):
    parser = argparse.ArgumentParser(prog="tool")
    parser.add_argument("--shots", type=integer(1, 100))
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["--shots", "0"])
    assert info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tool: error: argument --shots: must be an integer in [1, 100], got '0'"
    )
