"""The service's pagination options: ``limit`` (1-100, default 10) and id cursors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from simulator.errors import InvalidArgument
from simulator.wire import Json, decimal_digits

T = TypeVar("T")
DEFAULT_LIMIT = 10
MAX_LIMIT = 100


def paginate(
    items: Sequence[T], options: Json | None, key: Callable[[T], str], default: int = DEFAULT_LIMIT
) -> list[T]:
    """The page of ``items`` (already in list order) after ``after`` or before ``before``."""
    limit, after, before = page_options(options, default)
    if after:
        start = _position(items, key, after, "after") + 1
        return list(items[start : start + limit])
    if before:
        end = _position(items, key, before, "before")
        return list(items[max(0, end - limit) : end])
    return list(items[:limit])


def page_options(options: Json | None, default: int = DEFAULT_LIMIT) -> tuple[int, str | None, str | None]:
    """The checked limit and the cursors (``after`` wins when both are given)."""
    options = options or {}
    return _limit(options.get("limit"), default), options.get("after") or None, options.get("before") or None


def bad_cursor(name: str, cursor: str) -> InvalidArgument:
    return InvalidArgument(f"invalid pagination cursor {name}={cursor!r}: no such item in this list")


def _limit(raw: object, default: int) -> int:
    if raw in (None, ""):
        return default
    # ASCII digits, as a Go strconv parse reads them: int() alone also takes "1_0", " 5 " and "١٢"
    digits = str(raw).removeprefix("+")
    limit = int(digits) if decimal_digits(digits, 3) else 0
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgument(f"invalid pagination limit {raw!r}: expected 1 to {MAX_LIMIT}")
    return limit


def _position(items: Sequence[T], key: Callable[[T], str], cursor: str, name: str) -> int:
    """Where the cursor is, scanning only up to it."""
    for index, item in enumerate(items):
        if key(item) == cursor:
            return index
    raise bad_cursor(name, cursor)
