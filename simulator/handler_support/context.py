"""What a handler gets: the store, the seeded source, the time, the organization and the caller."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from simulator.clock import Source
from simulator.errors import InvalidArgument, NotFound
from simulator.state.records import Tag, User
from simulator.state.store import Organization, Store

if TYPE_CHECKING:
    from simulator.auth import Principal

T = TypeVar("T")


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
    # what one request works out once and reads twice (the policy context, then the handler)
    memo: dict[str, Any] = field(default_factory=dict)

    def tell(self, activity: Any, event: str) -> None:
        if self.notify is not None:
            self.notify(activity, event)

    def new_id(self) -> str:
        return self.source.uuid4()

    def user(self, user_id: str) -> User:
        return self.org.user(user_id)

    def users(self, user_ids: list[str]) -> list[User]:
        return self.existing(self.org.users, user_ids, "users")

    def existing(
        self,
        table: Mapping[str, T],
        ids: list[str],
        what: str,
        error_code: str = "REQUEST_INVALID",
        where: str | None = None,
    ) -> list[T]:
        """The records of ``ids`` in ``table``, or NotFound naming every missing one."""
        missing = [i for i in ids if i not in table]
        if missing:
            place = where or f"organization {self.org.organization_id}"
            raise NotFound(f"{what} not found in {place}: {', '.join(missing)}", error_code=error_code)
        return [table[i] for i in ids]

    def tags(self, tag_ids: list[str], tag_type: str, what: str) -> list[Tag]:
        """Tags of one type (user or private key) by id, or NotFound naming the missing ones."""
        of_type = {t.tag_id: t for t in self.org.tags.values() if t.tag_type == tag_type}
        return self.existing(of_type, tag_ids, what)


def require_unique(existing: list[str], wanted: list[str], what: str) -> None:
    """Refuse names already taken in the organization, or repeated within one request."""
    taken = sorted({w for w in wanted if w in existing or wanted.count(w) > 1})
    if taken:
        raise InvalidArgument(f"{what} must be unique: {', '.join(taken)} already used")
