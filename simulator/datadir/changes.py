"""What changed since the last record: serve --data-dir writes only that, as operations on the kept document.

The kept document (``Simulator.export_kept_state``) is JSON; a change record lists operations on it, each
``[path, value]`` (set) or ``[path]`` (remove), a path being the keys down to the value. Loading applies them,
in order, to the document the base and the earlier records made (``apply``). Operations are idempotent, so a
record applied over a state that already holds some of its changes gives the same document.

Finding what changed costs what changed, not what the state holds:
- tables keyed by activity (the store's and each organization's activities, fingerprints, evaluations) note the
  keys written since the tracker last looked (``ActivityTable.changed``, ``TrackedDict``); activities still
  changing (waiting, not yet compacted) are compared by signature at each look, encoded when it differs;
- an organization's dicts of records (users, wallets, policies, ...), and the store's own dicts (its credential
  index, OTP codes, ...), note the keys written, removed or handed out since the tracker last looked
  (``WatchedDict``, set by ``FieldWatch``): only those entries are compared, by a cheap signature of their fields
  (``signature``), and encoded when that differs; every entry when the table handed out all its values; every
  other value (a table put in place of a watched one, a field that is not a dict) is compared by signature at
  each look, all of one organization's (or the store's) together first;
- the simulator's credentials and rules (lists only added to or replaced) by the identity of their entries;
- the random source is written as the draws made since its last base (``Source.checkpoint``), not as its
  625-word state; snapshots by identity (a snapshot is never changed, only replaced).
A store replaced as a whole (reset, ``PUT /_simulator/state``, a snapshot restored) is written whole.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
import random
from collections.abc import Callable, Iterable
from typing import Any

from simulator.clock import replay_draws
from simulator.core import Simulator, encode_capture
from simulator.state import codec
from simulator.state.copying import changing_fields
from simulator.state.store import Organization, Store
from simulator.state.tables import EVERY_HANDED, ActivityTable, TrackedDict, WatchedDict, handing

Path = list[str]
Op = list[Any]  # [path, value] or [path]
PRIMITIVES = frozenset({str, int, float, bool, type(None), bytes})
_ALL_PRIMITIVE = PRIMITIVES.issuperset  # of an iterable of types: no set made, stops at the first other
TRACKED_STORE_TABLES = ("fingerprints", "evaluations")  # keyed by activity: too large to compare at every change
KEYED_STORE_FIELDS = ("orgs", "activities", *TRACKED_STORE_TABLES)
_NOT_SMALL = frozenset((*KEYED_STORE_FIELDS, *Store.TRANSIENT))  # the store's fields FieldWatch does not look at


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


_UNSEEN = object()


class Whole:
    """The last written signature of one value, written whole when it differs."""

    def __init__(self) -> None:
        self.mark: Any = _UNSEEN

    def ops(self, path: Path, value: Any, ops: list[Op] | None, encoded: Any = None, mark: Any = _UNSEEN) -> None:
        """``mark``: ``value``'s signature, when the caller has it already."""
        if mark is _UNSEEN:
            mark = signature(value)
        if self.mark is _UNSEEN or self.mark != mark:
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
        self.mark: Any = _UNSEEN  # FieldWatch.verify: the content's signature too

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
        self.mark = signature(entries) if FieldWatch.verify else _UNSEEN
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


def str_keyed(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) for k in value)


class FieldWatch:
    """The fields of one organization, or the store's own small tables. Its dicts of records (users, wallets,
    policies, the store's credential index, ...) become ``WatchedDict``s at the first look, and a look then
    compares only the entries they noted since the last one: written, removed, or handed out (a change to a
    record starts by fetching it, as a change to an organization starts by fetching it from the store); all of a
    table's entries when it handed out every value (``values()``, ``items()``, a copy). A dict put in place of
    one, a dict with keys that are not strings, and the other fields are compared whole by signature at every
    look, together first (the fallback)."""

    verify = False  # tests: compare every entry by signature too, and raise on a change the tables did not note

    def __init__(self, append_only: Iterable[str] = ()) -> None:
        self.tables: dict[str, Table] = {}
        self.watched: dict[str, WatchedDict] = {}  # the WatchedDicts set in the owner, by field
        self.wholes: dict[str, Whole] = {}
        self.wholes_mark: Any = _UNSEEN
        self.appended = {name: AppendOnly() for name in append_only}  # fields only appended or added to
        # the watched table of each of the names last looked at (or _UNSEEN), in their order: a look walks it beside
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
            aligned = self.aligned = (names, [self.watched.get(name, _UNSEEN) for name in names])
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
            if type(value) is dict:
                value = WatchedDict(dict.items(value))
                setattr(owner, name, value)
            if type(value) is WatchedDict:
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
_SMALL_FIELDS: dict[tuple[str, ...], tuple[str, ...]] = {}  # the store's fields -> those FieldWatch looks at


