"""``python -m bbqmis``: see :mod:`bbqmis.coloring.cli`."""

import sys

from .coloring.cli import main

sys.exit(main())
