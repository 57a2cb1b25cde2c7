"""Exceptions raised by the colouring search."""

from bbqmis.mis.errors import BBQMISError

__all__ = ["SearchError"]


class SearchError(BBQMISError):
    """The colouring search cannot continue (for example, a checkpoint does not match the graph).

    Examples
    --------
    >>> import networkx as nx
    >>> from bbqmis import SearchError, verify_coloring
    >>> try:
    ...     verify_coloring(nx.path_graph(2), {0: 0, 1: 0})
    ... except SearchError as error:
    ...     print(error)
    colouring is not proper: adjacent vertices 0 and 1 share colour 0
    """
