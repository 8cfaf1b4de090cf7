"""What the change tracker compares a value by: a signature, equal exactly when the value's content is."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from simulator.state import codec
from simulator.state.copying import changing_fields

PRIMITIVES = frozenset({str, int, float, bool, type(None), bytes})
_ALL_PRIMITIVE = PRIMITIVES.issuperset  # of an iterable of types: no set made, stops at the first other


def signature(value: Any) -> Any:
    """A value that compares equal exactly when ``value``'s content does (records, lists, dicts, sets)."""
    # one call per record, list and dict of a user (an API key, a passkey): written for the interpreter's sake,
    # the loops in C (map, zip), no set made to test the types, an empty container answered first
    kind = type(value)
    if kind in PRIMITIVES:
        return value
    if kind is list or kind is tuple:
        if not value or _ALL_PRIMITIVE(map(type, value)):
            return kind, tuple(value)
        return kind, tuple(map(signature, value))
    if isinstance(value, dict):
        if not value:
            return dict, ()
        entries = dict.values(value)  # dict's own: a WatchedDict would note every value as handed out
        if _ALL_PRIMITIVE(map(type, entries)):
            return dict, tuple(dict.items(value))
        return dict, tuple(zip(dict.keys(value), map(signature, entries)))
    if kind is set or kind is frozenset:
        return kind, frozenset(value)
    plan = _PLANS.get(kind)
    if plan is None:
        plan = _PLANS[kind] = _plan(kind) if dataclasses.is_dataclass(value) else None
    if plan is None:
        return value
    getter, changing = plan
    values = getter(value)  # every field at once, in C
    if not changing:
        return kind, values
    marks = list(values)
    for index in changing:  # only the fields whose declared type may hold a container or a record
        marks[index] = signature(marks[index])
    return kind, tuple(marks)


def _plan(kind: type) -> tuple[Callable[[Any], tuple[Any, ...]], tuple[int, ...]]:
    names = tuple(f.name for f in dataclasses.fields(kind))
    # wire JSON kept as it is (a vote's voter: one shared view per user state, never changed in place, which Views
    # names by identity too) is compared by identity first, and by content only when another object holds it
    changing = set(changing_fields(kind)) - codec.PLAIN_FIELDS.get(kind.__name__, frozenset())
    getter = codec.fields_getter(names)
    return getter, tuple(i for i, name in enumerate(names) if name in changing)


_PLANS: dict[type, Any] = {}
