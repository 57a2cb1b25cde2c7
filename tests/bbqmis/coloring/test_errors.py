import networkx as nx
import pytest

from backends.utils.errors import ProjectError
from bbqmis.coloring.errors import SearchError
from bbqmis.coloring.result import verify_coloring
from bbqmis.mis.errors import BBQMISError


def test_search_error_is_a_bbqmis_error_under_the_project_root():
    assert issubclass(SearchError, BBQMISError) and issubclass(SearchError, ProjectError)


def test_an_improper_colouring_raises_it_with_the_edge_and_the_colour():
    with pytest.raises(SearchError, match="adjacent vertices 0 and 1 share colour 0"):
        verify_coloring(nx.path_graph(2), {0: 0, 1: 0})
