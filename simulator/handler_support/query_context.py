"""What a query handler gets (``context`` beside it: what an activity handler gets)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from simulator.clock import Source
from simulator.state.store import Organization, Store

if TYPE_CHECKING:
    from simulator.auth import Principal

T = TypeVar("T")


@dataclass
class QueryContext:
    store: Store
    org: Organization  # whose data is read: the target, or the caller's sub-organization
    principal: Principal
    now_ms: int
    target: Organization  # the organization the body names
    source: Source
    notify: Callable[[Any, str], None] | None = None  # told of activity events (webhooks)

    def find(self, table: Mapping[str, T], item_id: str, what: str) -> T:
        return self.org.find(table, item_id, what)
