"""The service's pagination options: ``limit`` (1-100, default 10) and id cursors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from simulator.errors import InvalidArgument
from simulator.queries.context import Json

T = TypeVar("T")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100


def paginate(
    items: Sequence[T], options: Json | None, key: Callable[[T], str], default: int = DEFAULT_LIMIT
) -> list[T]:
    """The page of ``items`` (already in list order) after ``after`` or before ``before``."""
    options = options or {}
    limit = _limit(options.get("limit"), default)
    ids = [key(i) for i in items]
    after, before = options.get("after"), options.get("before")
    if after:
        start = _position(ids, after, "after") + 1
        return list(items[start : start + limit])
    if before:
        end = _position(ids, before, "before")
        return list(items[max(0, end - limit) : end])
    return list(items[:limit])


def _limit(raw: object, default: int) -> int:
    if raw in (None, ""):
        return default
    try:
        limit = int(str(raw))
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument(f"invalid pagination limit {raw!r}: expected 1 to {MAX_LIMIT}")
    return limit


def _position(ids: list[str], cursor: str, name: str) -> int:
    try:
        return ids.index(cursor)
    except ValueError:
        raise InvalidArgument(f"invalid pagination cursor {name}={cursor!r}: no such item in this list") from None
