"""``get_sampler`` against Qiskit Aer's reference ``SamplerV2``: same pubs, same data, same distributions."""

import numpy as np
import pytest
from qiskit import ClassicalRegister, QuantumCircuit, QuantumRegister
from qiskit.circuit import Parameter
from qiskit.primitives import BaseSamplerV2, BitArray
from qiskit.quantum_info import Statevector
from qiskit_aer.primitives import SamplerV2 as AerSampler
from scipy.stats import chisquare

from backends import InvalidParameterError, QiskitBackend, Sampler, get_sampler, record_timings

THETA, PHI = Parameter("theta"), Parameter("phi")
#: Parameter values (phi, theta) of shape (2, 3, 2): pubs of shape (2, 3).
VALUES = np.array(
    [
        [[0.3, 1.1], [np.pi, 0.0], [2.0, 2.5]],
        [[1.4, 0.2], [0.0, np.pi], [0.9, 1.7]],
    ]
)
P_FLOOR = 1e-4  # seeded samples: a p-value below this means the distribution is wrong


def parametric() -> QuantumCircuit:
    """Two registers over 4 qubits; qubit 3 is never measured, 'meas' reads qubits 2 and 0 in that order."""
    q = QuantumRegister(4, "q")
    meas, flag = ClassicalRegister(2, "meas"), ClassicalRegister(1, "flag")
    circuit = QuantumCircuit(q, meas, flag, name="parametric")
    circuit.ry(THETA, 0)
    circuit.cx(0, 1)
    circuit.rx(PHI, 2)
    circuit.h(3)
    circuit.cx(3, 2)
    circuit.cx(3, 2)
    circuit.measure(q[2], meas[0])
    circuit.measure(q[0], meas[1])
    circuit.measure(q[1], flag[0])
    return circuit


def exact_probabilities(circuit: QuantumCircuit, register: ClassicalRegister) -> dict[str, float]:
    """Probabilities of a register's outcomes (bit 0 rightmost), from the statevector."""
    measured = {}
    for instruction in circuit.data:
        if instruction.operation.name == "measure":
            measured[instruction.clbits[0]] = circuit.find_bit(instruction.qubits[0]).index
    unitary = circuit.remove_final_measurements(inplace=False)
    return Statevector(unitary).probabilities_dict(qargs=[measured[bit] for bit in register], decimals=12)


def assert_fits(counts: dict[str, int], probabilities: dict[str, float]) -> None:
    """Counts are drawn from the distribution: no impossible outcome, chi-square p-value above the floor."""
    assert set(counts) <= {bits for bits, p in probabilities.items() if p > 0}
    outcomes = sorted(bits for bits, p in probabilities.items() if p > 0)
    shots = sum(counts.values())
    observed = [counts.get(bits, 0) for bits in outcomes]
    expected = [probabilities[bits] * shots for bits in outcomes]
    if len(outcomes) > 1:
        assert chisquare(observed, expected).pvalue > P_FLOOR, (counts, probabilities)


@pytest.fixture(scope="module")
def sampler():
    return get_sampler("aer", seed=21, default_shots=500)


def test_is_a_sampler_v2_with_its_options(sampler):
    assert isinstance(sampler, BaseSamplerV2)
    assert sampler.options.default_shots == 500
    assert sampler.backend.num_qubits == sampler.backend.backend.num_qubits
    with pytest.raises(InvalidParameterError, match="default_shots must be a positive integer, got 0"):
        get_sampler("aer", default_shots=0)


def test_pubs_give_the_reference_samplers_data_and_distributions(sampler):
    circuit = parametric()
    pubs = [(circuit, VALUES), (circuit, VALUES[0, :2], 2000)]
    ours = sampler.run(pubs).result()
    reference = AerSampler(default_shots=500, seed=5).run(pubs).result()

    assert len(ours) == len(reference) == 2
    for pub, got, want in zip(pubs, ours, reference, strict=True):
        assert set(got.data) == set(want.data) == {"meas", "flag"}
        assert got.data.shape == want.data.shape == np.shape(pub[1])[:-1]
        for name, register in (("meas", circuit.cregs[0]), ("flag", circuit.cregs[1])):
            bits, want_bits = got.data[name], want.data[name]
            assert isinstance(bits, BitArray)
            assert (bits.num_bits, bits.num_shots) == (want_bits.num_bits, want_bits.num_shots)
            assert bits.num_shots == (500 if len(pub) == 2 else 2000)
            for index in np.ndindex(*bits.shape):
                bound = circuit.assign_parameters(pub[1][index])
                probabilities = exact_probabilities(bound, register)
                assert_fits(bits.get_counts(index), probabilities)
                assert_fits(want_bits.get_counts(index), probabilities)


