"""``python -m backends.vqpu`` with one more backend spec, ``plain-aer`` (see ``vqpu_helpers.plain_aer``)."""

import sys

from backends.registry import BACKENDS
from backends.vqpu.cli import main

BACKENDS["plain-aer"] = "vqpu_helpers:plain_aer"

if __name__ == "__main__":
    sys.exit(main())
