"""The ground floor: importing any of its modules loads neither qiskit nor a backend."""

import subprocess
import sys

import pytest

MODULES = ["arguments", "errors", "files", "progress", "validation"]


@pytest.mark.parametrize("module", MODULES)
def test_a_helper_module_imports_without_qiskit_or_backends(module):
    code = (
        f"import sys, backends.utils.{module}; "
        "print(sorted(m for m in ('qiskit', 'backends.base', 'backends.registry') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_docstring_names_every_module():
    import backends.utils

    for module in MODULES:
        assert f":mod:`backends.utils.{module}`" in backends.utils.__doc__
