"""Every public function, class and method has a numpydoc ``Examples`` section with a doctest.

pytest runs those examples (``--doctest-modules`` in pyproject's addopts); this test makes sure
they exist. A module's public names are its ``__all__``; a class's public methods are the
functions it defines itself whose names do not start with ``_``. A name is checked in the
module that defines it, so a package ``__init__`` re-exporting a name from a module not yet
listed does not fail here. To cover more modules, add their names to ``COVERED_MODULES``.
"""

import importlib
import inspect
import re
from collections.abc import Iterator

import pytest

COVERED_MODULES = [
    "backends",
    "backends.aer",
    "backends.base",
    "backends.errors",
    "backends.utils.files",
    "backends.iqm",
    "backends.utils.progress",
    "backends.qiskit_backend",
    "backends.qiskit_sampler",
    "backends.registry",
    "backends.timing",
    "backends.utils.validation",
    "bbqmis",
    "bbqmis.coloring",
    "bbqmis.coloring.bounds",
    "bbqmis.coloring.branch_price",
    "bbqmis.coloring.checkpoint",
    "bbqmis.coloring.clique",
    "bbqmis.coloring.component",
    "bbqmis.coloring.dsatur_exact",
    "bbqmis.coloring.errors",
    "bbqmis.coloring.executors",
    "bbqmis.coloring.expand",
    "bbqmis.coloring.limits",
    "bbqmis.coloring.master",
    "bbqmis.coloring.matrices",
    "bbqmis.coloring.node_lp",
    "bbqmis.coloring.plot",
    "bbqmis.coloring.pricing",
    "bbqmis.coloring.reduce",
    "bbqmis.coloring.result",
    "bbqmis.coloring.samplers",
    "bbqmis.coloring.sat",
    "bbqmis.coloring.search",
    "bbqmis.coloring.tabucol",
    "bbqmis.coloring.tree",
    "bbqmis.coloring.treesearch",
    "bbqmis.mis",
    "bbqmis.mis.classical",
    "bbqmis.mis.errors",
    "bbqmis.mis.graphio",
    "bbqmis.mis.graphio.dimacs",
    "bbqmis.mis.graphio.edgelist",
    "bbqmis.mis.graphio.graphml",
    "bbqmis.mis.graphio.nodelink",
    "cutting",
    "cutting.circuits",
    "cutting.errors",
    "cutting.execute",
    "cutting.graphs",
    "cutting.layout",
    "cutting.plan",
    "cutting.reconstruct",
    "cutting.sample",
    "cutting.separators",
    "bbqmis.mis.adjacency",
    "bbqmis.mis.problem",
    "bbqmis.mis.qaoa",
    "bbqmis.solver",
    # clustagg
    "clustagg",
    "clustagg.aggregate",
    "clustagg.baseline",
    "clustagg.cli",
    "clustagg.clusterers",
    "clustagg.data",
    "clustagg.errors",
    "clustagg.hq",
    "clustagg.loop",
    "clustagg.plotting",
    "clustagg.reference",
    "clustagg.result",
    "clustagg.rounds",
    "clustagg.runner",
    "clustagg.silhouette",
    "clustagg.solvers",
    "clustagg.steps",
    "clustagg.timeline",
    # vqpu and the MPI service
    "backends.null",
    "backends.vqpu.server.accounting",
    "backends.vqpu.api",
    "backends.vqpu.client",
    "backends.vqpu.server.executor",
    "backends.vqpu.server.fastpath",
    "backends.vqpu.server.gate",
    "backends.vqpu.server.limits",
    "backends.vqpu.server.metrics",
    "backends.vqpu.server.policies",
    "backends.vqpu.server.report",
    "backends.vqpu.server.sandbox",
    "backends.vqpu.server.app",
    "backends.vqpu.server.service",
    "backends.vqpu.server.store",
    "backends.vqpu.server.tokens",
    "backends.vqpu.wire",
    "backends.mpi_service",
    "backends.mpi_service.client",
    "backends.mpi_service.names",
    "backends.mpi_service.protocol",
    "backends.mpi_service.service",
]

#: A numpydoc ``Examples`` heading followed, somewhere in its section, by a doctest prompt.
EXAMPLES = re.compile(r"^Examples\n-{8,}\n(?:(?!^\w[^\n]*\n-{3,}\n).)*?^\s*>>> ", re.M | re.S)


def public_methods(cls: type) -> Iterator[tuple[str, object]]:
    """The public functions ``cls`` defines itself (plain, class and static methods)."""
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        function = member.__func__ if isinstance(member, classmethod | staticmethod) else member
        if inspect.isfunction(function):
            yield f"{cls.__qualname__}.{name}", function


def documented_objects() -> Iterator[tuple[str, object]]:
    """``(qualified name, object)`` of every public function, class and method to check."""
    seen: set[int] = set()
    for module_name in COVERED_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or id(obj) in seen:
                continue
            if obj.__module__ not in COVERED_MODULES:
                continue
            seen.add(id(obj))
            yield f"{obj.__module__}.{obj.__qualname__}", obj
            if inspect.isclass(obj):
                for qualname, method in public_methods(obj):
                    yield f"{obj.__module__}.{qualname}", method


def has_example(obj: object) -> bool:
    """Whether ``obj``'s docstring has an ``Examples`` section holding a ``>>>`` line."""
    return EXAMPLES.search(inspect.getdoc(obj) or "") is not None


def test_pattern_needs_a_prompt_inside_the_examples_section():
    def with_prompt():
        """Do it.

        Examples
        --------
        >>> 1 + 1
        2
        """

    def prompt_elsewhere():
        """Do it.

        Examples
        --------
        See the tutorial.

        Notes
        -----
        >>> 1 + 1
        2
        """

    def no_section():
        """Do it.

        >>> 1 + 1
        2
        """

    assert has_example(with_prompt)
    assert not has_example(prompt_elsewhere)
    assert not has_example(no_section)


def test_covered_modules_exist_and_declare_all():
    for module_name in COVERED_MODULES:
        assert hasattr(importlib.import_module(module_name), "__all__"), module_name


@pytest.mark.timeout(120)
def test_every_public_name_has_a_doctest_example():
    checked = list(documented_objects())
    missing = [name for name, obj in checked if not has_example(obj)]
    assert checked
    assert not missing, f"{len(missing)} public names lack an Examples section with >>>:\n" + "\n".join(
        missing
    )
