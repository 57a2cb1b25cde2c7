"""Wire cutting for single-layer QAOA: plans, expectation reconstruction and cut-sampling.

``cutting`` knows circuits, not the problems they come from, and imports nothing from
``bbqmis``: :mod:`~cutting.problem` says what it needs of a problem (:class:`QAOAProblem`:
a graph, its Ising form and its p = 1 circuit), which :class:`bbqmis.mis.MISProblem` has.
One module per pipeline step, each taking the previous step's result:
:mod:`~cutting.graphs` and :mod:`~cutting.separators` (where to cut),
:mod:`~cutting.layout` (which fragment every qubit and gate goes to),
:mod:`~cutting.circuits` (the cut circuit and its subexperiments),
:mod:`~cutting.plan` (``cut_qaoa -> CutPlan``, the two steps before together),
:mod:`~cutting.execute` (``run_subexperiments -> CutResults``),
:mod:`~cutting.reconstruct` (energies) and :mod:`~cutting.sample` (bitstrings);
:mod:`~cutting.errors` holds the exceptions. The circuit work is done by qiskit-addon-cutting.
Bitstrings use qiskit's order: qubit 0 is the rightmost character.
"""

from .errors import (
    CuttingError,
    FragmentTooWideError,
    InvalidParameterError,
    NoSeparatorError,
    OverheadTooLargeError,
)
from .execute import CutResults, FragmentShots, collect, run_subexperiments
from .graphs import kd_clustered_graph
from .plan import CutPlan, Fragment, cut_qaoa
from .problem import QAOAProblem
from .reconstruct import EnergyEstimate, energy, expectation, expectation_values, library_arguments
from .sample import CutSampleResult, draw, quasi_distribution, sample, sample_result
from .separators import Separation, find_separators

__all__ = [
    "CutPlan",
    "CutResults",
    "CutSampleResult",
    "CuttingError",
    "EnergyEstimate",
    "Fragment",
    "FragmentShots",
    "FragmentTooWideError",
    "InvalidParameterError",
    "NoSeparatorError",
    "OverheadTooLargeError",
    "QAOAProblem",
    "Separation",
    "collect",
    "cut_qaoa",
    "draw",
    "energy",
    "expectation",
    "expectation_values",
    "find_separators",
    "kd_clustered_graph",
    "library_arguments",
    "quasi_distribution",
    "run_subexperiments",
    "sample",
    "sample_result",
]
