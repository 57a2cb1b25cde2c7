"""Property tests against one live vQPU server: random bodies and mutated QPY never get a 5xx.

Every example is one POST; the answer must be an acceptance (200/202) or a JSON 4xx
refusal, never a 5xx and never a hang, and ``/health`` must answer quickly after it.
Examples are derandomised (same inputs on every run) and no example database is kept.
"""

from __future__ import annotations

import base64
import json
import math
import time
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qiskit import QuantumCircuit
from qiskit.circuit import Parameter
from qpy_hostile import FIELDS, patch_first_header, qpy_bytes
from vqpu_helpers import ghz, serve

from backends.vqpu.server.app import Limits

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def url(physical, tmp_path_factory):
    limits = Limits(max_decode_bytes=256 * 2**20, max_decode_seconds=5, max_queue=10_000, max_shots=100)
    with serve(physical, tmp_path_factory.mktemp("fuzz") / "db.sqlite", limits=limits) as (_, url):
        yield url


def assert_answered_without_server_error(url, response):
    assert response.status_code in (200, 202) or 400 <= response.status_code < 500, response.text
    if response.status_code >= 400:
        assert set(response.json()) == {"error", "detail"}
    tic = time.monotonic()
    assert httpx.get(f"{url}/health", timeout=5).status_code == 200
    assert time.monotonic() - tic < 2


def rich_circuit() -> QuantumCircuit:
    """A circuit using many QPY sections: registers, parameters, a custom gate, control flow."""
    theta = Parameter("θ")
    inner = QuantumCircuit(2, name="inner")
    inner.rx(theta, 0)
    inner.cx(0, 1)
    circuit = QuantumCircuit(3, 2, name="rich", metadata={"job": "fuzz"})
    circuit.append(inner.to_gate(), [0, 1])
    circuit.measure(0, 0)
    with circuit.if_test((circuit.clbits[0], 1)):
        circuit.x(2)
    circuit.measure(2, 1)
    return circuit.assign_parameters({theta: 0.5})


SEEDS = [qpy_bytes([ghz(2)]), qpy_bytes([rich_circuit(), ghz(3)])]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
batch_like = st.fixed_dictionaries(
    {
        "key": json_values,
        "circuits": json_values | st.just(base64.b64encode(SEEDS[0]).decode()),
        "shots": json_values,
    },
    optional={"seed": json_values, "extra": json_values},
)


@settings(FUZZ, max_examples=120)
@given(
    body=st.binary(max_size=300)
    | json_values.map(json.dumps).map(str.encode)
    | batch_like.map(json.dumps).map(str.encode)
)
def test_malformed_bodies_are_refused_with_4xx(url, body):
    response = httpx.post(
        f"{url}/batches", content=body, headers={"Content-Type": "application/json"}, timeout=30
    )
    assert_answered_without_server_error(url, response)


@st.composite
def mutated_qpy(draw) -> bytes:
    """A valid QPY payload with bytes overwritten, cut, or header counts replaced."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    kind = draw(st.sampled_from(["bytes", "cut", "header"]))
    if kind == "bytes":
        for _ in range(draw(st.integers(1, 8))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    elif kind == "cut":
        data = data[: draw(st.integers(0, len(data) - 1))]
    else:
        field = draw(st.sampled_from(sorted(FIELDS)))
        bits = 64 if FIELDS[field][1] == "!Q" else 32
        return patch_first_header(bytes(data), **{field: draw(st.integers(0, 2**bits - 1))})
    return bytes(data)


@pytest.mark.slow
@settings(FUZZ, max_examples=80)
@given(data=mutated_qpy(), shots=st.integers(1, 100), seed=st.none() | st.integers(0, 2**63 - 1))
def test_mutated_qpy_is_accepted_or_refused_with_4xx(url, data, shots, seed):
    body = {"key": f"k{time.monotonic_ns()}", "circuits": base64.b64encode(data).decode(), "shots": shots}
    body["seed"] = seed
    response = httpx.post(f"{url}/batches", json=body, timeout=30)
    assert_answered_without_server_error(url, response)


@settings(FUZZ, max_examples=60)
@given(batch_id=st.integers() | st.text(min_size=1, max_size=30), wait=st.floats() | st.text(max_size=10))
def test_any_batch_id_and_wait_get_an_answer(url, batch_id, wait):
    if isinstance(wait, float) and math.isfinite(wait):
        wait = min(abs(wait), 0.1)  # a valid long poll answers 404 at once here, but keep it short
    response = httpx.get(f"{url}/batches/{quote(str(batch_id), safe='')}", params={"wait": wait}, timeout=30)
    assert_answered_without_server_error(url, response)  # 200 for a batch of the fuzz job, else 4xx
