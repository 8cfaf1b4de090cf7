"""Activities by id that also keep their list order (created time, then id), so that a page of the
newest ones, or the page next to a cursor, is found without sorting the whole organization."""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator
from typing import Any

from simulator.state.activity import Activity

OrderKey = tuple[int, str]


class ActivityIds(list[str]):
    """An organization's activities as an exported document names them, until the store's are read
    (state.codec.resolve_activities)."""


def order_key(activity: Activity) -> OrderKey:
    return activity.created_ms, activity.activity_id


class ActivityTable(dict[str, Activity]):
    """A dict of activities by id, plus their order, oldest first.

    Writes through the dict's usual methods keep the order; a write that is not a plain append
    (an activity created at an earlier simulated time, a removal that is not the oldest) only
    marks it stale, and the next read sorts once.
    """

    __slots__ = ("_order", "_start", "_stale", "changed", "handed")

    def __init__(self, items: Iterable[tuple[str, Activity]] | dict[str, Activity] = ()) -> None:
        super().__init__(items)
        self._order: list[Activity] = []
        self._start = 0  # entries before it were removed from the front (the oldest evicted first)
        self._stale = bool(self)  # built from items: sorted on the first read
        # serve --data-dir sets a set here: the ids written or removed since it last looked (None: nobody asks)
        self.changed: set[str] | None = None
        # and, in a HandingActivityTable, the set the ids of the activities it handed out go to (shared by the
        # store's table and its organizations')
        self.handed: set[str] | None = None

    # writes ---------------------------------------------------------------------------------
    def __setitem__(self, key: str, activity: Activity) -> None:
        previous = dict.get(self, key)  # dict's own: a HandingActivityTable would note it handed out
        super().__setitem__(key, activity)
        if self.changed is not None:
            self.changed.add(key)
        if previous is not None or self._stale:
            self._stale = self._stale or previous is not activity
            return
        if self._start < len(self._order) and order_key(activity) < order_key(self._order[-1]):
            insort(self._order, activity, lo=self._start, key=order_key)
        else:
            self._order.append(activity)

    def __delitem__(self, key: str) -> None:
        activity = dict.__getitem__(self, key)
        super().__delitem__(key)
        self._forget(activity)

    def pop(self, key: str, *default: Any) -> Any:
        if key not in self:
            return super().pop(key, *default)
        activity = super().pop(key)
        self._forget(activity)
        return activity

    def _forget(self, activity: Activity) -> None:
        if self.changed is not None:
            self.changed.add(activity.activity_id)
        self._forget_order(activity)

    def _forget_order(self, activity: Activity) -> None:
        if self._stale:
            return
        order, start = self._order, self._start
        if start < len(order) and order[start] is activity:  # the oldest: what retention evicts
            self._start += 1
            if self._start > 1024 and self._start * 2 > len(order):
                del order[: self._start]
                self._start = 0
            return
        at = bisect_left(order, order_key(activity), lo=start, key=order_key)
        if at < len(order) and order[at] is activity:
            del order[at]
        else:
            self._stale = True

    def popitem(self) -> tuple[str, Activity]:
        self._stale = True
        key, activity = super().popitem()
        if self.changed is not None:
            self.changed.add(key)
        return key, activity

    def clear(self) -> None:
        if self.changed is not None:
            self.changed.update(self)
        super().clear()
        self._order, self._start, self._stale = [], 0, False

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self._stale = True
        if self.changed is not None:
            self.changed.update(self)  # rare (a decoded document): every id, to be sure

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __ior__(self, other: Any) -> ActivityTable:  # type: ignore[override,misc]
        self.update(other)
        return self

    # reads ----------------------------------------------------------------------------------
    def ordered(self) -> list[Activity]:
        """Every activity, oldest first (the list itself: do not change it)."""
        return self._ordered()

    def _ordered(self) -> list[Activity]:
        if self._stale:
            self._order = sorted(dict.values(self), key=order_key)
            self._start, self._stale = 0, False
        elif self._start:
            del self._order[: self._start]
            self._start = 0
        return self._order

    def swap(self, old: Activity, new: Activity) -> None:
        """Put ``new`` (a copy of ``old``: same id and time) where ``old`` is, in the dict and the order."""
        dict.__setitem__(self, old.activity_id, new)
        if self.changed is not None:
            self.changed.add(old.activity_id)
        if self._stale:
            return
        at = bisect_left(self._order, order_key(old), lo=self._start, key=order_key)
        if at < len(self._order) and self._order[at] is old:
            self._order[at] = new
        else:
            self._stale = True

    def adopt_order(self, order: list[Activity] | None) -> None:
        """Take ``order`` (these activities, oldest first) as the order; None: sort on the next read."""
        self._order, self._start, self._stale = order or [], 0, order is None and bool(self)

    def oldest(self) -> Iterator[Activity]:
        """Oldest first, lazily (eviction reads only the front; it changes none, it takes finished ones out)."""
        return iter(self._ordered())

    def position(self, activity: Activity) -> int:
        """Where ``activity`` (one of these) is in ``ordered()``."""
        order = self._ordered()
        return bisect_left(order, order_key(activity), key=order_key)

    def copy(self) -> ActivityTable:
        """The same activities and order (the copy tracks no changes)."""
        made = ActivityTable()
        dict.update(made, self)
        made._order, made._start, made._stale = self._order[self._start :], 0, self._stale
        return made

    def __reduce__(self) -> Any:
        return ActivityTable, (dict(self),)

    def note_handed(self, activity_ids: Iterable[str]) -> None:
        """Note activities changed where no read of this table handed them out (retention's compaction)."""
        if self.handed is not None:
            self.handed.update(activity_ids)


