"""Snapshots by structural sharing: what can never change is shared, only the mutable shells are copied.

Strings, bytes, numbers, frozen records, votes, evaluations and final activities (completed,
failed or rejected: never written again) are shared between the live state and its snapshots; dicts,
lists and records that handlers change in place are copied, with shared references kept shared
(an activity is in the store's table and in its organization's). A 1,000-wallet state copies in
a few milliseconds where ``copy.deepcopy`` took tens, and a state of many finished activities
copies little more than its tables.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from simulator.state.activity import Activity
from simulator.state.tables import ActivityTable, HandingActivityTable, TrackedDict, WatchedDict, WrittenDict
from simulator.state.votes import Evaluation, Vote

T = TypeVar("T")
Memo = dict[int, Any]
_SHARED: set[type] = {str, bytes, int, float, bool, type(None), frozenset, Vote, Evaluation}


_CHANGING = -1  # memo key of the activities still changing, when copy_store knows them


def copy_store(store: Any, changing: list[Activity]) -> Any:
    """A copy of the store, knowing that every activity not in ``changing`` is final (never
    written again): those are shared, and the activity tables copy as a whole."""
    memo: Memo = {}
    for activity in changing:
        _activity(activity, memo)
    memo[_CHANGING] = changing
    return _copy(store, memo)


def _copy(value: Any, memo: Memo) -> Any:
    kind = type(value)
    if kind in _SHARED:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    copier = _COPIERS.get(kind) or _copier_of(kind)
    return copier(value, memo)


def _copier_of(kind: Any) -> Callable[[Any, Memo], Any]:
    """How values of a class not met before are copied (decided once per class)."""
    if issubclass(kind, Enum):
        copier: Callable[[Any, Memo], Any] = _same
    elif issubclass(kind, Activity):  # codec.LazyActivity: an activity as any other
        copier = _activity
    elif "__dict__" not in dir(kind):  # a slotted record of another module: copied the general way
        copier = copy.deepcopy
    elif dataclasses.is_dataclass(kind) and _is_frozen(kind):
        copier = _frozen_record
    elif dataclasses.is_dataclass(kind):
        copier = _record_copier(changing_fields(kind))
    elif kind.__module__.startswith("simulator.state."):
        copier = _record_copier(None, getattr(kind, "TRANSIENT", ()), getattr(kind, "FLAT", ()))
    else:
        copier = copy.deepcopy
    _COPIERS[kind] = copier
    return copier


def _is_frozen(kind: Any) -> bool:
    return bool(kind.__dataclass_params__.frozen)


def _same(value: Any, memo: Memo) -> Any:
    return value


def _dict(value: dict[Any, Any], memo: Memo) -> dict[Any, Any]:
    made = value.copy()
    memo[id(value)] = made
    for key, item in value.items():
        if type(item) not in _SHARED:
            made[key] = _copy(item, memo)
    return made


def _list(value: list[Any], memo: Memo) -> list[Any]:
    made = value.copy()
    memo[id(value)] = made
    for index, item in enumerate(value):
        if type(item) not in _SHARED:
            made[index] = _copy(item, memo)
    return made


def _tuple(value: tuple[Any, ...], memo: Memo) -> tuple[Any, ...]:
    items = tuple(_copy(item, memo) for item in value)
    return value if all(a is b for a, b in zip(items, value)) else items


def _set(value: set[Any], memo: Memo) -> set[Any]:
    made = set(value)  # members are hashable, hence immutable here (ids, keys)
    memo[id(value)] = made
    return made


def _activity(value: Activity, memo: Memo) -> Activity:
    if value.final:  # never written again
        return value
    made = object.__new__(Activity)
    memo[id(value)] = made
    for name in Activity.__slots__:
        setattr(made, name, _copy(getattr(value, name), memo))
    return made


def _activity_table(value: ActivityTable, memo: Memo) -> ActivityTable:
    """The table's dict and order copied whole (in C); the activities still changing are swapped
    for their copies (``copy_store`` knows which: its retention's loose ones)."""
    made = ActivityTable.copy(value)  # the table's own reads: a copy changes no activity (HandingActivityTable)
    memo[id(value)] = made
    changing = memo.get(_CHANGING)
    if changing is None:  # a table copied on its own: look at every activity
        for key, activity in dict.items(value):
            dict.__setitem__(made, key, _copy(activity, memo))
        made.adopt_order(None)
        return made
    for activity in changing:
        copied = memo.get(id(activity), activity)
        if copied is not activity and dict.get(value, activity.activity_id) is activity:
            made.swap(activity, copied)
    return made


_SCALARS = {"str", "int", "bool", "float", "bytes", "None"}


def changing_fields(kind: Any) -> tuple[str, ...]:
    """The fields whose declared type may hold something mutable (the others are shared as they are)."""
    return tuple(
        f.name for f in dataclasses.fields(kind) if not {t.strip() for t in str(f.type).split("|")} <= _SCALARS
    )


def _record_copier(
    changing: tuple[str, ...] | None, skipped: tuple[str, ...] = (), flat: tuple[str, ...] = ()
) -> Callable[[Any, Memo], Any]:
    """A copier for one class: ``changing`` the fields to look into (None: every attribute),
    ``skipped`` left out, ``flat`` tables whose values never change (copied as a whole, in C)."""

    def copy_record(value: Any, memo: Memo) -> Any:
        made = object.__new__(type(value))
        memo[id(value)] = made
        state = vars(value)
        fields = state.copy()
        for name in state if changing is None else changing:
            item = state.get(name)
            if name in flat:
                fields[name] = item.copy()
            elif type(item) not in _SHARED:
                fields[name] = _copy(item, memo)
        for name in skipped:  # settings, not state: the owner sets them on the copy
            fields.pop(name, None)
        made.__dict__ = fields
        return made

    return copy_record


def _frozen_record(value: Any, memo: Memo) -> Any:
    if all(type(v) in _SHARED for v in vars(value).values()):
        return value
    return _record_copier(None)(value, memo)


_COPIERS: dict[type, Callable[[Any, Memo], Any]] = {
    dict: _dict,
    TrackedDict: _dict,  # their copies are plain dicts (the lookup is by exact class)
    WatchedDict: _dict,
    WrittenDict: _dict,
    list: _list,
    tuple: _tuple,
    set: _set,
    Activity: _activity,
    ActivityTable: _activity_table,
    HandingActivityTable: _activity_table,  # serve --data-dir's: the copy is an ActivityTable
}
