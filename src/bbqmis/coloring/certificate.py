r"""Certificates of colouring runs: what a third party needs to check a result without bbqmis.

A certificate is a JSON object (format ``bbqmis-coloring-certificate``, version 1):

- ``graph``: ``vertices`` and ``edges`` (counts) and ``edges_sha256``, the SHA-256 of the
  edge list in canonical form (:func:`edge_hash`): vertices are named by their labels in the
  file (DIMACS: the vertex numbers ``1..n``), each edge is written ``"a b\n"`` with
  ``a < b`` as strings, and the lines are sorted, without duplicates;
- ``coloring``: vertex name -> colour ``0..k-1``, and ``num_colors``: ``k``;
- ``lower_bound``: the bound the run proved, and ``optimal``;
- ``lower_bound_certificate``: a witness of that bound, or null with the reason in
  ``lower_bound_note``; a witness is ``{"kind": "clique", "bound": q, "clique": [...]}``,
  ``{"kind": "mycielski", "bound": q + levels, "clique": [...], "levels": [{"w": w,
  "shadows": [[v, u_v], ...]}, ...]}`` (the structure of
  :class:`~bbqmis.coloring.classical.mycielski.MycielskiWitness`: at each level every vertex
  ``v`` of the structure so far has a shadow ``u_v`` adjacent to ``w`` and to ``v``'s
  neighbours in the structure, which gains those edges), or ``{"kind": "refutation",
  "bound": k + 1, "colors": k, "vertices", "fixed", "cliques", "merges", "at_most_one",
  "proof"}`` (:func:`refutation_json`: a DRAT proof that the subgraph on ``vertices`` has
  no k-colouring, with the structure from which the checker rebuilds the formula);
- ``weaker_certificate``: when ``lower_bound_certificate`` is null, the strongest witness
  found (a weaker bound), or null.

The witness is searched again from the graph when the certificate is built (a maximum
clique, then Mycielskian levels grown from cliques, within a few seconds, and when these
fall short a SAT refutation with its proof): the run may have proved its bound otherwise
(LP, exhaustive tree), and the certificate does not depend on how.
``python -m bbqmis.check GRAPH CERT`` checks a certificate with its own code
(:mod:`bbqmis.check`).

Examples
--------
>>> import networkx as nx
>>> from bbqmis.coloring import color_graph
>>> graph = nx.mycielski_graph(4)  # chi = 4, cliques of 2
>>> document = build_certificate(graph, color_graph(graph, "exact"))
>>> document["num_colors"], document["lower_bound_certificate"]["kind"]
(4, 'mycielski')
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .classical.clique import graph_clique
from .classical.mycielski import MycielskiWitness, mycielski_bound

if TYPE_CHECKING:
    import networkx as nx

    from .classical.sat import Refutation
    from .result import ColoringResult

__all__ = ["FORMAT", "VERSION", "build_certificate", "edge_hash", "refutation_json", "witness_json"]

#: The ``format`` and ``version`` of the certificates written here.
FORMAT = "bbqmis-coloring-certificate"
VERSION = 1
#: Seconds spent at most on searching a witness of the lower bound.
WITNESS_SECONDS = 10.0


def edge_hash(edges: Iterable[tuple[str, str]]) -> tuple[int, str]:
    r"""The number of distinct edges and the SHA-256 of their canonical list.

    Parameters
    ----------
    edges : iterable of (str, str)
        Edges given by vertex names, in any order and direction, repeats allowed.

    Returns
    -------
    count : int
    sha256 : str
        Hex digest of the sorted lines ``"a b\n"`` (``a < b``).

    Examples
    --------
    >>> edge_hash([("2", "1"), ("1", "2"), ("2", "3")])[0]
    2
    >>> edge_hash([("1", "2")])[1] == edge_hash([("2", "1")])[1]
    True
    """
    lines = sorted({"{} {}\n".format(*sorted(edge)) for edge in edges})
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode())
    return len(lines), digest.hexdigest()


def witness_json(witness: MycielskiWitness, name: dict[Hashable, str]) -> dict[str, Any]:
    """The JSON form of ``witness``: a clique, or a clique with its Mycielskian levels.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.coloring.classical.mycielski import extend_clique
    >>> from bbqmis.coloring.classical.clique import adjacency_bitsets
    >>> witness = extend_clique(adjacency_bitsets(nx.cycle_graph(5)), [0, 1])
    >>> data = witness_json(witness, {v: str(v + 1) for v in range(5)})
    >>> data["kind"], data["bound"], data["clique"], len(data["levels"])
    ('mycielski', 3, ['1', '2'], 1)
    """
    data: dict[str, Any] = {
        "kind": "mycielski" if witness.levels else "clique",
        "bound": witness.bound,
        "clique": [name[v] for v in witness.clique],
    }
    if witness.levels:
        data["levels"] = [
            {"w": name[level.w], "shadows": [[name[v], name[u]] for v, u in level.shadows]}
            for level in witness.levels
        ]
    return data


def build_certificate(
    graph: nx.Graph,
    result: ColoringResult,
    *,
    seconds: float = WITNESS_SECONDS,
    refutation_seconds: float = math.inf,
    memory_gb: float | None = None,
) -> dict[str, Any]:
    """The certificate of ``result``, a colouring of ``graph`` (see the module docstring).

    Parameters
    ----------
    graph : networkx.Graph
        As :func:`~bbqmis.mis.graphio.read_graph` returns it: vertex names are the node
        attribute ``label`` (else the node), as strings.
    result : ColoringResult
        Its ``coloring`` is keyed by the same labels.
    seconds : float, default 10
        At most this long is spent searching a clique or Mycielskian witness of
        ``result.lower_bound``.
    refutation_seconds : float, default inf
        When those fall short, at most this long is spent on a SAT refutation of
        ``result.lower_bound - 1`` colours with its DRAT proof (:func:`refutation_json`).
    memory_gb : float, optional
        Address space of the SAT solver's process, in GB (default 4 GiB).

    Returns
    -------
    dict
        JSON-ready.

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis.coloring import ColoringResult
    >>> result = ColoringResult({0: 0, 1: 1, 2: 2}, num_colors=3, lower_bound=3, optimal=True)
    >>> document = build_certificate(nx.complete_graph(3), result)
    >>> document["coloring"], document["lower_bound_certificate"]["clique"]
    ({'0': 0, '1': 1, '2': 2}, ['0', '1', '2'])
    """
    label = {v: graph.nodes[v].get("label", v) for v in graph}
    name = {v: str(label[v]) for v in graph}
    edges, sha256 = edge_hash((name[u], name[v]) for u, v in graph.edges)
    best = _witness(graph, result.lower_bound, seconds)
    proved = best is not None and best.bound >= result.lower_bound
    refuted = None
    if not proved and best is not None and refutation_seconds > 0:
        deadline = time.perf_counter() + refutation_seconds
        refuted = refutation_json(graph, result.lower_bound - 1, best.clique, name, deadline, memory_gb)
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "graph": {"vertices": graph.number_of_nodes(), "edges": edges, "edges_sha256": sha256},
        "num_colors": result.num_colors,
        "coloring": {name[v]: int(result.coloring[label[v]]) for v in graph},
        "lower_bound": result.lower_bound,
        "optimal": result.optimal,
        "lower_bound_certificate": witness_json(best, name) if proved and best else refuted,
    }
    if not proved and refuted is None:
        document["lower_bound_note"] = _uncertified(result, best)
        document["weaker_certificate"] = witness_json(best, name) if best and best.bound > 1 else None
    return document


def refutation_json(
    graph: nx.Graph,
    k: int,
    clique: Sequence[Hashable],
    name: dict[Hashable, str],
    deadline: float = math.inf,
    memory_gb: float | None = None,
) -> dict[str, Any] | None:
    """A refutation witness that ``graph`` has no ``k``-colouring, or None if none is found by ``deadline``.

    The question goes to the SAT solver on each component of the ``k``-core (a vertex of
    fewer than ``k`` neighbours always finds a free colour, so it changes nothing), largest
    first, with the vertices of ``clique`` in the component fixed to distinct colours
    (:func:`~bbqmis.coloring.classical.sat.sat_refutation`); the first component refuted
    gives the witness: its vertices, the fixed clique, the implied clauses' structure and
    the DRAT proof, in the form ``python -m bbqmis.check`` reads
    (:mod:`bbqmis.check.refutation`).

    Parameters
    ----------
    graph : networkx.Graph
    k : int
        The colours refuted (at least the size of ``clique``).
    clique : sequence of nodes
        A clique of ``graph``.
    name : dict
        The name of each node in the certificate.
    deadline : float, default inf
        :func:`time.perf_counter` time at which the search gives up.
    memory_gb : float, optional
        Address space of the solver's process, in GB.

    Examples
    --------
    >>> import networkx as nx
    >>> wheel = nx.wheel_graph(6)  # hub + 5-cycle: no 3-colouring
    >>> witness = refutation_json(wheel, 3, [0, 1, 2], {v: str(v + 1) for v in wheel})
    >>> witness["kind"], witness["bound"], witness["fixed"], len(witness["vertices"])
    ('refutation', 4, ['1', '2', '3'], 6)
    >>> refutation_json(wheel, 4, [0, 1, 2], {v: str(v + 1) for v in wheel}) is None
    True
    """
    import networkx as nx

    from .classical.matrices import csr_adjacency
    from .classical.sat import sat_refutation

    core = nx.k_core(graph, k)
    for part in sorted(nx.connected_components(core), key=len, reverse=True):
        order = list(core.subgraph(part))
        position = {v: i for i, v in enumerate(order)}
        fixed = [v for v in clique if v in position]
        found = sat_refutation(
            csr_adjacency(core.subgraph(part), order),
            k,
            clique=[position[v] for v in fixed],
            deadline=deadline,
            memory_gb=memory_gb,
        )
        if found is not None:
            return _refutation_document(found, [name[v] for v in order])
        if time.perf_counter() >= deadline:
            break
    return None


def _refutation_document(found: Refutation, names: list[str]) -> dict[str, Any]:
    """The JSON form of a refutation of the subgraph whose vertex ``i`` is named ``names[i]``."""
    implied = found.implied
    return {
        "kind": "refutation",
        "bound": found.k + 1,
        "colors": found.k,
        "vertices": names,
        "fixed": [names[v] for v in found.clique],
        "cliques": [[names[v] for v in clique] for clique in implied["cliques"]],
        "merges": [[names[u], names[v], j] for u, v, j in implied["merges"]],
        "at_most_one": bool(implied["at_most_one"]),
        "proof": found.proof,
    }


def _witness(graph: nx.Graph, target: int, seconds: float) -> MycielskiWitness | None:
    """The strongest witness found: a maximum clique, else a Mycielskian structure; None without vertices."""
    if graph.number_of_nodes() == 0:
        return None
    deadline = time.perf_counter() + seconds
    order = list(graph)
    clique = tuple(order[i] for i in graph_clique(graph, order, deadline=deadline).clique)
    best = MycielskiWitness(clique=clique, levels=())
    if best.bound >= target:
        return best
    grown = mycielski_bound(graph, [clique], target=target, deadline=deadline)
    return grown if grown.bound > best.bound else best


def _uncertified(result: ColoringResult, best: MycielskiWitness | None) -> str:
    """Why the lower bound has no witness: what proved it, and what a witness reaches."""
    hows = sorted({str(entry.get("how")) for entry in result.stats.get("searched", []) if entry.get("how")})
    source = ", ".join(hows) if hows else "the search"
    reached = 0 if best is None else best.bound
    return (
        f"the lower bound {result.lower_bound} was proved by {source}, and no SAT refutation of "
        f"{result.lower_bound - 1} colours was found in the time given; the strongest clique or "
        f"Mycielskian witness found proves {reached}"
    )
