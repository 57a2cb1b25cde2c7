"""Sphinx configuration of the bbqmis documentation (Markdown pages through MyST, API from docstrings)."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

project = "bbqmis"
author = "bbqmis developers"
copyright = "bbqmis developers, Apache-2.0"  # noqa: A001 (Sphinx's name)
try:
    release = metadata.version("bbqmis")
except metadata.PackageNotFoundError:  # building from a checkout that is not installed
    release = "0.1.0"
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # an Attributes section would describe NamedTuple fields a second time

html_theme = "furo"
html_title = f"bbqmis {release}"
