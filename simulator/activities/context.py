"""What a handler gets: the store, the seeded source, the time, the organization and the caller."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from simulator.clock import Source
from simulator.errors import InvalidArgument, NotFound
from simulator.state.records import User
from simulator.state.store import Organization, Store

if TYPE_CHECKING:
    from simulator.auth import Principal

Json = dict[str, Any]


@dataclass
class Context:
    store: Store
    source: Source
    now_ms: int
    org: Organization
    principal: Principal | None = None
    activity_type: str = ""
    prepared: Any = None  # what the operation's preparer computed outside the lock, if any
    notify: Callable[[Any, str], None] | None = None  # told of activity events (webhooks)

    def tell(self, activity: Any, event: str) -> None:
        if self.notify is not None:
            self.notify(activity, event)

    def new_id(self) -> str:
        return self.source.uuid4()

    def user(self, user_id: str) -> User:
        return self.org.user(user_id)

    def users(self, user_ids: list[str]) -> list[User]:
        missing = [u for u in user_ids if u not in self.org.users]
        if missing:
            raise NotFound(
                f"users not found in organization {self.org.organization_id}: {', '.join(missing)}",
                error_code="REQUEST_INVALID",
            )
        return [self.org.users[u] for u in user_ids]


def require_unique(existing: list[str], wanted: list[str], what: str) -> None:
    """Refuse names already taken in the organization, or repeated within one request."""
    taken = sorted({w for w in wanted if w in existing or wanted.count(w) > 1})
    if taken:
        raise InvalidArgument(f"{what} must be unique: {', '.join(taken)} already used")
