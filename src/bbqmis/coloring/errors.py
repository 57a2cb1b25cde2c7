"""Exceptions raised by the colouring search."""

from bbqmis.mis.errors import BBQMISError

__all__ = ["SearchError"]


class SearchError(BBQMISError):
    """The colouring search cannot continue (for example, a checkpoint does not match the graph)."""
