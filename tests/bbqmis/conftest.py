import itertools
import os
from pathlib import Path

import networkx as nx
import numpy as np
import pytest


def all_bitstrings(n: int) -> np.ndarray:
    """Every 0/1 vector of length n, shape (2**n, n), bit i of row k = (k >> i) & 1."""
    k = np.arange(2**n)
    return ((k[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def random_graphs(count: int, seed: int, max_nodes: int = 9):
    """Random small graphs with isolated vertices and several components."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, max_nodes))
        g = nx.gnp_random_graph(n, float(rng.uniform(0.2, 0.7)), seed=int(rng.integers(2**31)))
        g = nx.disjoint_union(g, nx.path_graph(int(rng.integers(1, 3))))
        g.add_node(g.number_of_nodes())
        yield g


def brute_force_chromatic_number(graph: nx.Graph) -> int:
    """The chromatic number by trying every colouring, for graphs of at most about 8 vertices."""
    nodes = list(graph)
    for k in range(1, len(nodes) + 1):
        for colors in itertools.product(range(k), repeat=len(nodes)):
            assignment = dict(zip(nodes, colors, strict=True))
            if all(assignment[u] != assignment[v] for u, v in graph.edges):
                return k
    return 0


@pytest.fixture
def chromatic_number():
    return brute_force_chromatic_number


@pytest.fixture
def bitstrings():
    return all_bitstrings


@pytest.fixture
def graphs():
    return random_graphs


@pytest.fixture
def linux_proc(needs):
    """Linux's /proc file system: CI runs on Linux, so it fails there without it."""
    needs(Path("/proc/self").is_dir(), "needs Linux /proc")


@pytest.fixture
def as_root(needs):
    """Root's privileges (mknod): CI runs as root, so it fails there without them."""
    needs(os.geteuid() == 0, "needs root (mknod)")
