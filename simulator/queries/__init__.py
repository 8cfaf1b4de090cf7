"""Query handlers, one module per family; the operation catalogue (``simulator/operations/catalogue.py``)
names each handler (``"wallets:get_wallet"``) next to its URL segment and schema.

A handler takes the QueryContext and the validated body and returns the response object.
Queries are not subject to policies: any authenticated user of an organization (or of an
ancestor) reads it all.
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json

Query = Callable[[QueryContext, Json], Json]

__all__ = ["Query", "QueryContext"]