def test_bit_order_within_and_across_registers_is_qiskits(sampler):
    circuit = parametric()
    # Values follow circuit.parameters, sorted by name: (phi, theta). theta = pi sets qubits 0
    # and 1, phi = 0 leaves qubit 2: meas = (q0, q2) = '10', flag = '1'.
    assert [parameter.name for parameter in circuit.parameters] == ["phi", "theta"]
    [result] = sampler.run([(circuit, [0.0, np.pi])], shots=64).result()
    [reference] = AerSampler(seed=1).run([(circuit, [0.0, np.pi])], shots=64).result()
    assert result.data.meas.get_counts() == reference.data.meas.get_counts() == {"10": 64}
    assert result.data.flag.get_counts() == reference.data.flag.get_counts() == {"1": 64}
    assert result.join_data().get_counts() == reference.join_data().get_counts() == {"110": 64}
    assert result.metadata["shots"] == 64


def test_every_run_carries_its_timing_records(sampler):
    circuit = parametric()
    with record_timings() as records:
        result = sampler.run([(circuit, VALUES), (circuit, VALUES[1], 100)]).result()
    timings = result.metadata["timings"]
    assert records == timings  # the caller's block sees the job's executions too
    assert sorted((record.circuits, record.shots) for record in timings) == [(3, 100), (6, 500)]
    assert all(record in sampler.backend.backend.timings for record in timings)


def test_runs_on_any_quantum_backend_and_splits_jobs_at_max_circuits():
    class Ones:
        """A QuantumBackend by protocol only, at most 2 circuits per run: every clbit reads 1."""

        name, num_qubits, max_circuits = "ones", 4, 2

        def __init__(self):
            self.timings, self.batches = [], []

        def run(self, circuits, shots, seed=None):
            self.batches.append(len(circuits))
            return [{"1" * circuit.num_clbits: shots} for circuit in circuits]

    backend = Ones()
    sampler = Sampler(get_sampler(backend).backend, default_shots=3)
    result = sampler.run([(parametric(), VALUES)]).result()
    assert backend.batches == [2, 2, 2]
    assert result[0].data.meas.get_counts() == {"11": 18}
    assert result[0].data.flag.get_counts() == {"1": 18}
    assert result.metadata["timings"] == []  # this backend publishes no records


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_noisy_device_samples_close_to_the_ideal_distribution():
    circuit = parametric()
    [result] = get_sampler("aer:noisy-adonis", seed=3).run([(circuit, [0.0, np.pi])], shots=400).result()
    assert result.data.meas.num_shots == 400
    counts = result.data.meas.get_counts()
    assert counts["10"] > 0.8 * 400  # noise flips a few shots, the bit order holds


def test_split_jobs_draw_their_seeds_in_submission_order():
    class Recorder:
        """A QuantumBackend by protocol only, one circuit per run, recording each run's seed."""

        name, num_qubits, max_circuits = "recorder", 4, 1

        def __init__(self):
            self.timings, self.seeds = [], {}

        def run(self, circuits, shots, seed=None):
            [circuit] = circuits
            self.seeds[float(circuit.data[0].operation.params[0])] = seed
            return [{"0" * circuit.num_clbits: shots}]

    def seeds_of_one_run(seed):
        backend = Recorder()
        Sampler(QiskitBackend(backend, seed=seed)).run([(parametric(), VALUES)], shots=5).result()
        return backend.seeds

    first = seeds_of_one_run(4)
    assert len(first) == 6 and len(set(first.values())) == 6  # six runs, on concurrent threads
    assert seeds_of_one_run(4) == first
    assert seeds_of_one_run(5) != first


def test_a_pub_that_measures_nothing_is_refused(sampler):
    circuit = QuantumCircuit(1, 1, name="silent")
    circuit.h(0)
    before = len(sampler.backend.backend.timings)
    job = sampler.run([circuit])
    with pytest.raises(InvalidParameterError, match=r"circuits\[0\] \('silent[-0-9]*'\) has no measurements"):
        job.result()
    assert len(sampler.backend.backend.timings) == before
