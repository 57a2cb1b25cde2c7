"""IQM backends: fake devices, star-topology transpilation, and the server path without network."""

import math
import os
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
import requests
from iqm.qiskit_iqm.fake_backends import IQMFakeAdonis
from iqm.station_control.interface.models.jobs_new import TimelineEntry
from qiskit import QuantumCircuit
from qiskit.quantum_info import Statevector
from qiskit.result import Result

from backends import BackendConnectionError, MissingTokenError, UnknownBackendError, get_backend
from backends import iqm as iqm_backends

TOKEN_VARS = ("IQM_TOKEN", "IQM_TOKENS_FILE")


def test_fake_devices_are_discovered_from_the_package():
    devices = iqm_backends.fake_devices()
    # garnet is not re-exported by iqm.qiskit_iqm.fake_backends, so this shows discovery by module.
    assert {"adonis", "deneb", "garnet"} <= set(devices)
    assert list(devices) == sorted(devices)
    assert iqm_backends.fake_device("Adonis", "spec").num_qubits == 5


@pytest.mark.parametrize("spec", ["iqm-fake:nowhere", "aer:noisy-nowhere"])
def test_unknown_device_lists_the_known_ones(spec):
    with pytest.raises(UnknownBackendError) as info:
        get_backend(spec)
    known = ", ".join(iqm_backends.fake_devices())
    assert str(info.value) == f"unknown IQM device 'nowhere' in spec '{spec}'; known devices: {known}"


def test_star_topology_routes_and_keeps_the_callers_order():
    # Adonis is a star: QB3 (index 2) is coupled to the four others. The CZ-based CNOTs
    # 3->4, 4->0, 0->3 form a triangle, which a star can only run with SWAPs.
    circuit = QuantumCircuit(5, 5, name="triangle")
    circuit.x([1, 3])
    for control, target in [(3, 4), (4, 0), (0, 3)]:
        circuit.h(target)
        circuit.cz(control, target)
        circuit.h(target)
    circuit.measure(range(5), range(5))
    backend = get_backend("iqm-fake:adonis", seed=2)

    [native] = backend.transpile(circuit)
    [counts] = backend.run(circuit, shots=500)

    edges = {frozenset(edge) for edge in backend.device.coupling_map.get_edges()}
    two_qubit = [inst for inst in native.data if len(inst.qubits) == 2]
    assert two_qubit and all(
        frozenset(native.find_bit(q).index for q in inst.qubits) in edges for inst in two_qubit
    )
    # q3 = 1 -> q4 = 1 -> q0 = 1 -> q3 = 0; q1 = 1 throughout; read q4..q0.
    assert max(counts, key=counts.get) == "10011"


def qaoa_like(num_qubits=3, gamma=0.7, beta=0.4):
    circuit = QuantumCircuit(num_qubits, name="qaoa-like")
    circuit.h(range(num_qubits))
    for qubit in range(num_qubits - 1):
        circuit.rzz(2 * gamma, qubit, qubit + 1)
    circuit.rx(2 * beta, range(num_qubits))
    return circuit


def error_budget(device, native):
    """Upper bound on the total variation distance the noise model can cause.

    TVD is subadditive under composition of channels, and the TVD a channel causes is at
    most its distance from the identity: p for a depolarizing error with parameter p,
    at most (1 - exp(-t/T1)) + (1 - exp(-t/T2)) <= t/T1 + t/T2 per qubit for thermal
    relaxation over a gate of duration t, and max(e0, e1) for a readout error. The fake
    device adds noise to gates and readout only, so summing over instructions bounds it.
    """
    profile = device.error_profile
    total = 0.0
    for inst in native.data:
        names = [device.index_to_qubit_name(native.find_bit(q).index) for q in inst.qubits]
        if inst.operation.name == "measure":
            total += max(profile.readout_errors[names[0]].values())
        elif inst.operation.name == "r":
            total += profile.single_qubit_gate_depolarizing_error_parameters["prx"][names[0]]
            duration = profile.single_qubit_gate_durations["prx"]
        elif inst.operation.name == "cz":
            errors = profile.two_qubit_gate_depolarizing_error_parameters["cz"]
            total += errors.get(tuple(names), errors.get(tuple(reversed(names))))
            duration = profile.two_qubit_gate_durations["cz"]
        else:
            continue
        if inst.operation.name != "measure":
            total += sum(duration / profile.t1s[n] + duration / profile.t2s[n] for n in names)
    return total


