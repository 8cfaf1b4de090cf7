"""Watchers: what the change tracker last wrote of each value it follows, and the operations for what differs
since (``Table``: a dict's entries; ``Whole``: one value; ``Entries``: a list whose entries are only added or
replaced; ``AppendOnly``: a list or set only added to; ``FieldWatch``, ``OrgWatch``: the fields of the store
and of an organization, through the tables that note what was written or handed out)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

from simulator.datadir.signatures import PRIMITIVES, signature
from simulator.state import codec
from simulator.state.store import Organization
from simulator.state.tables import WatchedDict, WrittenDict

Path = list[str]
Op = list[Any]  # [path, value] or [path]
_GETTERS: dict[tuple[str, ...], Callable[[Any], tuple[Any, ...]]] = {}  # FieldWatch.fields: by the names it reads


class Table:
    """The last written signature of each entry of one dict (by key): which keys to write, which to remove."""

    def __init__(self) -> None:
        self.seen: dict[Any, Any] = {}

    def ops(self, path: Path, table: dict[Any, Any], ops: list[Op] | None) -> None:
        """Operations for the entries that changed; ``ops`` None: only note the signatures."""
        seen = self.seen
        for key, value in dict.items(table):  # dict's own: a WatchedDict would note every value handed out
            mark = signature(value)
            if key not in seen or seen[key] != mark:
                seen[key] = mark
                if ops is not None:
                    ops.append([[*path, key], codec.encode(value)])
        if len(seen) != len(table) or seen.keys() != dict.keys(table):
            for key in [k for k in seen if not dict.__contains__(table, k)]:
                del seen[key]
                if ops is not None:
                    ops.append([[*path, key]])

    def some(self, path: Path, table: dict[Any, Any], keys: set[Any], ops: list[Op] | None) -> None:
        """``ops`` for the entries of ``keys`` only (those the table noted: written, removed or handed out)."""
        seen = self.seen
        order: Iterable[Any] = keys
        new = [k for k in keys if k not in seen]
        if len(new) > 1:  # several added since the last look: written in the table's order (a list's order)
            added = set(new)
            order = [*(k for k in keys if k in seen), *(k for k in dict.keys(table) if k in added)]
        for key in order:
            if dict.__contains__(table, key):
                value = dict.__getitem__(table, key)
                mark = signature(value)
                if key not in seen or seen[key] != mark:
                    seen[key] = mark
                    if ops is not None:
                        ops.append([[*path, key], codec.encode(value)])
            elif key in seen:
                del seen[key]
                if ops is not None:
                    ops.append([[*path, key]])

    def unnoticed(self, table: dict[Any, Any]) -> list[Any]:
        """The keys whose entry differs from its last written signature (``OrgWatch.verify``)."""
        seen = self.seen
        changed = [k for k, v in dict.items(table) if k not in seen or seen[k] != signature(v)]
        return changed + [k for k in seen if not dict.__contains__(table, k)]


UNSEEN = object()


class Whole:
    """The last written signature of one value, written whole when it differs."""

    def __init__(self) -> None:
        self.mark: Any = UNSEEN

    def ops(self, path: Path, value: Any, ops: list[Op] | None, encoded: Any = None, mark: Any = UNSEEN) -> None:
        """``mark``: ``value``'s signature, when the caller has it already."""
        if mark is UNSEEN:
            mark = signature(value)
        if self.mark is UNSEEN or self.mark != mark:
            self.mark = mark
            if ops is not None:
                ops.append([path, codec.encode(value) if encoded is None else encoded])


class Entries:
    """A list whose entries are added (a scenario loaded) or which is replaced (reset, import, a snapshot
    restored), its entries never changed in place (``Simulator.credentials``, ``Simulator.rules``): compared
    by the identity of its entries, held so that none is reused, not by content (a scenario of 100
    organizations has 100 credentials: 210 µs of signatures at every look)."""

    def __init__(self) -> None:
        self.held: list[Any] | None = None
        self.source: list[Any] | None = None  # the list last written (held is a copy of it)
        self.mark: Any = UNSEEN  # FieldWatch.verify: the content's signature too

    def ops(self, path: Path, entries: list[Any], ops: list[Op] | None) -> None:
        held = self.held
        if (
            entries is self.source
            and held is not None
            and len(held) == len(entries)
            and (not held or held[-1] is entries[-1])
            and not FieldWatch.verify
        ):
            return  # the same list, nothing added (entries are added at its end): not each entry compared (100 here)
        if held is not None and len(held) == len(entries) and all(map(operator.is_, held, entries)):
            if FieldWatch.verify and signature(entries) != self.mark:
                raise AssertionError(f"{path}: an entry changed in place")
            self.source = entries  # a copy holding the same entries (a snapshot restored): the next look is quick
            return
        self.held, self.source = list(entries), entries
        self.mark = signature(entries) if FieldWatch.verify else UNSEEN
        if ops is not None:
            codec.note_inexact()  # written as they are (a scenario's credentials and rules): the record is read back
            ops.append([path, entries])


