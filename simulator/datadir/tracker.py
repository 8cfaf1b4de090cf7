"""What changed since the last record: serve --data-dir writes only that, as operations on the kept document.

The kept document (``Simulator.export_kept_state``) is JSON; a change record lists operations on it, each
``[path, value]`` (set) or ``[path]`` (remove), a path being the keys down to the value. Loading applies them,
in order, to the document the base and the earlier records made (``log_applier``). Operations are idempotent, so a
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

from typing import Any

from simulator.core import Simulator, encode_capture
from simulator.datadir.kept_base import EvaluationBytes, shed_written
from simulator.datadir.signatures import PRIMITIVES, signature
from simulator.datadir.voter_views import Views
from simulator.datadir.watchers import (
    APPEND_ONLY_STORE_FIELDS,
    REPLACED_STORE_FIELDS,
    UNSEEN,
    Entries,
    FieldWatch,
    Op,
    OrgWatch,
    Whole,
)
from simulator.state import codec
from simulator.state.store import Organization, Store
from simulator.state.tables import EVERY_HANDED, ActivityTable, TrackedDict, WatchedDict, handing

TRACKED_STORE_TABLES = ("fingerprints", "evaluations")  # keyed by activity: too large to compare at every change
KEYED_STORE_FIELDS = ("orgs", "activities", *TRACKED_STORE_TABLES)
_NOT_SMALL = frozenset((*KEYED_STORE_FIELDS, *Store.TRANSIENT))  # the store's fields FieldWatch does not look at
_SMALL_FIELDS: dict[tuple[str, ...], tuple[str, ...]] = {}  # the store's fields -> those FieldWatch looks at


class ChangeTracker:
    """``collect()``: the change record since the last call (None: nothing changed), or the whole document when
    the store was replaced; ``prime()`` takes the current state as written (after loading it)."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.memo = codec.SettledMemo()  # a whole document (compaction, stop) reuses the last one's settled activities
        self.evaluations = EvaluationBytes()  # a fold (kept_base) reuses the evaluations the records wrote
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
        self.small = FieldWatch(APPEND_ONLY_STORE_FIELDS, REPLACED_STORE_FIELDS)
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

    def collect(self) -> dict[str, Any] | None:
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
            if activity.settled:  # never changes again: written this once, then held in that form (lazy_activity)
                self.live.pop(activity_id, None)
                noted = codec.inexact()
                encoded = codec.encode(activity)
                exact = codec.inexact() == noted
                named = self.views.votes_of(encoded, ops)
                ops.append([["store", "activities", activity_id], named])
                if exact:
                    shed_written(activity, named, self.views)
                continue
            # still changing (waiting for votes, polls or seconds): compared by signature at each look after it was
            # handed out, encoded only when that differs (30 µs where encoding and comparing the JSON took 45-76)
            mark = signature(activity)
            if activity_id in written or self.live.get(activity_id, UNSEEN) != mark:
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
                    if name == "evaluations":  # kept for the next fold, as bytes (kept_base)
                        self.evaluations.keep(key, entry, encoded)
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
