"""Old name of :mod:`simulator.webhooks.signing` (the webhook signatures), kept as an alias:
``from simulator.events.signing import verify_delivery`` still works, and is the same function."""

import sys

from simulator.webhooks import signing

sys.modules[__name__] = signing