class AppendOnly:
    """A list only appended to (the store's outbox, an organization's sub-organization ids, which may also lose
    one) or a set only added to (the store's spent token ids), which grow with every OTP sent, sign-up or token
    spent over a data directory's days: written as the entries added since the last look,
    found by the count, where a signature of the whole (the fallback for other fields) cost O(all) at every look
    (2.7 ms a request with 1,000 messages sent, 51 ms with 10,000). A list replaced, shortened or whose last
    written entry is no longer in its place, and a set replaced or smaller, are written whole. Nothing takes an
    entry back or changes one in place; ``FieldWatch.verify`` checks so at every look."""

    def __init__(self) -> None:
        self.held: Any = None
        self.count = 0  # entries (a set: members) written
        self.last: Any = None  # a list's last written entry
        self.members: frozenset[Any] = frozenset()  # a set's written members
        self.mark: Any = None  # FieldWatch.verify: the signature of what was written

    def ops(self, path: Path, value: Any, ops: list[Op] | None) -> None:
        kind, count = type(value), self.count
        unchanged = value is self.held and kind in (list, set) and len(value) == count
        if unchanged and not FieldWatch.verify and (kind is set or not count or value[-1] is self.last):
            return  # as written at the last look (most looks): nothing more to find
        if (
            value is not self.held
            or kind not in (list, set)
            or len(value) < count
            or (kind is list and count and value[count - 1] is not self.last)
        ):
            self._whole(path, value, ops)
        elif kind is list:
            if FieldWatch.verify and signature(value[:count]) != self.mark:
                raise AssertionError(f"{path}: an entry changed in place")
            if ops is not None:
                ops.extend([[*path, index], codec.encode(value[index])] for index in range(count, len(value)))
            self.count, self.last = len(value), value[-1] if value else None
        else:
            if FieldWatch.verify and not self.members <= value:
                raise AssertionError(f"{path}: a member was taken out")
            if len(value) > count:  # the new members, in order (a set's encoding is sorted): O(all), in C, once
                added = sorted(value - self.members)
                if ops is not None:
                    ops.extend([[*path, "__set__", count + i], codec.encode(m)] for i, m in enumerate(added))
                self.members, self.count = frozenset(value), len(value)
        if FieldWatch.verify:
            self.mark = signature(value[: self.count] if kind is list else self.members)

    def _whole(self, path: Path, value: Any, ops: list[Op] | None) -> None:
        if ops is not None:
            ops.append([path, codec.encode(value)])
        kind = type(value)
        self.held = value
        self.count = len(value) if kind in (list, set) else 0
        self.last = value[-1] if kind is list and value else None
        self.members = frozenset(value) if kind is set else frozenset()


APPEND_ONLY_STORE_FIELDS = ("outbox", "used_tokens")
APPEND_ONLY_ORG_FIELDS = ("children",)
# the store's tables whose entries are replaced, never changed in place (Store._add_ref, _drop_ref): their writes
# are all a look compares, and what they hand out (every request's lookup of its stamp's key) is not noted
REPLACED_STORE_FIELDS = ("_credentials",)


def str_keyed(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) for k in value)


