"""The colouring search: BBQ-MIS branch-and-bound over sampled maximal independent sets.

The top layer of :mod:`bbqmis`, built on the library layer (:mod:`bbqmis.mis`), the shared
quantum solver (:mod:`bbqmis.solver`), :mod:`cutting` and :mod:`backends`. Its own layers,
highest first (each imports only those below it):

- :mod:`~bbqmis.coloring.cli`: the command line (``python -m bbqmis``), with its options
  (:mod:`~bbqmis.coloring.options`), what it prints (:mod:`~bbqmis.coloring.report`), draws
  (:mod:`~bbqmis.coloring.plot`) and certifies (:mod:`~bbqmis.coloring.certificate`);
- :mod:`~bbqmis.coloring.pipeline`: :func:`color_graph` (components, then per component the
  phases in order), :mod:`~bbqmis.coloring.phases`: one function per phase, and
  :mod:`~bbqmis.coloring.component`: what a component's phases share and give back;
- :mod:`~bbqmis.coloring.tree`: the BBQ-MIS tree, its workers, executors and checkpoints;
- :mod:`~bbqmis.coloring.lp`: the set-cover LP, its pricers and branch-and-price;
- :mod:`~bbqmis.coloring.classical`: classical bounds, heuristics and reductions;
- the base every layer uses: :mod:`~bbqmis.coloring.samplers`, :mod:`~bbqmis.coloring.result`,
  :mod:`~bbqmis.coloring.limits` and :mod:`~bbqmis.coloring.errors`.

Every name is imported on first use (PEP 562), so the command line's modules load only what
a run needs (``--help`` none of the search; ``--plot`` alone matplotlib).

>>> from bbqmis.coloring import verify_coloring
>>> verify_coloring.__name__
'verify_coloring'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, for type checkers; at run time they are loaded by __getattr__
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

#: Public names loaded lazily, with the module that defines them.
_LAZY = {
    "SearchError": ".errors",
    "color_graph": ".pipeline",
    **dict.fromkeys(["ColoringResult", "color_classes", "verify_coloring"], ".result"),
    **dict.fromkeys(
        [
            "AnnealingSampler",
            "ExactSampler",
            "GreedySampler",
            "MISSampler",
            "QAOASampler",
            "RandomSampler",
            "Samples",
            "get_sampler",
            "maximal_independent_sets",
        ],
        ".samplers",
    ),
}

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


def __getattr__(name: str) -> Any:
    """Import a lazily loaded public name on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'bbqmis.coloring' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Public names, including the lazily loaded ones."""
    return __all__
