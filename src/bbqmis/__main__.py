"""``python -m bbqmis``: see :mod:`bbqmis.cli`."""

import sys

from .cli import main

sys.exit(main())
