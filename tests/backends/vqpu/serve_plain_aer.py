"""``python -m backends.vqpu`` with one more backend spec, ``plain-aer`` (see ``vqpu_helpers.plain_aer``).

The spec is registered only when this file runs as a script, so importing it (pytest's
doctest collection does) leaves the process's registry as it was.
"""

import sys

from backends.registry import BACKENDS
from backends.vqpu.cli import main

if __name__ == "__main__":
    BACKENDS["plain-aer"] = "vqpu_helpers:plain_aer"
    sys.exit(main())
