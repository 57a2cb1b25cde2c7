"""The QAOA/MIS library: graph I/O, the MIS QUBO, closed-form p = 1 QAOA, classical references.

This is the library layer of :mod:`bbqmis`; it imports only :mod:`backends` (to sample
circuits), so the solver, the colouring search and ``clustagg`` can all build on it. An
:class:`MISProblem` is a :class:`cutting.QAOAProblem` by its methods alone: ``cutting``
imports nothing from here. One module per job:
:mod:`~bbqmis.mis.problem` (:class:`MISProblem`: QUBO, Ising form, bitstrings),
:mod:`~bbqmis.mis.adjacency` (edges at each vertex, triangles on each edge),
:mod:`~bbqmis.mis.ising` (Ising problems given as objects or tuples),
:mod:`~bbqmis.mis.closed_form` (the closed-form p = 1 energy, no qiskit),
:mod:`~bbqmis.mis.qaoa` (circuit, angle training and sampling),
:mod:`~bbqmis.mis.classical` (exact, greedy and annealing references),
:mod:`~bbqmis.mis.graphio` (graph files) and :mod:`~bbqmis.mis.errors`.
:mod:`bbqmis.mis.qaoa` imports qiskit and is loaded on first use.
"""

import importlib
from types import ModuleType

from .classical import check_beta_range, greedy_independent_set, maximum_independent_set, simulated_annealing
from .errors import BBQMISError, GraphFormatError, InvalidParameterError
from .graphio import parse_dimacs, parse_edgelist, read_graph
from .problem import MISProblem, bits_from_strings

__all__ = [
    "BBQMISError",
    "GraphFormatError",
    "InvalidParameterError",
    "MISProblem",
    "bits_from_strings",
    "check_beta_range",
    "greedy_independent_set",
    "maximum_independent_set",
    "parse_dimacs",
    "parse_edgelist",
    "qaoa",
    "read_graph",
    "simulated_annealing",
]


def __getattr__(name: str) -> ModuleType:
    """Import :mod:`bbqmis.mis.qaoa` on first use (PEP 562): it pulls in qiskit."""
    if name != "qaoa":
        raise AttributeError(f"module 'bbqmis.mis' has no attribute {name!r}")
    return importlib.import_module(".qaoa", __name__)
