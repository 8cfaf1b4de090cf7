"""Writing a large document in pieces, giving the interpreter up between them, so that a large export (run
outside the store lock) never holds up the requests served meanwhile."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

from simulator.state import store
from simulator.state.encoding import ACTIVITY_IDS, encode, record_fields, store_fields
from simulator.state.tables import ActivityTable

_WIRE = json.JSONEncoder(separators=(",", ":"))  # what the control API's JSON responses use
_PIECE_ITEMS = 64  # containers larger than this are written member by member
_YIELD_EVERY_S = 0.001  # the longest the writer keeps the interpreter before letting others run


def iter_document(members: list[tuple[str, Any, bool]]) -> Iterator[str]:
    """A JSON object of ``(name, value, through the codec)`` members, in pieces, ending in a newline:
    the text the control API's ``jsonify`` makes of the same document, written a piece at a time."""

    def pieces() -> Iterator[str]:
        yield "{"
        for index, (name, value, through_codec) in enumerate(members):
            yield ("," if index else "") + _WIRE.encode(name) + ":"
            yield from _pieces(value) if through_codec else (_WIRE.encode(value),)
        yield "}\n"

    return _paced(pieces())


def _paced(pieces: Iterator[str]) -> Iterator[str]:
    started = time.perf_counter()
    for piece in pieces:
        yield piece
        if time.perf_counter() - started > _YIELD_EVERY_S:
            time.sleep(0)  # let a waiting request thread take the interpreter now
            started = time.perf_counter()


def _pieces(value: Any) -> Iterator[str]:
    if isinstance(value, list) and len(value) > _PIECE_ITEMS:
        yield from _batched("[", ((None, item) for item in value), "]")
        return
    members = _members(value)
    if members is None:
        yield _WIRE.encode(encode(value))
    else:
        yield from _batched("{", members, "}")


def _batched(opening: str, members: Iterable[tuple[str | None, Any]], closing: str) -> Iterator[str]:
    """Members (keyed, or list items) written a batch at a time; a large one in pieces of its own."""
    batch, started = [opening], time.perf_counter()
    for index, (key, item) in enumerate(members):
        head = ("," if index else "") + (_WIRE.encode(key) + ":" if key is not None else "")
        if _members(item) is None and not (isinstance(item, list) and len(item) > _PIECE_ITEMS):
            batch.append(head + _WIRE.encode(encode(item)))
            if len(batch) >= _PIECE_ITEMS or time.perf_counter() - started > _YIELD_EVERY_S:
                yield "".join(batch)
                batch, started = [], time.perf_counter()
            continue
        yield "".join(batch) + head
        batch = []
        yield from _pieces(item)
    batch.append(closing)
    yield "".join(batch)


def _members(value: Any) -> list[tuple[str | None, Any]] | None:
    """The members of a large object to write one by one; None: small enough to write at once."""
    if isinstance(value, store.Store):
        return [("__type__", "Store"), *store_fields(value)]
    if isinstance(value, store.Organization):
        return [("__type__", "Organization"), *record_fields(value)]
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return None
    large = len(value) > _PIECE_ITEMS or ACTIVITY_IDS in value
    if large or any(isinstance(v, (store.Store, store.Organization, ActivityTable)) for v in value.values()):
        return list(value.items())
    return None
