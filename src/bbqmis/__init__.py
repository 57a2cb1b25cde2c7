"""bbqmis: graph colouring by branch-and-bound over maximal independent sets, with QAOA.

The package has three layers, each its own folder, lowest first:

- :mod:`bbqmis.mis`, the QAOA/MIS library: graph I/O, :class:`MISProblem`,
  :mod:`~bbqmis.mis.qaoa` (closed-form p = 1 QAOA), classical references;
- :mod:`bbqmis.solver`, the quantum MIS solver shared by every workload (built on
  :mod:`cutting` for problems wider than the device), and :mod:`bbqmis.samples`, the samples
  and counters it returns, which import no quantum stack (a run whose sampler runs no
  circuit never imports qiskit);
- :mod:`bbqmis.coloring`, the colouring search: samplers, bounds, branch-and-bound,
  executors, command line.

This module re-exports the public names of all three, each imported on first use (PEP 562):
``import bbqmis`` itself imports neither networkx, numpy nor qiskit, so ``python -m bbqmis
--version`` answers at once, and ``from bbqmis import MISProblem`` stays light for processes
that never build a circuit (clustering workers, workflow steps).

>>> import bbqmis
>>> bbqmis.read_graph.__name__
'read_graph'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, for type checkers; at run time they are loaded by __getattr__
    from .coloring import (
        AnnealingSampler,
        ColoringResult,
        ExactSampler,
        GreedySampler,
        MISSampler,
        QAOASampler,
        RandomSampler,
        SearchError,
        color_graph,
        get_sampler,
        verify_coloring,
    )
    from .mis import (
        BBQMISError,
        GraphFormatError,
        InvalidParameterError,
        MISProblem,
        bits_from_strings,
        greedy_independent_set,
        maximum_independent_set,
        parse_dimacs,
        parse_edgelist,
        qaoa,
        read_graph,
    )
    from .samples import MISSamples
    from .solver import QuantumMISSolver

#: Public names loaded lazily, with the module that defines them.
_LAZY = {
    "qaoa": ".mis.qaoa",
    **dict.fromkeys(
        [
            "BBQMISError",
            "GraphFormatError",
            "InvalidParameterError",
            "MISProblem",
            "bits_from_strings",
            "greedy_independent_set",
            "maximum_independent_set",
            "parse_dimacs",
            "parse_edgelist",
            "read_graph",
        ],
        ".mis",
    ),
    "MISSamples": ".samples",
    "QuantumMISSolver": ".solver",
    **dict.fromkeys(
        [
            "AnnealingSampler",
            "ColoringResult",
            "ExactSampler",
            "GreedySampler",
            "MISSampler",
            "QAOASampler",
            "RandomSampler",
            "SearchError",
            "color_graph",
            "get_sampler",
            "verify_coloring",
        ],
        ".coloring",
    ),
}

__all__ = [
    "AnnealingSampler",
    "BBQMISError",
    "ColoringResult",
    "ExactSampler",
    "GraphFormatError",
    "GreedySampler",
    "InvalidParameterError",
    "MISProblem",
    "MISSampler",
    "MISSamples",
    "QAOASampler",
    "QuantumMISSolver",
    "RandomSampler",
    "SearchError",
    "bits_from_strings",
    "color_graph",
    "get_sampler",
    "greedy_independent_set",
    "maximum_independent_set",
    "parse_dimacs",
    "parse_edgelist",
    "qaoa",
    "read_graph",
    "verify_coloring",
]


def __getattr__(name: str) -> Any:
    """Import a lazily loaded public name on first use (PEP 562); ``__version__`` from the metadata."""
    if name == "__version__":
        from importlib.metadata import version

        value: Any = version("bbqmis")
    elif name in _LAZY:
        module = importlib.import_module(_LAZY[name], __name__)
        value = module if name == "qaoa" else getattr(module, name)
    else:
        raise AttributeError(f"module 'bbqmis' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Public names, including the lazily loaded ones."""
    return __all__