class Views:
    """Voters as activities show them (``Vote.user``, about 1.5 KB each, one shared dict per user state) written
    once each under ``views`` and named in the votes (``{"__view__": name}``): half of what an activity
    takes on disk, and of what a start reads."""

    def __init__(self) -> None:
        self.names: dict[int, tuple[Any, str]] = {}  # id of a shared view -> (the view, kept alive; its name)

    def votes_of(self, encoded: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
        """``encoded`` (an activity) with its voters named, the new ones written by ``ops`` (a copy: the encoding
        may be shared with a memo)."""
        votes = encoded.get("votes")
        if not votes:
            return encoded
        named = []
        for vote in votes:
            user = vote.get("user") if isinstance(vote, dict) else None
            if not isinstance(user, dict):
                named.append(vote)
                continue
            known = self.names.get(id(user))
            if known is None or known[0] is not user:
                # named by content, so that names never collide with those of an earlier run or a base
                name = hashlib.sha256(json.dumps(user, sort_keys=True).encode()).hexdigest()[:24]
                known = self.names[id(user)] = (user, name)
                codec.note_inexact()  # wire JSON written as it is: the record is read back
                ops.append([["views", name], user])
            named.append({**vote, "user": {VIEW: known[1]}})
        return {**encoded, "votes": named}

    def document(self, document: dict[str, Any]) -> dict[str, Any]:
        """A whole kept document with its activities' voters named, and its ``views``."""
        self.names = {}
        ops: list[Op] = []
        store = document["store"]
        activities = {k: self.votes_of(a, ops) for k, a in store["activities"].items()}
        return {**document, "store": {**store, "activities": activities}, "views": {op[0][1]: op[1] for op in ops}}


VIEW = "__view__"


def resolve_views(document: dict[str, Any]) -> None:
    """The voters named in the votes back in them (one shared dict each), ``views`` removed."""
    views = document.pop("views", None)
    if not views:
        return
    for activity in document["store"]["activities"].values():
        for vote in activity.get("votes") or ():
            user = vote.get("user") if isinstance(vote, dict) else None
            if isinstance(user, dict) and VIEW in user:
                vote["user"] = views[user[VIEW]]


class ChangeTracker:
    """``record()``: the operations since the last call (None: nothing changed), or the whole document when
    the store was replaced; ``prime()`` takes the current state as written (after loading it)."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.memo = codec.SettledMemo()  # a whole document (compaction, stop) reuses the last one's settled activities
        self.views = Views()
        # the ids the store's and the organizations' activity tables handed out since the last look: one set for the
        # tracker's life (a table made a HandingActivityTable keeps noting into it), emptied by every look and prime
        self.handed: set[str] = set()
        self._forget()

    def _forget(self) -> None:
        self.store: Store | None = None
        self.orgs: dict[str, OrgWatch] = {}
        self.org_tables: dict[str, ActivityTable] = {}
        # the store's fields beyond its keyed tables (its credential index, OTP codes, outbox, ...)
        self.small = FieldWatch(APPEND_ONLY_STORE_FIELDS)
        # made here, once: a setdefault(name, Whole()) at every look made and threw away five of them a request
        self.tops = {"clock": Whole(), "seed": Whole(), "nextEvent": Whole()}
        self.entries = {"credentials": Entries(), "rules": Entries()}
        self.live: dict[str, Any] = {}  # activities still changing: id -> the signature last written
        self.snapshots: dict[str, object] = {}
        self.source_base: Any = None
        self.source_draws: Any = None
        self.source_position = 0
        self.primed_base: Any = None  # the source's base when the whole document was taken
        self.hooks_done = 0  # the webhook deliveries before it are settled and written
        self.hooks_marks: list[Any] = []  # the signatures of those written after it
        self.hooks_log: Any = None  # the delivery log's list as last looked at

    def full(self) -> dict[str, Any]:
        """The whole kept document, and the tracker primed with it (call under the simulator's lock)."""
        with self.sim.lock:
            document = self.views.document(self.sim.export_kept_state(self.memo))
            self.prime()
        return document

    def prime(self) -> None:
        """Take the current state as written: note every signature, start tracking the store's tables."""
        with self.sim.lock:
            self._forget()
            self._look(prime=True)

    def record(self) -> dict[str, Any] | None:
        """The change record since the last look, or ``{"state": ...}`` when the store was replaced."""
        with self.sim.lock:
            if self.sim.store is not self.store:
                return {"state": self.full()}
            ops, source = self._look(prime=False)
        if not ops and not source:
            return None
        return {"ops": ops, **({"source": source} if source else {})}

    # the look ---------------------------------------------------------------------------------
    def _look(self, prime: bool) -> tuple[list[Op], dict[str, Any] | None]:
        """The operations since the last look; ``prime``: none, only note the state as it is."""
        ops: list[Op] = []
        out = None if prime else ops
        store = self.store = self.sim.store
        self._activities(store, out)
        self._tracked_tables(store, out)
        for org_id, org in self._orgs_to_look_at(store):
            watch = self.orgs.get(org_id)
            if watch is None:
                watch = self.orgs[org_id] = OrgWatch()
                if out is not None:
                    out.append([["store", "orgs", org_id], codec.encode(org)])
                watch.ops(org, None)
                self._org_activities(org, None)
                continue
            watch.ops(org, out)
            self._org_activities(org, out)
        # Every organization of the store is watched by now (a new one was noted when added): the same count
        # means none was removed, and the walk over them all (100 on the bench's scenario: 10 µs) is skipped
        if len(self.orgs) != len(store.orgs) or FieldWatch.verify:
            for org_id in [o for o in self.orgs if not dict.__contains__(store.orgs, o)]:
                del self.orgs[org_id]
                self.org_tables.pop(org_id, None)
                ops.append([["store", "orgs", org_id]])
        held = tuple(vars(store))
        small = _SMALL_FIELDS.get(held)
        if small is None:  # the names picked once per layout of the store (a comprehension at every look)
            small = _SMALL_FIELDS[held] = tuple([name for name in held if name not in _NOT_SMALL])
        self.small.fields(store, small, ["store"], out)
        self._tops(out)
        self._webhooks(out)
        source = self._source()
        if prime:
            self.primed_base = self.source_base
            self.source_base = None  # the first record after a whole document names the source's base
            return [], None
        return ops, source

    def _orgs_to_look_at(self, store: Store) -> list[tuple[str, Organization]]:
        """The organizations fetched from the store since the last look (every one when it cannot tell)."""
        orgs = store.orgs
        if not isinstance(orgs, WatchedDict):
            orgs = store.orgs = WatchedDict(orgs)
            touched = None
        else:
            touched = orgs.drain()
        if touched is None or len(touched) >= len(orgs) or FieldWatch.verify:
            return list(dict.items(orgs))
        return [(k, dict.__getitem__(orgs, k)) for k in touched if dict.__contains__(orgs, k)]

    def _activities(self, store: Store, ops: list[Op] | None) -> None:
        table = store.activities
        handed = self.handed
        if ops is None or table.changed is None:  # priming, or a table not tracked before (written whole)
            if ops is not None:
                encoded = {k: self.views.votes_of(codec.encode(a), ops) for k, a in dict.items(table)}
                ops.append([["store", "activities"], encoded])
            table.changed = set()
            handing(table, handed)
            handed.clear()
            self.live = {k: signature(a) for k, a in dict.items(table) if not a.settled}
            return
        written, table.changed = table.changed, set()
        # an activity still changing changes only once it is fetched (HandingActivityTable): those handed out since
        # the last look are compared, not every one waiting (30 µs each, at every look)
        if EVERY_HANDED in handed or FieldWatch.verify:
            looked_at = written | self.live.keys()
        else:
            live = self.live
            looked_at = written.union([k for k in handed if k in live]) if handed else written  # O(handed)
        if FieldWatch.verify and EVERY_HANDED not in handed:
            for activity_id in self.live.keys() - handed - written:
                activity = dict.get(table, activity_id)
                if activity is not None and self.live[activity_id] != signature(activity):
                    raise AssertionError(f"activity {activity_id} changed without being handed out by its table")
        handed.clear()
        for activity_id in looked_at:
            activity = dict.get(table, activity_id)
            if activity is None:
                self.live.pop(activity_id, None)
                ops.append([["store", "activities", activity_id]])
                continue
            if activity.settled:  # never changes again: written this once, its encoding kept for the next compaction
                self.live.pop(activity_id, None)
                encoded = codec.encode(activity)
                self.memo.keep(activity, encoded)
                ops.append([["store", "activities", activity_id], self.views.votes_of(encoded, ops)])
                continue
            # still changing (waiting for votes, polls or seconds): compared by signature at each look after it was
            # handed out, encoded only when that differs (30 µs where encoding and comparing the JSON took 45-76)
            mark = signature(activity)
            if activity_id in written or self.live.get(activity_id, _UNSEEN) != mark:
                self.live[activity_id] = mark
                ops.append([["store", "activities", activity_id], self.views.votes_of(codec.encode(activity), ops)])

    def _tracked_tables(self, store: Store, ops: list[Op] | None) -> None:
        for name in TRACKED_STORE_TABLES:
            table = getattr(store, name)
            if ops is None or not isinstance(table, TrackedDict):  # priming, or replaced: written whole, tracked
                if not isinstance(table, TrackedDict):
                    table = TrackedDict(table)
                    setattr(store, name, table)
                table.changed = set()
                if ops is not None:
                    ops.append([["store", name], codec.encode(dict(table))])
                continue
            changed, table.changed = table.changed, set()
            for key in changed:
                if key in table:
                    entry = table[key]
                    encoded = codec.encode(entry)
                    if name == "evaluations":  # kept for the next compaction, as settled activities are
                        self.memo.keep_evaluations(key, entry, encoded)
                    ops.append([["store", name, key], encoded])
                else:
                    ops.append([["store", name, key]])

    def _org_activities(self, org: Organization, ops: list[Op] | None) -> None:
        """Which activities the organization's table holds: its ids added or removed."""
        table = org.activities
        known = self.org_tables.get(org.organization_id)
        if ops is None or known is not table or table.changed is None:
            table.changed = set()
            handing(table, self.handed)
            self.org_tables[org.organization_id] = table
            if ops is not None:
                ops.append([["store", "orgs", org.organization_id, "activities"], {codec.ACTIVITY_IDS: list(table)}])
            return
        changed, table.changed = table.changed, set()
        for activity_id in changed:
            path = ["store", "orgs", org.organization_id, "activities", activity_id]
            ops.append([path, True] if activity_id in table else [path])

    def _tops(self, ops: list[Op] | None) -> None:
        sim, tops, entries = self.sim, self.tops, self.entries
        clock, seed = sim.clock.state(), sim.source.seed  # a tuple of numbers, a number: their own signatures
        if tops["clock"].mark != clock:  # compared here first: unchanged at most looks, and a call each saved
            codec.note_inexact_numbers(clock)  # written as they are
            tops["clock"].ops(["clock"], list(clock), ops, encoded=list(clock), mark=clock)
        if tops["seed"].mark != seed or type(seed) not in PRIMITIVES:
            codec.note_inexact_numbers((seed,))
            tops["seed"].ops(["seed"], seed, ops, encoded=seed)
        entries["credentials"].ops(["credentials"], sim.credentials, ops)
        entries["rules"].ops(["rules"], sim.rules, ops)
        saved = sim.saved_snapshots
        if not saved and not self.snapshots:
            return
        for name, capture in saved.items():
            if self.snapshots.get(name) is not capture:
                self.snapshots[name] = capture
                if ops is not None:
                    codec.note_inexact()  # a capture holds credentials and rules as they are
                    ops.append([["snapshots", name], encode_capture(capture)])
        for name in [n for n in self.snapshots if n not in saved]:
            del self.snapshots[name]
            if ops is not None:
                ops.append([["snapshots", name]])

    def _webhooks(self, ops: list[Op] | None) -> None:
        """The delivery log: appended to, and its entries changed until they settle (delivered, failed,
        dropped), so only the entries from the first unsettled one on are looked at."""
        hooks = self.sim.webhooks
        position, written = hooks.event_position, self.tops["nextEvent"]
        if written.mark != position:
            written.ops(["webhooks", "nextEvent"], position, ops)
        if not self.hooks_marks and hooks.log is self.hooks_log and len(hooks.log) == self.hooks_done:
            return  # every delivery written has settled and none was added (most looks): no copy of the log made
        self.hooks_log = hooks.log
        entries = hooks.log_from(self.hooks_done)
        if len(entries) < len(self.hooks_marks):  # the log was emptied since: written whole
            self.hooks_done, self.hooks_marks = 0, []
            entries = hooks.log_from(0)
            if ops is not None:
                codec.note_inexact()  # deliveries are written as they are
                ops.append([["webhooks", "deliveries"], entries])
            ops = None
        marks = []
        for offset, delivery in enumerate(entries):
            mark = signature(delivery)
            marks.append(mark)
            if ops is not None and (offset >= len(self.hooks_marks) or self.hooks_marks[offset] != mark):
                codec.note_inexact()  # deliveries are written as they are
                ops.append([["webhooks", "deliveries", self.hooks_done + offset], delivery])
        settled = 0
        while settled < len(entries) and entries[settled].get("state") != "pending":
            settled += 1
        self.hooks_done += settled
        self.hooks_marks = marks[settled:]

    def _source(self) -> dict[str, Any] | None:
        checkpoint = self.sim.source.checkpoint()
        position = checkpoint.position
        if (
            self.source_base is None
            and checkpoint.base is self.primed_base
            and checkpoint.draws is self.source_draws
            and position == self.source_position
        ):
            # nothing drawn since the whole document, which holds the source as it is: a stop rewrites nothing
            return None
        rewound = checkpoint.draws is not self.source_draws or position < self.source_position
        if checkpoint.base is not self.source_base or rewound:
            out: dict[str, Any] = {"base": codec.encode(checkpoint.base), "from": 0}
            out["draws"] = [list(d) for d in checkpoint.draws[:position]]
        elif position > self.source_position:
            out = {
                "from": self.source_position,
                "draws": [list(d) for d in checkpoint.draws[self.source_position : position]],
            }
        else:
            return None
        self.source_base, self.source_draws, self.source_position = checkpoint.base, checkpoint.draws, position
        return out


# loading ----------------------------------------------------------------------------------------
class Replay:
    """A kept document built from a base and change records, applied in order."""

    def __init__(self, document: dict[str, Any] | None) -> None:
        self.document = document
        if document is not None:
            self._defaults(document)
        self.activity_ids: dict[str, dict[str, bool]] = {}  # organizations' activity ids, as dicts while applying
        self.source_base: Any = None
        self.draws: list[list[Any]] = []

    def whole(self, document: dict[str, Any]) -> None:
        self.document, self.activity_ids, self.source_base, self.draws = document, {}, None, []
        self._defaults(document)

    @staticmethod
    def _defaults(document: dict[str, Any]) -> None:
        """What records may write into that a document of an earlier build lacks."""
        document.setdefault("views", {})
        document.setdefault("webhooks", {"deliveries": [], "nextEvent": 0})

    def apply(self, record: dict[str, Any]) -> None:
        if self.document is None:
            raise ValueError("a change record with no state before it")
        for op in record.get("ops", ()):
            path = op[0]
            if len(path) == 5 and path[:2] == ["store", "orgs"] and path[3] == "activities":
                ids = self._ids(path[2])
                if len(op) == 2:
                    ids[path[4]] = True
                else:
                    ids.pop(path[4], None)
                continue
            if path[:2] == ["store", "orgs"] and (len(path) == 3 or (len(path) == 4 and path[3] == "activities")):
                self.activity_ids.pop(path[2], None)  # the organization, or its activity ids, written whole
            parent = self.document
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, list):  # the webhook delivery log: entries changed or appended, by position
                if path[-1] == len(parent):
                    parent.append(op[1])
                else:
                    parent[path[-1]] = op[1]
            elif len(op) == 2:
                parent[path[-1]] = op[1]
            else:
                parent.pop(path[-1], None)
        source = record.get("source")
        if source:
            if "base" in source:  # always so after a whole document: draws count from this base
                self.source_base = source["base"]
                self.draws = []
            self.draws = self.draws[: source["from"]] + source["draws"]

    def _ids(self, org_id: str) -> dict[str, bool]:
        ids = self.activity_ids.get(org_id)
        if ids is None:
            held = self.document["store"]["orgs"][org_id]["activities"]  # type: ignore[index]
            ids = self.activity_ids[org_id] = dict.fromkeys(held.get(codec.ACTIVITY_IDS, ()), True)
        return ids

    def result(self) -> dict[str, Any] | None:
        document = self.document
        if document is None:
            return None
        resolve_views(document)
        for org_id, ids in self.activity_ids.items():
            document["store"]["orgs"][org_id]["activities"] = {codec.ACTIVITY_IDS: list(ids)}
        self.activity_ids = {}
        if self.source_base is not None or self.draws:
            base = codec.decode(self.source_base if self.source_base is not None else document["source"])
            generator = random.Random()
            generator.setstate(base)
            replay_draws(generator, self.draws)
            document["source"] = codec.encode(generator.getstate())
            self.source_base, self.draws = None, []
        return document
