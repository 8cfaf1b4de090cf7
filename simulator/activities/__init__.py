"""Activity handlers, one module per family; the operation catalogue (``simulator/operations/catalogue.py``)
names each handler (``"wallets:create_wallet"``) next to its URL segment and schema.

A handler takes the :class:`~simulator.handler_support.context.Context` and the validated
``parameters`` and returns the body that goes under the activity's result key. A preparer
(optional) takes the seeded source and the parameters and does costly, state-free work before
the store lock is taken; the handler finds its result in ``ctx.prepared``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from simulator.clock import Source
from simulator.handler_support.context import Context
from simulator.wire import Json

Handler = Callable[[Context, Json], Json]
Preparer = Callable[[Source, Json], Any]
