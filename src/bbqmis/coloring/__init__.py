"""The colouring search: BBQ-MIS branch-and-bound over sampled maximal independent sets.

The top layer of :mod:`bbqmis`: samplers (:mod:`~bbqmis.coloring.samplers`), bounds,
node expansion on workers (:mod:`~bbqmis.coloring.expand`), the manager's tree
(:mod:`~bbqmis.coloring.tree`), checkpoints, executors, :func:`color_graph` and the
command line. It builds on the library layer (:mod:`bbqmis.mis`), the shared quantum
solver (:mod:`bbqmis.solver`), :mod:`cutting` and :mod:`backends`.
"""

from .errors import SearchError
from .result import ColoringResult, color_classes, verify_coloring
from .samplers import (
    AnnealingSampler,
    ExactSampler,
    GreedySampler,
    MISSampler,
    QAOASampler,
    RandomSampler,
    Samples,
    get_sampler,
    maximal_independent_sets,
)
from .search import color_graph

__all__ = [
    "AnnealingSampler",
    "ColoringResult",
    "ExactSampler",
    "GreedySampler",
    "MISSampler",
    "QAOASampler",
    "RandomSampler",
    "Samples",
    "SearchError",
    "color_classes",
    "color_graph",
    "get_sampler",
    "maximal_independent_sets",
    "verify_coloring",
]