class FieldWatch:
    """The fields of one organization, or the store's own small tables. Its dicts of records (users, wallets,
    policies, ...) become ``WatchedDict``s at the first look (``replaced`` ones, ``WrittenDict``s), and a look then
    compares only the entries they noted since the last one: written, removed, or handed out (a change to a
    record starts by fetching it, as a change to an organization starts by fetching it from the store); all of a
    table's entries when it handed out every value (``values()``, ``items()``, a copy). A dict put in place of
    one, a dict with keys that are not strings, and the other fields are compared whole by signature at every
    look, together first (the fallback)."""

    verify = False  # tests: compare every entry by signature too, and raise on a change the tables did not note

    def __init__(self, append_only: Iterable[str] = (), replaced: Iterable[str] = ()) -> None:
        self.tables: dict[str, Table] = {}
        self.replaced = frozenset(replaced)  # tables whose entries are replaced, never changed in place
        self.watched: dict[str, WrittenDict] = {}  # the WatchedDicts (and WrittenDicts) set in the owner, by field
        self.wholes: dict[str, Whole] = {}
        self.wholes_mark: Any = UNSEEN
        self.appended = {name: AppendOnly() for name in append_only}  # fields only appended or added to
        # the watched table of each of the names last looked at (or UNSEEN), in their order: a look walks it beside
        # the fields, where a lookup by name for each field cost a call each (40 a request; valgrind)
        self.aligned: tuple[tuple[str, ...], list[Any]] | None = None

    def fields(self, owner: Any, names: tuple[str, ...], base: Path, ops: list[Op] | None) -> None:
        """Operations for what changed in the fields ``names`` of ``owner`` (under ``base``); ``ops`` None: only
        note the signatures."""
        getter = _GETTERS.get(names)
        if getter is None:
            getter = _GETTERS[names] = codec.fields_getter(names)
        wholes = []  # the fields written whole (not dicts): one signature each, compared together first
        tables, verify, aligned = self.tables, self.verify, self.aligned
        if aligned is None or aligned[0] is not names:
            aligned = self.aligned = (names, [self.watched.get(name, UNSEEN) for name in names])
        for name, value, watched in zip(names, getter(owner), aligned[1]):  # every field at once, in C
            if watched is value:
                if not (watched.changed or watched.every or verify):
                    continue  # nothing noted since the last look (most tables at most looks): no set made, no walk
                table = tables.get(name)
                keys = watched.drain()
                if table is not None and keys is not None and all(type(k) is str for k in keys):
                    if keys:
                        table.some([*base, name], watched, keys, ops)
                    if verify and table.unnoticed(watched):
                        raise AssertionError(f"{[*base, name]}: {table.unnoticed(watched)} unnoticed")
                    continue
            if name in self.wholes and not isinstance(value, dict):
                wholes.append((name, value))
                continue
            appended = self.appended.get(name)
            if appended is not None:
                appended.ops([*base, name], value, ops)
                continue
            self._compared(owner, name, value, [*base, name], ops)
        marks = tuple([value if type(value) in PRIMITIVES else signature(value) for _, value in wholes])
        if marks != self.wholes_mark:  # one comparison when none changed (most looks: name, root users, ...)
            self.wholes_mark = marks
            for (name, value), mark in zip(wholes, marks):
                self.wholes[name].ops([*base, name], value, ops, mark=mark)

    def _compared(self, owner: Any, name: str, value: Any, path: Path, ops: list[Op] | None) -> None:
        """``value`` compared whole (entry by entry for a dict of records), then watched if it is such a dict."""
        if str_keyed(value):
            table = self.tables.get(name)
            if table is None:  # new, or written whole until now (a key that was not a string)
                table = self.tables[name] = Table()
                if self.wholes.pop(name, None) is not None and ops is not None:
                    ops.append([path, codec.encode(value)])
                    ops = None
            table.ops(path, value, ops)
            kind = WrittenDict if name in self.replaced else WatchedDict
            if type(value) is dict:
                value = kind(dict.items(value))
                setattr(owner, name, value)
            if type(value) is kind:
                value.drain()
                self.watched[name] = value
                self.aligned = None
            return
        if self.watched.pop(name, None) is not None:
            self.aligned = None
        if self.tables.pop(name, None) is not None:
            self.wholes[name] = Whole()
        self.wholes.setdefault(name, Whole()).ops(path, value, ops)


class OrgWatch(FieldWatch):
    """One organization's fields (its activity ids apart: ``ChangeTracker._org_activities``); its sub-organizations'
    ids only added to or taken from (a web app's parent gains one at every sign-up), as ``AppendOnly``."""

    def __init__(self) -> None:
        super().__init__(APPEND_ONLY_ORG_FIELDS)

    def ops(self, org: Organization, ops: list[Op] | None) -> None:
        names = _ORG_FIELDS.get(type(org))
        if names is None:
            names = _ORG_FIELDS[type(org)] = tuple(name for name in codec.field_names(org) if name != "activities")
        self.fields(org, names, ["store", "orgs", org.organization_id], ops)


_ORG_FIELDS: dict[type, tuple[str, ...]] = {}
