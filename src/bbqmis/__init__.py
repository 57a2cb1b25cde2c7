"""bbqmis: graph colouring by branch-and-bound over maximal independent sets, with QAOA.

The library layer (graph I/O, :class:`MISProblem`, :mod:`bbqmis.qaoa`, classical
references) is importable on its own; the search layer (samplers, branch-and-bound,
executors, CLI) builds on it. Names that need qiskit (``qaoa``, the samplers and the
search) are imported on first use, so ``from bbqmis import MISProblem`` stays light
for processes that never build a circuit (clustering workers, workflow steps).
"""

import importlib

from .classical import greedy_independent_set, maximum_independent_set
from .errors import BBQMISError, GraphFormatError, InvalidParameterError, SearchError
from .problem import MISProblem, bits_from_strings
from .readwrite import parse_dimacs, parse_edgelist, read_graph

#: Public names loaded lazily, with the module that defines them.
_LAZY = {
    "qaoa": ".qaoa",
    **dict.fromkeys(
        [
            "AnnealingSampler",
            "ExactSampler",
            "GreedySampler",
            "MISSampler",
            "QAOASampler",
            "RandomSampler",
            "get_sampler",
        ],
        ".samplers",
    ),
    **dict.fromkeys(["ColoringResult", "color_graph", "verify_coloring"], ".search"),
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
    "QAOASampler",
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


def __getattr__(name: str):
    """Import a lazily loaded public name on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'bbqmis' has no attribute {name!r}")
    module = importlib.import_module(_LAZY[name], __name__)
    value = module if name == "qaoa" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__():
    """Public names, including the lazily loaded ones."""
    return __all__
