"""``python -m backends.vqpu``: see :mod:`backends.vqpu.cli`."""

import sys

from backends.vqpu.cli import main

sys.exit(main())