def test_fake_device_agrees_with_ideal_within_shot_noise_and_device_error():
    shots = 4000
    circuit = qaoa_like()
    ideal = Statevector(circuit).probabilities_dict()
    measured = circuit.copy()
    measured.measure_all()
    backend = get_backend("iqm-fake:adonis", seed=4)

    [native] = backend.transpile(measured)
    [counts] = backend.run(measured, shots=shots)

    outcomes = set(ideal) | set(counts)
    tvd = 0.5 * sum(abs(counts.get(b, 0) / shots - ideal.get(b, 0.0)) for b in outcomes)
    # Shot noise: E[TVD(empirical, p)] <= 1/2 sum_b sqrt(p_b / N) <= 1/2 sqrt(K / N) for K = 8
    # outcomes; one shot moves the TVD by at most 1/N, so by McDiarmid it exceeds its mean by
    # more than t with probability <= exp(-2 N t^2) = exp(-12.8) ~ 3e-6 for t = 0.04.
    shot_noise = 0.5 * math.sqrt(len(ideal) / shots) + 0.04
    budget = error_budget(backend.device, native)
    assert 0.0 < budget < 0.6  # the bound is informative, not vacuous
    assert tvd <= shot_noise + budget


# ---- iqm:<url>: IQMProvider replaced by a recorder, no network ----------------------------


class FakeJob:
    def __init__(self, result):
        self._result = result

    def result(self):
        return self._result

    def job_id(self):
        return "job-1"

    def error_message(self):
        return "calibration expired"


def with_timeline(run, queue_seconds, device_seconds, success=True):
    """Wrap a fake device's run so its result carries an IQM execution timeline."""

    def timed_run(circuits, shots):
        data = run(circuits, shots=shots).result().to_dict()
        started = datetime.now(UTC) + timedelta(seconds=queue_seconds)
        data["timeline"] = [
            TimelineEntry(source="iqm-server", status="created", timestamp=datetime.now(UTC)),
            TimelineEntry(source="iqm-station-control", status="execution_started", timestamp=started),
            TimelineEntry(
                source="iqm-station-control",
                status="execution_ended",
                timestamp=started + timedelta(seconds=device_seconds),
            ),
        ]
        data["success"] = success
        return FakeJob(Result.from_dict(data))

    return timed_run


@pytest.fixture
def providers(monkeypatch):
    """Replace IQMProvider; return the list of providers made, each with what it saw."""
    made = []

    class RecordingProvider:
        def __init__(self, url, *, quantum_computer=None, **auth):
            self.url, self.quantum_computer, self.auth = url, quantum_computer, auth
            self.env_seen = {name: os.environ.get(name) for name in TOKEN_VARS}
            made.append(self)

        def get_backend(self):
            device = IQMFakeAdonis()
            device.run = with_timeline(device.run, queue_seconds=0.3, device_seconds=0.25)
            return device

    monkeypatch.setattr(iqm_backends, "IQMProvider", RecordingProvider)
    for name in TOKEN_VARS:
        monkeypatch.delenv(name, raising=False)
    return made


