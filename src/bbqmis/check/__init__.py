"""An independent checker of colouring certificates: ``python -m bbqmis.check GRAPH CERT``.

It shares no code with the solver (an import contract forbids it :mod:`bbqmis.coloring`,
:mod:`bbqmis.mis`, :mod:`bbqmis.solver`, :mod:`cutting` and :mod:`backends`): it reads the
DIMACS graph with its own small parser (:func:`read_dimacs`), recomputes the graph's edge
count and hash, checks that the colouring is proper with the colours it claims, and checks the
lower bound's witness, a clique or a Mycielskian structure, against the graph alone
(:func:`check_certificate`). The certificate format is described in
:mod:`bbqmis.coloring.certificate` and ``docs/howto/certificates.md``.

>>> graph = parse_dimacs(["p edge 3 3", "e 1 2", "e 2 3", "e 1 3"])
>>> certificate = {"format": "bbqmis-coloring-certificate", "version": 1,
...     "graph": {"vertices": 3, "edges": 3, "edges_sha256": graph.sha256},
...     "coloring": {"1": 0, "2": 1, "3": 2}, "num_colors": 3, "lower_bound": 3, "optimal": True,
...     "lower_bound_certificate": {"kind": "clique", "bound": 3, "clique": ["1", "2", "3"]}}
>>> check_certificate(graph, certificate)
'ok: chromatic number 3 proved'
"""

from .dimacs import DimacsGraph, parse_dimacs, read_dimacs
from .drat import ProofError, check_refutation
from .errors import InvalidCertificate, UnreadableInput
from .refutation import refutation_bound, refutation_formula
from .verify import check_certificate, read_certificate, witness_bound

__all__ = [
    "DimacsGraph",
    "InvalidCertificate",
    "ProofError",
    "UnreadableInput",
    "check_certificate",
    "check_refutation",
    "parse_dimacs",
    "read_certificate",
    "read_dimacs",
    "refutation_bound",
    "refutation_formula",
    "witness_bound",
]
