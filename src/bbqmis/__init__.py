"""bbqmis: graph colouring by branch-and-bound over maximal independent sets, with QAOA.

The library layer (graph I/O, :class:`MISProblem`, :mod:`bbqmis.qaoa`, classical
references) is importable on its own; the search layer (samplers, branch-and-bound,
executors, CLI) builds on it.
"""

from . import qaoa
from .classical import greedy_independent_set, maximum_independent_set
from .errors import BBQMISError, GraphFormatError, InvalidParameterError, SearchError
from .problem import MISProblem, bits_from_strings
from .readwrite import parse_dimacs, parse_edgelist, read_graph
from .samplers import (
    AnnealingSampler,
    ExactSampler,
    GreedySampler,
    MISSampler,
    QAOASampler,
    RandomSampler,
    get_sampler,
)
from .search import ColoringResult, color_graph, verify_coloring

__all__ = [
    "AnnealingSampler",
    "BBQMISError",
    "ColoringResult",
    "ExactSampler",
    "GreedySampler",
    "MISSampler",
    "QAOASampler",
    "RandomSampler",
    "GraphFormatError",
    "InvalidParameterError",
    "MISProblem",
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