@pytest.mark.parametrize(
    ("option", "env", "expected"),
    [
        ("opt-token", {"IQM_TOKEN": "env-token", "IQM_TOKENS_FILE": "/t.json"}, {"token": "opt-token"}),
        (None, {"IQM_TOKEN": "env-token", "IQM_TOKENS_FILE": "/t.json"}, {"token": "env-token"}),
        (None, {"IQM_TOKENS_FILE": "/t.json"}, {"tokens_file": "/t.json"}),
    ],
)
def test_token_lookup_order(providers, monkeypatch, option, env, expected):
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    backend = get_backend("iqm:https://iqm.example#garnet", token=option)

    [provider] = providers
    assert (provider.url, provider.quantum_computer, provider.auth) == (
        "https://iqm.example",
        "garnet",
        expected,
    )
    # iqm-client refuses mixed sources, so its variables are hidden during the connection ...
    assert provider.env_seen == dict.fromkeys(TOKEN_VARS)
    # ... and restored afterwards.
    assert {name: os.environ.get(name) for name in env} == env
    assert (backend.name, backend.url, backend.num_qubits) == (
        "iqm:https://iqm.example#garnet",
        "https://iqm.example",
        5,
    )


def test_missing_token_says_how_to_provide_one(providers):
    with pytest.raises(MissingTokenError) as info:
        get_backend("iqm:https://iqm.example")
    assert str(info.value) == (
        "backend 'iqm:https://iqm.example' needs an IQM API token: pass token=... to get_backend, "
        "set the environment variable IQM_TOKEN, or set IQM_TOKENS_FILE to the path of an IQM tokens file"
    )
    assert providers == []


def test_device_timestamps_give_quantum_seconds(providers):
    backend = get_backend("iqm:https://iqm.example", token="t", sleep_factor=0.4)
    circuit = QuantumCircuit(2, 2)
    circuit.x(0)
    circuit.measure([0, 1], [0, 1])

    tic = time.perf_counter()
    [counts] = backend.run(circuit, shots=100)
    elapsed = time.perf_counter() - tic

    record = backend.timings[-1]
    assert max(counts, key=counts.get) == "01"
    assert record.quantum_seconds == pytest.approx(0.25, abs=1e-5)  # timeline, not wall time
    assert record.queue_seconds >= 0.3
    assert record.sleep_seconds == pytest.approx(0.1, abs=1e-5)
    assert elapsed >= 0.1


def test_failed_job_names_the_job_and_the_reason(providers):
    backend = get_backend("iqm:https://iqm.example", token="t")
    backend.device.run = with_timeline(IQMFakeAdonis().run, 0.0, 0.1, success=False)
    circuit = QuantumCircuit(1, 1)
    circuit.measure(0, 0)

    with pytest.raises(BackendConnectionError) as info:
        backend.run(circuit, shots=10)
    assert (
        str(info.value) == "job job-1 on IQM server https://iqm.example did not complete: calibration expired"
    )
    assert backend.timings == []


def test_connection_errors_name_the_url_and_hide_the_token(providers, monkeypatch):
    def refuse(self):
        raise requests.exceptions.ConnectionError("Authorization: Bearer s3cr3t refused")

    monkeypatch.setattr(iqm_backends.IQMProvider, "get_backend", refuse)
    with pytest.raises(BackendConnectionError) as info:
        get_backend("iqm:https://iqm.example", token="s3cr3t")
    assert str(info.value) == (
        "request to IQM server https://iqm.example failed: ConnectionError: Authorization: Bearer *** refused"
    )


def test_unreachable_server_with_the_real_client(monkeypatch):
    for name in TOKEN_VARS:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(
        BackendConnectionError, match=r"^request to IQM server http://127\.0\.0\.1:9 failed: "
    ):
        get_backend("iqm:http://127.0.0.1:9", token="t")


def test_server_url_must_be_http():
    with pytest.raises(UnknownBackendError) as info:
        get_backend("iqm:garnet")
    assert str(info.value) == (
        "spec 'iqm:garnet' needs an http:// or https:// server URL, e.g. iqm:https://host#garnet"
    )


def test_timeline_without_execution_entries_gives_no_window():
    created = SimpleNamespace(status="created", timestamp=datetime.now(UTC))
    assert iqm_backends.timeline_window([created]) is None
