"""clustagg: clustering aggregation with a maximum-weight independent set, in three resource modes.

Round by round, k-means, DBSCAN and single-linkage clusterings propose candidate
clusters; the heaviest set of non-overlapping candidates (an MWIS QUBO solved by
annealing, exactly, or by QAOA) becomes one clustering, scored by its silhouette; the loop
stops above a threshold and keeps the best round. :func:`run` is the entry point, and
``python -m clustagg`` the command line. :mod:`clustagg.silhouette` computes the exact
silhouette over all points; :mod:`clustagg.reference` replays the reference application's run.
"""

from .aggregate import Candidates, assign_labels, conflict_graph, mwis_problem, score
from .clusterers import ALGORITHMS, GridDBSCAN, SingleLinkage, draw_parameters, fit_labels
from .data import make_reference_points, parse_points, read_points
from .errors import ClustAggError, DataFormatError, InvalidParameterError, StepInputError
from .runner import MODES, AggregationResult, Timeline, run
from .solvers import SOLVERS, AnnealingSolver, ExactSolver, QAOASolver, get_solver, solve

__all__ = [
    "ALGORITHMS",
    "MODES",
    "SOLVERS",
    "AggregationResult",
    "AnnealingSolver",
    "Candidates",
    "ClustAggError",
    "DataFormatError",
    "ExactSolver",
    "GridDBSCAN",
    "InvalidParameterError",
    "QAOASolver",
    "SingleLinkage",
    "StepInputError",
    "Timeline",
    "assign_labels",
    "conflict_graph",
    "draw_parameters",
    "fit_labels",
    "get_solver",
    "make_reference_points",
    "mwis_problem",
    "parse_points",
    "read_points",
    "run",
    "score",
    "solve",
]
