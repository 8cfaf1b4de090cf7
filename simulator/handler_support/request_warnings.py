"""What a request is warned about without being refused: a check the service makes that the simulator
lets pass by default (an e-mail domain that cannot receive mail, simulator/model/email_address.py).

A warning is logged at once, and kept with the request under way, if any: the pipeline opens
``collected`` around each request (``pipeline.Kept``) and puts what it gathered in the request's
record, so its journal entry and the inspector's request log show it. The collection is a context
variable, so a handler deep in the model needs no parameter for it, and two requests answered on two
threads never see each other's warnings. A handler run outside a request (a wait that ends when the
clock moves) only logs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

log = logging.getLogger("simulator")

# (what the log line names the request by, the warnings found so far) of the request under way
_UNDER_WAY: ContextVar[tuple[str, list[str]] | None] = ContextVar("simulator_request_warnings", default=None)


@contextmanager
def collected(label: str) -> Iterator[list[str]]:
    """The warnings of the request ``label`` names (``submit/create_users``), gathered while it runs."""
    found: list[str] = []
    token = _UNDER_WAY.set((label, found))
    try:
        yield found
    finally:
        _UNDER_WAY.reset(token)


def warn(text: str) -> None:
    """Log ``text`` (a warning line on stderr under ``serve``), and keep it with the request under way."""
    under_way = _UNDER_WAY.get()
    if under_way is None:
        log.warning("%s", text)
        return
    label, found = under_way
    log.warning("%s: %s", label, text)
    found.append(text)