EVERY_HANDED = "*"  # in ``handed``: every activity was handed out (no activity id is "*")


class HandingActivityTable(ActivityTable):
    """An ``ActivityTable`` that notes in ``handed`` the ids of the activities it hands out (serve --data-dir: an
    activity still changing, waiting for votes, polls or seconds, changes only after it is fetched, so the change
    tracker compares only those fetched since it last looked, not every waiting one at every look). Handing out
    all (``values()``, ``items()``, ``ordered()``, a copy) notes ``EVERY_HANDED``. Retention's eviction reads the
    oldest unnoted: it changes none. The tracker makes the store's and the organizations' tables this class in
    place (the same layout) and gives them one set."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Activity:
        activity = dict.__getitem__(self, key)
        self.handed.add(key)  # type: ignore[union-attr]
        return activity

    def get(self, key: str, default: Any = None) -> Any:
        activity = dict.get(self, key, default)
        if activity is not default:
            self.handed.add(key)  # type: ignore[union-attr]
        return activity

    def values(self) -> Any:
        self.handed.add(EVERY_HANDED)  # type: ignore[union-attr]
        return dict.values(self)

    def items(self) -> Any:
        self.handed.add(EVERY_HANDED)  # type: ignore[union-attr]
        return dict.items(self)

    def ordered(self) -> list[Activity]:
        self.handed.add(EVERY_HANDED)  # type: ignore[union-attr]
        return self._ordered()

    def copy(self) -> ActivityTable:
        self.handed.add(EVERY_HANDED)  # type: ignore[union-attr]
        return super().copy()


def handing(table: ActivityTable, handed: set[str]) -> None:
    """``table`` noting the activities it hands out in ``handed`` from now on (``HandingActivityTable``)."""
    table.handed = handed
    if type(table) is ActivityTable:
        table.__class__ = HandingActivityTable


class TrackedDict(dict[Any, Any]):
    """A dict that notes the keys written or removed in ``changed`` (serve --data-dir's large tables keyed by
    activity: fingerprints, evaluations). Copies are plain dicts."""

    __slots__ = ("changed",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.changed: set[Any] = set()

    # dict's own methods named, not super()'s: these run at every fetch and store of a request under
    # serve --data-dir, and making the super object cost more than the noting (valgrind)
    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self.changed.add(key)

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        self.changed.add(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            self.changed.add(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[Any, Any]:
        key, value = super().popitem()
        self.changed.add(key)
        return key, value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self.changed.add(key)
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self.changed.update(self)

    def clear(self) -> None:
        self.changed.update(self)
        super().clear()

    def __ior__(self, other: Any) -> TrackedDict:  # type: ignore[misc]
        self.update(other)
        return self

    def __reduce__(self) -> Any:
        return dict, (dict(self),)


_ABSENT = object()


class WrittenDict(TrackedDict):
    """A ``TrackedDict`` read as a ``WatchedDict`` is (``drain``), for a table whose entries are only ever replaced,
    never changed in place (the store's credential index: a new list for a handle at each change): its writes are
    all that can change it, so what it hands out is not noted."""

    __slots__ = ("every",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.every = False

    def drain(self) -> set[Any] | None:
        """The keys noted since the last call (None: every key)."""
        changed, every = self.changed, self.every
        self.changed, self.every = set(), False
        return None if every else changed


class WatchedDict(WrittenDict):
    """A ``WrittenDict`` that also notes the keys whose values it handed out (serve --data-dir's organizations
    and their tables of records: a change to a record starts by fetching it, so only those fetched since the
    last record can have changed). Handing out every value (``values()``, ``items()``, a copy, ``dict(d)``,
    ``{**d}``, ``d | e``) notes them all. A lookup that only reads is the state's to answer
    (``simulator.state.lookups``), with facts rather than records."""

    __slots__ = ()

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        self.changed.add(key)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        value = dict.get(self, key, _ABSENT)
        if value is _ABSENT:
            return default
        self.changed.add(key)
        return value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self.changed.add(key)  # hands out the value already there too
        return super().setdefault(key, default)

    def values(self) -> Any:
        self.every = True
        return super().values()

    def items(self) -> Any:
        self.every = True
        return super().items()

    def __iter__(self) -> Any:  # defined, so that dict(d), {**d} and e.update(d) fetch through __getitem__
        return dict.__iter__(self)

    def copy(self) -> dict[Any, Any]:
        self.every = True
        return dict(dict.items(self))

    def __or__(self, other: Any) -> Any:
        self.every = True
        return dict.__or__(dict(dict.items(self)), other)


def read_only_get(table: dict[Any, Any], key: Any, default: Any = None) -> Any:
    """Deprecated (the simulator no longer calls it): ``dict.get(table, key, default)``, which a ``WatchedDict``
    does not note. Kept for code written against it."""
    return dict.get(table, key, default)


def values_to_read(table: dict[Any, Any]) -> Any:
    """Deprecated (the simulator no longer calls it): ``dict.values(table)``, which a ``WatchedDict`` does not
    note as handed out. Kept for code written against it."""
    return dict.values(table)
