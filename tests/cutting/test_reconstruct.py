import numpy as np
import pytest
from qiskit.quantum_info import PauliList
from qiskit_addon_cutting import reconstruct_expectation_values

import cutting
from bbqmis import qaoa
from bbqmis.mis.errors import InvalidParameterError


def z_terms(n, rng):
    labels = []
    for _ in range(12):
        z = rng.random(n) < 0.3
        labels.append("".join("Z" if b else "I" for b in z[::-1]))
    return PauliList(labels + ["Z" * n, "I" * n])


def test_equals_library(plan9, results9):
    observables = z_terms(9, np.random.default_rng(0))
    ours = cutting.expectation_values(plan9, results9, observables)
    library = reconstruct_expectation_values(*cutting.library_arguments(plan9, results9, observables))
    assert np.max(np.abs(ours - np.array(library[1:]))) < 1e-10
    assert ours[-1] == pytest.approx(1.0, abs=0.05)  # <I>: shot noise of the cut signs


def test_energy_matches_library_terms(plan9, results9):
    h, J, offset = plan9.problem.ising()
    n = plan9.num_qubits
    labels, coefficients = [], []
    for u in np.flatnonzero(h):
        labels.append("".join("Z" if q == u else "I" for q in reversed(range(n))))
        coefficients.append(h[u])
    coo = J.tocoo()
    for u, v, c in zip(coo.row, coo.col, coo.data, strict=True):
        labels.append("".join("Z" if q in (u, v) else "I" for q in reversed(range(n))))
        coefficients.append(c)
    library = reconstruct_expectation_values(*cutting.library_arguments(plan9, results9, PauliList(labels)))
    assert cutting.energy(plan9, results9).value == pytest.approx(
        offset + np.dot(coefficients, library[1:]), abs=1e-10
    )


def test_within_three_standard_errors(plan9, angles9, aer):
    exact = qaoa.expectation(plan9.problem, angles9.gamma, angles9.beta)
    for seed in range(3):
        value, error = cutting.expectation(plan9, angles9.gamma, angles9.beta, aer, 2000, seed=seed)
        assert 0 < error < 0.2
        assert abs(value - exact) < 3 * error


def test_rejects_x_observables(plan9, results9):
    with pytest.raises(InvalidParameterError, match="products of Z and I"):
        cutting.expectation_values(plan9, results9, PauliList(["X" + "I" * 8]))
