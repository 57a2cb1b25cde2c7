"""Certificates of real runs for the checker's tests: bundled graphs coloured by the exact sampler."""

import copy
from pathlib import Path

import pytest

from bbqmis import read_graph
from bbqmis.coloring import color_graph
from bbqmis.coloring.certificate import build_certificate

GRAPHS = Path(__file__).resolve().parents[3] / "data" / "graphs"
_CACHE: dict[str, dict] = {}


@pytest.fixture
def certificate_of():
    """``certificate_of(name)``: the path of ``data/graphs/NAME.col`` and a copy of its run's certificate."""

    def make(name: str) -> tuple[Path, dict]:
        path = GRAPHS / f"{name}.col"
        if name not in _CACHE:
            graph = read_graph(path)
            _CACHE[name] = build_certificate(graph, color_graph(graph, "exact", seed=0, time_limit=60))
        return path, copy.deepcopy(_CACHE[name])

    return make
