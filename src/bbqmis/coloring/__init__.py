"""The colouring search: BBQ-MIS branch-and-bound over sampled maximal independent sets.

The top layer of :mod:`bbqmis`, built on the library layer (:mod:`bbqmis.mis`), the shared
quantum solver (:mod:`bbqmis.solver`), :mod:`cutting` and :mod:`backends`. Its own layers,
highest first (each imports only those below it):

- :mod:`~bbqmis.coloring.cli`: the command line (``python -m bbqmis``), with what it prints
  (:mod:`~bbqmis.coloring.report`) and draws (:mod:`~bbqmis.coloring.plot`);
- :mod:`~bbqmis.coloring.pipeline`: :func:`color_graph` (components, then per component the
  phases in order), :mod:`~bbqmis.coloring.phases`: one function per phase, and
  :mod:`~bbqmis.coloring.component`: what a component's phases share and give back;
- :mod:`~bbqmis.coloring.tree`: the BBQ-MIS tree, its workers, executors and checkpoints;
- :mod:`~bbqmis.coloring.lp`: the set-cover LP, its pricers and branch-and-price;
- :mod:`~bbqmis.coloring.classical`: classical bounds, heuristics and reductions;
- the base every layer uses: :mod:`~bbqmis.coloring.samplers`, :mod:`~bbqmis.coloring.result`,
  :mod:`~bbqmis.coloring.limits` and :mod:`~bbqmis.coloring.errors`.
"""

from .errors import SearchError
from .pipeline import color_graph
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
