"""The ``backends.vqpu`` package: its docstring lists its modules, and importing it stays light."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

from vqpu_helpers import subprocess_env

import backends.vqpu

PACKAGE = pathlib.Path(backends.vqpu.__file__).parent


def test_docstring_lists_every_module():
    listed = set(re.findall(r":mod:`backends\.vqpu\.(\w+)`", backends.vqpu.__doc__))
    modules = {path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("__")}
    assert listed == modules | {"server"}


def test_importing_the_package_loads_neither_server_nor_client_libraries():
    heavy = ("fastapi", "uvicorn", "httpx", "matplotlib", "pydantic")
    code = f"import sys, backends.vqpu; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(),
        check=True,
    )
    assert result.stdout.strip() == "[]"
