"""Pricers by name, for the options and statistics that name them.

:func:`get_pricer` turns ``"qaoa"``, ``"anneal"``, ``"greedy"``, ``"random"`` or ``"exact"``
into a :class:`~bbqmis.coloring.lp.pricing.Pricer`; a pricer object passes through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from backends.utils.errors import InvalidParameterError
from backends.utils.validation import build_named

from .exact_pricer import ExactPricer
from .heuristic_pricers import AnnealPricer, GreedyPricer, QAOAPricer, RandomPricer
from .pricing import Pricer

__all__ = [
    "PricerLike",
    "get_pricer",
]

_PRICERS: dict[str, Callable[..., Pricer]] = {
    "qaoa": QAOAPricer,
    "anneal": AnnealPricer,
    "greedy": GreedyPricer,
    "random": RandomPricer,
    "exact": ExactPricer,
}

#: What :func:`~bbqmis.coloring.lp.lp_bound.lp_bound` accepts as a pricer: a name of
#: :func:`get_pricer` or a Pricer.
PricerLike: TypeAlias = "str | Pricer"


def get_pricer(pricer: PricerLike, **options: Any) -> Pricer:
    """A pricer by name, or a pricer object as is.

    Parameters
    ----------
    pricer : {"qaoa", "anneal", "greedy", "random", "exact"} or Pricer
    **options
        Keyword arguments of the named pricer's constructor.

    Returns
    -------
    Pricer

    Raises
    ------
    InvalidParameterError
        For an unknown name, or options given with a pricer object.

    Examples
    --------
    >>> get_pricer("greedy", starts=4).name
    'greedy'
    >>> pricer = ExactPricer()
    >>> get_pricer(pricer) is pricer
    True
    >>> get_pricer("magic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    backends.utils.errors.InvalidParameterError: pricer must be one of ...; got 'magic'
    """
    named = build_named(pricer, "pricer", _PRICERS, options)
    if named is not None:
        return named
    if isinstance(pricer, Pricer):
        return pricer
    raise InvalidParameterError(f"pricer must be a name or a Pricer, got {pricer!r}")
