"""The QAOA/MIS library: graph I/O, the MIS QUBO, closed-form p = 1 QAOA, classical references.

This is the library layer of :mod:`bbqmis`; it imports only :mod:`backends` (to sample
circuits), so ``cutting``, the colouring search and ``clustagg`` can all build on it.
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
