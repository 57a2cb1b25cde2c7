"""``python -m clustagg``: see :mod:`clustagg.cli`."""

import sys

from .cli import main

sys.exit(main())
