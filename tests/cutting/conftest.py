import numpy as np
import pytest
from qiskit.quantum_info import Statevector

import cutting
from backends import get_backend
from bbqmis import qaoa
from bbqmis.mis.problem import MISProblem


def exact_distribution(problem, angles) -> np.ndarray:
    """Probabilities of the uncut p = 1 circuit, index k <-> bitstring format(k, '0nb')."""
    circuit = qaoa.circuit(problem, measure=False)
    bound = circuit.assign_parameters({"gamma": angles.gamma, "beta": angles.beta})
    return Statevector(bound).probabilities()


def exact_counts(plan, angles, circuit) -> dict[str, float]:
    """Exact outcome distribution of one subexperiment (all its measurements are final)."""
    circuit = circuit.assign_parameters(
        dict(zip(plan.parameters, (angles.gamma, angles.beta), strict=True)), strict=False
    )
    measured = [
        (circuit.find_bit(i.qubits[0]).index, circuit.find_bit(i.clbits[0]).index)
        for i in circuit.data
        if i.operation.name == "measure"
    ]
    probabilities = Statevector(circuit.remove_final_measurements(inplace=False)).probabilities()
    out: dict[str, float] = {}
    for k in np.flatnonzero(probabilities):
        key = ["0"] * circuit.num_clbits
        for q, c in measured:
            key[-1 - c] = str(k >> q & 1)
        out["".join(key)] = out.get("".join(key), 0.0) + probabilities[k]
    return out


def to_vector(counts: dict[str, float], n: int) -> np.ndarray:
    v = np.zeros(2**n)
    for key, value in counts.items():
        v[int(key, 2)] = value
    return v / v.sum()


@pytest.fixture(scope="session")
def problem9():
    """9 vertices: two clusters of K = 4 joined by d = 1 separator vertex (qubit 4)."""
    return MISProblem(cutting.kd_clustered_graph(2, 4, 1, 0.8, 0.3, seed=4))


@pytest.fixture(scope="session")
def plan9(problem9):
    return cutting.cut_qaoa(problem9, 5)


@pytest.fixture(scope="session")
def angles9(problem9):
    return qaoa.optimize(problem9)


@pytest.fixture(scope="session")
def aer():
    return get_backend("aer")


@pytest.fixture(scope="session")
def results9(plan9, angles9, aer):
    """4,000 shots per subexperiment on Aer."""
    return cutting.run_subexperiments(plan9, angles9, aer, 4000, seed=11)
