import pytest

from clustagg.data import make_reference_points


@pytest.fixture(scope="session")
def points_3000():
    return make_reference_points(3000)


@pytest.fixture(scope="session")
def points_1000():
    return make_reference_points(1000)


class StatevectorBackend:
    """Minimal QuantumBackend for tests: qiskit's StatevectorSampler, no device."""

    name = "statevector"
    num_qubits = 12

    def __init__(self):
        self.timings = []

    def run(self, circuits, shots, seed=None):
        from qiskit.primitives import StatevectorSampler

        result = StatevectorSampler(seed=seed).run(circuits, shots=shots).result()
        return [item.data.meas.get_counts() for item in result]


@pytest.fixture
def statevector_backend():
    return StatevectorBackend()
