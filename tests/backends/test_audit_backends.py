"""Audit fixes: bad circuits, parameter values, shots and vQPU URLs are refused with the parameter named."""

import math
import time

import pytest
from qiskit import QuantumCircuit
from qiskit.circuit import Parameter

from backends import get_backend, get_qiskit_backend, get_sampler
from backends.base import MAX_SHOTS
from backends.errors import InvalidParameterError, UnknownBackendError
from backends.utils.validation import check_finite, check_finite_array


def rotation():
    theta = Parameter("t")
    circuit = QuantumCircuit(1, name="rot")
    circuit.ry(theta, 0)
    circuit.measure_all()
    return circuit


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_sampler_refuses_a_non_finite_parameter_value_naming_it(value):
    with pytest.raises(InvalidParameterError) as info:
        get_sampler("aer", seed=2).run([(rotation(), [value])], shots=10)
    assert str(info.value) == f"parameter 't' of pubs[0] must be finite, got {value!r}"


def test_sampler_names_the_pub_and_parameter_of_the_first_bad_value():
    u = Parameter("u")
    circuit = rotation()
    circuit.rx(u, 0)
    good = (rotation(), [[0.1], [0.2]])
    with pytest.raises(InvalidParameterError) as info:
        get_sampler("aer", seed=2).run([good, (circuit, [[0.1, 0.2], [0.3, math.nan]])], shots=10)
    assert str(info.value) == "parameter 'u' of pubs[1] must be finite, got nan"


def test_sampler_still_runs_finite_values():
    result = get_sampler("aer", seed=2).run([(rotation(), [math.pi])], shots=10).result()
    assert result[0].data.meas.get_counts() == {"1": 10}


@pytest.mark.parametrize("spec", ["aer", "null"])
def test_run_refuses_unbound_parameters(spec):
    with pytest.raises(InvalidParameterError) as info:
        get_backend(spec).run([rotation()], shots=10)
    assert str(info.value) == "circuits[0] ('rot') must have all parameters bound, got unbound ['t']"


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_run_refuses_a_non_finite_gate_angle(value):
    circuit = rotation().assign_parameters([value])
    with pytest.raises(InvalidParameterError) as info:
        get_backend("aer").run([circuit], shots=10)
    assert str(info.value) == (
        f"circuits[0] ('{circuit.name}') has a non-finite parameter {value!r} in its 'ry' gate; "
        "bind finite parameter values"
    )


@pytest.mark.parametrize("spec", ["aer", "null"])
def test_local_simulators_bound_the_shots(spec):
    circuit = rotation().assign_parameters([0.1])
    with pytest.raises(InvalidParameterError) as info:
        get_backend(spec).run([circuit], shots=10**12)
    assert str(info.value) == f"shots must be at most {MAX_SHOTS} on backend '{spec}', got {10**12}"


def test_qiskit_backend_and_sampler_bound_the_shots_before_submitting():
    circuit = rotation().assign_parameters([0.1])
    with pytest.raises(InvalidParameterError, match=r"^shots must be at most 1000000 on backend 'aer'"):
        get_qiskit_backend("aer").run(circuit, shots=MAX_SHOTS + 1)
    with pytest.raises(InvalidParameterError, match=r"^shots must be at most 1000000 on backend 'aer'"):
        get_sampler("aer").run([circuit], shots=MAX_SHOTS + 1).result()


def test_the_shot_limit_itself_is_accepted():
    circuit = rotation().assign_parameters([math.pi])
    assert sum(get_backend("null:1", seed=1).run([circuit], shots=MAX_SHOTS)[0].values()) == MAX_SHOTS


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "vqpu:http://",
            "bad vqpu spec 'vqpu:http://': the URL names no host; expected vqpu:http://host:port",
        ),
        (
            "vqpu:https://:8000",
            "bad vqpu spec 'vqpu:https://:8000': the URL names no host; expected vqpu:http://host:port",
        ),
        (
            "vqpu:http://host:port",
            "bad vqpu spec 'vqpu:http://host:port': the URL's port must be a number in 0..65535",
        ),
    ],
)
def test_vqpu_url_without_a_host_is_refused_at_once(spec, message):
    start = time.monotonic()
    with pytest.raises(UnknownBackendError) as info:
        get_backend(spec)
    assert str(info.value) == message
    assert time.monotonic() - start < 5  # no connection attempts


def test_check_finite():
    assert check_finite(2, "gamma") == 2.0
    for value in (math.nan, math.inf, "1", True, None):
        with pytest.raises(InvalidParameterError) as info:
            check_finite(value, "gamma")
        assert str(info.value) == f"gamma must be a finite number, got {value!r}"


def test_check_finite_array():
    assert check_finite_array([[0.0, 1.0]], "beta").tolist() == [[0.0, 1.0]]
    with pytest.raises(InvalidParameterError) as info:
        check_finite_array([0.0, 1.0, -math.inf], "beta")
    assert str(info.value) == "beta must hold finite numbers; beta[2] is -inf"
    with pytest.raises(InvalidParameterError) as info:
        check_finite_array(math.nan, "beta")
    assert str(info.value) == "beta must be a finite number, got nan"
    with pytest.raises(InvalidParameterError) as info:
        check_finite_array("0.5", "beta")
    assert str(info.value) == "beta must be a number or an array of numbers, got '0.5'"
