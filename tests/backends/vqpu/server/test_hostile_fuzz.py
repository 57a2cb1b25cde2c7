"""Property tests against one live vQPU server: random bodies and mutated QPY never get a 5xx.

Every example is one request, answered quickly and never with a 5xx, after which
``/health`` must answer quickly. Bodies that are not a batch must get a JSON 4xx
refusal; well-formed batches must be accepted; mutated QPY and arbitrary batch ids may
get either. Examples are derandomised (same inputs on every run) and no example
database is kept.
"""

from __future__ import annotations

import base64
import io
import json
import math
import time
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qiskit import QuantumCircuit, qpy
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


def assert_healthy(url):
    tic = time.monotonic()
    assert httpx.get(f"{url}/health", timeout=5).status_code == 200
    assert time.monotonic() - tic < 2


def assert_answered_without_server_error(url, response):
    assert response.status_code in (200, 202) or 400 <= response.status_code < 500, response.text
    if response.status_code >= 400:
        assert set(response.json()) == {"error", "detail"}
    assert_healthy(url)


def assert_refused_with_4xx(url, response):
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    assert set(response.json()) == {"error", "detail"}
    assert_healthy(url)


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

#: Any JSON value. None of its strings (20 characters at most) can hold QPY circuits, whose
#: smallest payload (one empty circuit) takes 152 base64 characters.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
MAX_SHOTS = 100  # the fuzzed server's limit


def whole(value, low, high) -> bool:
    """True if ``value`` is a JSON integer (not a bool) in ``[low, high]``."""
    return type(value) is int and low <= value <= high


#: Valid values of each field of a batch (unique keys are made when posting).
VALID = {
    "key": st.text(min_size=1, max_size=20),
    "circuits": st.sampled_from([base64.b64encode(seed).decode() for seed in SEEDS]),
    "shots": st.integers(1, MAX_SHOTS),
    "seed": st.none() | st.integers(0, 2**63 - 1),
}
#: Values that make a field invalid, whatever the other fields hold.
INVALID = {
    "key": json_values.filter(lambda v: not isinstance(v, str) or not v),
    "circuits": json_values,  # no string of json_values holds QPY
    "shots": json_values.filter(lambda v: not whole(v, 1, MAX_SHOTS)),
    "seed": json_values.filter(lambda v: v is not None and not whole(v, 0, 2**63 - 1)),
}


@st.composite
def malformed_batches(draw) -> bytes:
    """A JSON object shaped like a batch with at least one flaw: a bad, missing or unknown field."""
    body = {field: draw(VALID[field] | json_values) for field in ("key", "circuits", "shots")}
    if draw(st.booleans()):
        body["seed"] = draw(VALID["seed"] | json_values)
    flaw = draw(st.sampled_from([*INVALID, "missing", "extra"]))
    if flaw == "missing":
        del body[draw(st.sampled_from(["key", "circuits", "shots"]))]
    elif flaw == "extra":
        body[draw(st.text(max_size=8).filter(lambda name: name not in VALID))] = draw(json_values)
    else:
        body[flaw] = draw(INVALID[flaw])
    return json.dumps(body).encode()


def not_an_object(content: bytes) -> bool:
    """True unless ``content`` parses as a JSON object (only an object can be a batch)."""
    try:
        return not isinstance(json.loads(content), dict)
    except ValueError:
        return True


@settings(FUZZ, max_examples=120)
@given(
    body=st.binary(max_size=300).filter(not_an_object)
    | json_values.map(json.dumps).map(str.encode)
    | malformed_batches()
)
def test_malformed_bodies_are_refused_with_4xx(url, body):
    response = httpx.post(
        f"{url}/batches", content=body, headers={"Content-Type": "application/json"}, timeout=30
    )
    assert_refused_with_4xx(url, response)


@settings(FUZZ, max_examples=40)
@given(body=st.fixed_dictionaries(VALID))
def test_well_formed_bodies_are_accepted(url, body):
    body["key"] = f"{body['key']}-{time.monotonic_ns()}"  # new to the server: a new batch
    response = httpx.post(f"{url}/batches", json=body, timeout=30)
    assert response.status_code == 202, response.text
    accepted = response.json()
    circuits = len(qpy.load(io.BytesIO(base64.b64decode(body["circuits"]))))
    assert (accepted["key"], accepted["shots"], accepted["circuits"]) == (
        body["key"],
        body["shots"],
        circuits,
    )
    assert_healthy(url)


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
