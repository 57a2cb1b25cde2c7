"""Helpers shared by the graph reader tests, as fixtures (test modules are not importable)."""

import pytest

from bbqmis.mis.errors import GraphFormatError
from bbqmis.mis.graphio import read_graph


def _labels(graph):
    """Node labels in node order 0..n-1."""
    return [graph.nodes[i]["label"] for i in range(graph.number_of_nodes())]


def _labelled_edges(graph):
    """Edges as frozensets of original labels."""
    return {frozenset((graph.nodes[u]["label"], graph.nodes[v]["label"])) for u, v in graph.edges}


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _assert_error(path, message, **kwargs):
    """``read_graph(path)`` raises GraphFormatError with exactly ``f"{path}{message}"``."""
    with pytest.raises(GraphFormatError) as info:
        read_graph(path, **kwargs)
    assert str(info.value) == f"{path}{message}"


@pytest.fixture
def labels():
    return _labels


@pytest.fixture
def labelled_edges():
    return _labelled_edges


@pytest.fixture
def write():
    return _write


@pytest.fixture
def assert_error():
    return _assert_error
