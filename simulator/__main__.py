"""``python -m simulator`` is the ``wallet-simulator`` command."""

import sys

from simulator.cli import main

sys.exit(main())
