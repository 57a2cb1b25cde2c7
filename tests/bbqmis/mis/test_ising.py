import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from backends.utils.errors import InvalidParameterError
from bbqmis import MISProblem
from bbqmis.mis.ising import ising_edge_list, ising_matrices


class IsingOnly:
    """An Ising problem with ``ising()`` and nothing else."""

    def __init__(self, terms):
        self._terms = terms

    def ising(self):
        return self._terms


@pytest.fixture
def problem():
    return MISProblem(nx.gnp_random_graph(12, 0.4, seed=3), weights=np.linspace(0.5, 2.0, 12), penalty=2.5)


def test_matrices_of_an_object_a_tuple_and_a_dense_symmetric_tuple_agree(problem):
    h, J, offset = problem.ising()
    symmetric = J.toarray() + J.toarray().T  # the lower triangle is ignored
    for given in (problem, IsingOnly((h, J, offset)), (list(h), symmetric, offset)):
        h2, J2, offset2 = ising_matrices(given)
        assert isinstance(J2, sp.csr_array) and offset2 == offset
        np.testing.assert_array_equal(h2, h)
        np.testing.assert_array_equal(J2.toarray(), J.toarray())


def test_the_mis_fast_path_gives_the_edge_list_of_the_generic_path(problem):
    h, edges, couplings, offset = ising_edge_list(problem)
    assert edges is problem.edges  # read from the problem, no matrix built
    h2, edges2, couplings2, offset2 = ising_edge_list(IsingOnly(problem.ising()))
    np.testing.assert_array_equal(h2, h)
    np.testing.assert_array_equal(edges2, edges)
    np.testing.assert_array_equal(couplings2, couplings)
    assert offset2 == offset


def test_zero_couplings_are_no_edges():
    J = sp.csr_array(([0.0, 1.5], ([0, 1], [1, 2])), shape=(3, 3))  # an explicit zero on (0, 1)
    _, edges, couplings, _ = ising_edge_list((np.zeros(3), J, 0.0))
    assert edges.tolist() == [[1, 2]] and couplings.tolist() == [1.5]
    assert edges.dtype == np.int64


def test_couplings_of_the_wrong_shape_are_refused():
    with pytest.raises(InvalidParameterError) as info:
        ising_matrices((np.zeros(3), np.zeros((2, 2)), 0.0))
    assert str(info.value) == "J must have shape (3, 3), got (2, 2)"
