"""The server subpackage: its docstring lists every module, and importing it loads no server library."""

import re
import subprocess
import sys
from pathlib import Path

import backends.vqpu.server

PACKAGE = Path(backends.vqpu.server.__file__).parent


def test_docstring_lists_every_module():
    listed = set(re.findall(r":mod:`~backends\.vqpu\.server\.(\w+)`", backends.vqpu.server.__doc__))
    modules = {path.stem for path in PACKAGE.glob("*.py") if not path.stem.startswith("__")}
    assert listed == modules


def test_importing_the_subpackage_loads_no_server_library():
    heavy = ("fastapi", "uvicorn", "starlette", "prometheus_client", "pydantic")
    code = f"import sys, backends.vqpu.server; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
