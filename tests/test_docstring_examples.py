"""Every public function, class and method has a numpydoc ``Examples`` section with a doctest.

pytest runs those examples (``--doctest-modules`` in pyproject's addopts); this test makes sure
they exist. A module's public names are its ``__all__``; a class's public methods are the
functions it defines itself whose names do not start with ``_``. A name is checked in the
module that defines it, so a package ``__init__`` re-exporting a name from a module not yet
listed does not fail here. Every module of ``src/`` is covered unless listed in ``WITHOUT_ALL``.
"""

import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
#: Modules without ``__all__``, and why: they define no public name of their own.
WITHOUT_ALL = {
    "backends.utils": "a package docstring naming its modules",
    "backends.vqpu": "a package docstring naming its modules",
    "backends.vqpu.server": "a package docstring naming its modules",
    "bbqmis.coloring.classical": "a package docstring naming its modules",
    "bbqmis.coloring.lp": "a package docstring naming its modules",
    "bbqmis.coloring.tree": "a package docstring naming its modules",
    "bbqmis.coloring.cli": "the command line, documented by its --help",
    "bbqmis.coloring.classical.sat_worker": "the SAT phase's child process, run as a script",
}


def public_modules() -> dict[str, bool]:
    """Every module of ``src/`` but ``__main__`` and ``_private`` ones: whether it declares ``__all__``."""
    modules = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts) or ".egg-info" in str(path):
            continue
        modules[".".join(parts)] = "__all__" in path.read_text()
    return modules


#: Modules whose public names drive Slurm, MPI or a HyperQueue server: their examples would need a
#: live cluster, so tests/hpc and tests/clustagg exercise them against the emulated one instead.
NEEDS_A_CLUSTER = {
    "backends.vqpu.cli",
    "clustagg.hq_server",
    "clustagg.malleable",
    "clustagg.mpi",
    "clustagg.node_pools",  # SlurmNodes starts srun steps in a running job
    "clustagg.slurm",
    "clustagg.workflow",
}
COVERED_MODULES = [
    name for name, declared in public_modules().items() if declared and name not in NEEDS_A_CLUSTER
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


def test_only_the_listed_modules_go_without_all():
    assert {name for name, declared in public_modules().items() if not declared} == set(WITHOUT_ALL)
