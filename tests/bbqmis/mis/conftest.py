import numpy as np
from qiskit.quantum_info import Statevector

from bbqmis import qaoa
from bbqmis.mis.ising import ising_matrices


def statevector_energy(problem, gamma, beta):
    """<f> from qiskit's Statevector of the bound circuit: the reference for the closed form."""
    qc = qaoa.circuit(problem, measure=False)
    bound = qc.assign_parameters({"gamma": gamma, "beta": beta}, strict=False)  # h = J = 0: no gamma
    probabilities = Statevector(bound).probabilities()
    n = qc.num_qubits
    k = np.arange(2**n)
    bits = (k[:, None] >> np.arange(n)) & 1
    h, J, offset = ising_matrices(problem)
    z = 1 - 2 * bits
    diagonal = offset + z @ h + np.einsum("ki,ij,kj->k", z, J.toarray(), z)
    return probabilities @ diagonal
