"""The base written in pieces from the live state, and read back without decoding its settled activities.

A fold (the log folded into ``state.json``) used to build the whole kept document (``Simulator.export_kept_state``)
as JSON objects, then its bytes, then read them back: the state held about three times over (one fold of a 132 MB
state took the process from 500 to 1,016 MiB; issue 56). ``write`` writes the same document a piece at a time, each piece
encoded, written and let go: an organization, 256 entries of a large table, an activity. A settled activity in
its kept form (``lazy_activity.Kept``: the bytes of its encoding, as its change record wrote them) is copied as
it is; one still decoded is encoded, and turned into that form (``lazy_activity.shed``): after a fold the process
holds its activities as a fresh one loaded from the directory does.

The layout (format 3; a later release reads every earlier one, ``files``): one JSON object,

    {"orjson":true,"format":"wallet-simulator-data/3","generation":N,"layout":[S,A,I],"state":<the kept document,
     its store's activities and evaluations {}>,"activities":{"<id>":<activity>,...},"evaluations":{"<id>":
     <evaluations>,...},"index":{"views":{...},"activities":[[id, organization, created, status, settled, offset,
     length, [views named]],...],"evaluations":[[id, offset, length],...]}}

with ``S``, ``A`` and ``I`` the byte offsets of the state, of the activities' object and of the index (numbers
padded with spaces, so that the head is written first and filled in last). A start (``read``) parses the state
and the index only: each settled activity becomes a ``LazyActivity`` holding its bytes, sliced from the file,
each activity's evaluations a ``KeptEvaluations`` holding theirs, and none is parsed (a start with 50,000
activities on disk took 0.66 s to parse them, and held them as objects three times their size). A piece orjson would not write exactly (a NaN, an integer beyond 64 bits, a lone surrogate:
values the codec notes, ``codec.inexact``, read back to be sure) makes ``write`` give up (``Inexact``): the
directory then writes the whole document as before (format 2, json where orjson would differ).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import orjson

from simulator.core import Simulator, encode_capture
from simulator.datadir.voter_views import Views
from simulator.state import codec
from simulator.state.lazy_activity import Kept, KeptEvaluations, LazyActivity, shed
from simulator.state.store import Store

FORMAT = "wallet-simulator-data/3"
HEAD = b'{"orjson":true,"format":"wallet-simulator-data/3","generation":'
_WIDTH = 16  # each offset of the layout, padded with spaces
_CHUNK = 256  # a large table's entries encoded and written together
_BUFFER = 1 << 20
# the export's first members as Simulator._export has them (tests/datadir/test_kept_base.py holds them equal)
EXPORT_HEAD = (
    ("format", "wallet-simulator-state/1"),
    ("containsSecrets", True),
    ("secretsNote", "private keys, mnemonics and passkey keys in the clear: keep this document private"),
)
_STREAMED = frozenset({"orgs"})  # written an entry at a time: an organization holds its wallets, users, ...


class Inexact(Exception):  # a signal, not an error: the caller writes the document as before
    """A piece orjson would not write as json reads it back: the base is written the earlier way."""


class EvaluationBytes:
    """Each activity's evaluations (a tuple, replaced whole when a vote adds one, never changed in place) as the
    bytes a record or the last fold wrote them, reused while the store holds the same tuple: a fold encoded every
    evaluation again otherwise (two thirds of its export). Bytes, not the encoding: a third of its memory."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[Any, bytes]] = {}

    def keep(self, activity_id: str, entry: Any, encoded: Any) -> None:
        if type(entry) is tuple:
            try:
                self.kept[activity_id] = (entry, kept_bytes(encoded))
            except TypeError:
                self.kept.pop(activity_id, None)


def kept_bytes(value: Any) -> bytes:
    """``value`` as orjson writes it, in a bytes object of its size: orjson's own keeps the capacity it grew to
    (tracemalloc: 4 KiB for a 341-byte result, 8 KiB an evaluation kept), which a value kept for the process's life
    must not carry (the first memo of evaluations held 53 MiB for 6,858 of them)."""
    return memoryview(orjson.dumps(value)).tobytes()


def shed_written(activity: Any, named: dict[str, Any], views: Views) -> None:
    """A settled activity whose change record holds ``named`` (its exact encoding, voters named) held in that form
    from now on (``lazy_activity.shed``): an activity settled while serving takes what a fresh process loading it
    would hold, not its fields (a process that had run a while held 1.3-1.45 times a fresh one's memory)."""
    try:
        data = kept_bytes(named)
    except TypeError:
        return  # json writes it (an integer beyond 64 bits): decoded it stays
    shed(activity, data, views.pairs_of(named))


def _exact(value: Any, noted: int | None) -> bytes:
    """``value`` (an encoding) as orjson writes it; read back when its encoding noted a value orjson might write
    otherwise than json (``noted``: the thread's count before it; None: always, for a value written as it is)."""
    try:
        written = orjson.dumps(value)
    except TypeError:
        raise Inexact from None
    if (noted is None or codec.inexact() != noted) and orjson.loads(written) != value:
        raise Inexact
    return written


def _plain(value: Any) -> bytes:
    """A value written as it is (not through the codec: credentials, rules, deliveries), read back to be sure."""
    return _exact(value, None)


class _Out:
    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.at = 0

    def put(self, *parts: bytes) -> None:
        for part in parts:
            self.file.write(part)
            self.at += len(part)


class _Section:
    """One object's ``"key":value`` members, a line each, written a batch at a time; ``add`` says where the value
    starts in the file."""

    def __init__(self, out: _Out) -> None:
        self.out = out
        self.parts: list[bytes] = [b"{"]
        self.at = out.at + 1
        self.count = 0

    def add(self, key: str, data: bytes) -> int:
        head = (b",\n" if self.count else b"\n") + orjson.dumps(key) + b":"
        self.parts += (head, data)
        start = self.at + len(head)
        self.at = start + len(data)
        self.count += 1
        if len(self.parts) >= 2 * _CHUNK:
            self._flush()
        return start

    def _flush(self) -> None:
        self.out.put(b"".join(self.parts))
        self.parts = []

    def close(self) -> None:
        self.parts.append(b"\n}")
        self._flush()


def write(path: Path, generation: int, sim: Simulator, views: Views, evaluations: EvaluationBytes) -> int:
    """``path`` holds the kept document of ``sim`` now (under its lock) in the layout above, replaced atomically;
    its size. Raises Inexact (nothing replaced) where orjson would not write a piece exactly."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "wb", buffering=_BUFFER) as file:
            out = _Out(file)
            out.put(HEAD, str(generation).encode(), b',"layout":[')
            layout_at = out.at
            out.put(b" " * (_WIDTH * 3 + 2), b'],"state":')
            state_at = out.at
            _state(out, sim, evaluations)
            out.put(b',"activities":')
            activities_at = out.at
            index, named = _activities(out, sim.store, views)
            evaluated = None
            if _keyed(sim.store.evaluations):
                out.put(b',"evaluations":')
                evaluated = _evaluations(out, sim.store, evaluations)
            out.put(b',"index":')
            index_at = out.at
            out.put(b'{"views":', _plain(named), b',"activities":', orjson.dumps(index))
            if evaluated is not None:
                out.put(b',"evaluations":', orjson.dumps(evaluated))
            out.put(b"}}")
            size = out.at
            file.flush()
            file.seek(layout_at)
            file.write(b",".join(str(n).rjust(_WIDTH).encode() for n in (state_at, activities_at, index_at)))
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)
    return size


def _state(out: _Out, sim: Simulator, evaluations: EvaluationBytes) -> None:
    """The kept document (``Simulator.export_kept_state``) from the live state, its store's activities left
    empty (they follow it), member by member."""
    out.put(b"{")
    for name, value in EXPORT_HEAD:
        out.put(orjson.dumps(name), b":", orjson.dumps(value), b",")
    out.put(b'"store":')
    _store(out, sim.store, evaluations)
    noted = codec.inexact()
    out.put(b',"source":', _exact(codec.encode(sim.source.state()), noted))
    out.put(b',"clock":', _plain(list(sim.clock.state())))
    out.put(b',"credentials":', _plain(list(sim.credentials)), b',"rules":', _plain(list(sim.rules)))
    out.put(b',"snapshots":{')
    for index, (name, capture) in enumerate(dict(sim.saved_snapshots).items()):
        noted = codec.inexact()
        encoded = encode_capture(capture)
        codec.note_inexact()  # a capture holds credentials and rules as they are
        out.put(b"," if index else b"", orjson.dumps(name), b":", _exact(encoded, noted))
    hooks = sim.webhooks
    deliveries = {"deliveries": hooks.log_from(0), "nextEvent": hooks.event_position}
    out.put(b'},"seed":', _plain(sim.source.seed), b',"webhooks":', _plain(deliveries), b"}")


def _store(out: _Out, store: Store, evaluations: EvaluationBytes) -> None:
    out.put(b'{"__type__":"Store"')
    for name, value in codec.store_fields(store):
        out.put(b",", orjson.dumps(name), b":")
        if name == "activities" or (name == "evaluations" and _keyed(value)):
            out.put(b"{}")  # they follow the state, one by one
        elif name in _STREAMED and isinstance(value, dict) and all(type(k) is str for k in value):
            _table(out, dict.items(value), lambda _key, entry: _encoded(entry))
        else:
            noted = codec.inexact()
            out.put(_exact(codec.encode(value), noted))
    out.put(b"}")


def _keyed(value: Any) -> bool:
    return isinstance(value, dict) and all(type(k) is str for k in value)


def _encoded(value: Any) -> bytes:
    noted = codec.inexact()
    return _exact(codec.encode(value), noted)


def _evaluations(out: _Out, store: Store, memo: EvaluationBytes) -> list[list[Any]]:
    """Each activity's evaluations (``KeptEvaluations``' bytes as they are; a tuple the memo's bytes while the
    store holds the same tuple, the memo keeping those written); where each is."""
    earlier: dict[str, tuple[Any, bytes]] = memo.kept
    fresh: dict[str, tuple[Any, bytes]] = {}
    memo.kept = fresh
    index: list[list[Any]] = []
    section = _Section(out)
    for key, entry in dict.items(store.evaluations):
        if type(entry) is KeptEvaluations:
            data = entry.data
        else:
            hit = earlier.get(key)
            if hit is None or hit[0] is not entry:
                hit = (entry, memoryview(_encoded(entry)).tobytes())
            if type(entry) is tuple:  # a list (an older document's) could change in place: encoded each time
                fresh[key] = hit
            data = hit[1]
        index.append([key, section.add(key, data), len(data)])
    section.close()
    return index


def _table(out: _Out, items: Iterable[tuple[str, Any]], encoded: Callable[[str, Any], bytes]) -> None:
    out.put(b"{")
    parts: list[bytes] = []
    first = True
    for key, value in items:
        parts.append(orjson.dumps(key) + b":" + encoded(key, value))
        if len(parts) >= _CHUNK:
            out.put(b"" if first else b",", b",".join(parts))
            parts, first = [], False
    if parts:
        out.put(b"" if first else b",", b",".join(parts))
    out.put(b"}")


def _activities(out: _Out, store: Store, views: Views) -> tuple[list[list[Any]], dict[str, Any]]:
    """The store's activities, one by one; the index of where each is, and the voters they name."""
    views.reset()  # the base names the voters its activities show; records after it, the new ones
    named: dict[str, Any] = {}
    index: list[list[Any]] = []
    section = _Section(out)
    seen: set[int] = set()  # the voters' tuples met (lazy activities naming the same voters share one)
    for activity_id, activity in dict.items(store.activities):
        kept = activity.kept() if type(activity) is LazyActivity else None
        if kept is not None and type(kept.data) is bytes:
            data, pairs = kept.data, kept.views
            if id(pairs) not in seen:
                seen.add(id(pairs))
                for name, view in pairs:
                    named[name] = view
                    views.remember(name, view)
        else:
            noted = codec.inexact()
            encoded = codec.encode(activity)
            exact = codec.inexact() == noted
            ops: list[Any] = []
            document = views.votes_of(encoded, ops)
            pairs = views.pairs_of(document)
            for name, view in pairs:
                named[name] = view
            try:
                data = kept_bytes(document)
            except TypeError:
                raise Inexact from None
            if not exact and orjson.loads(data) != document:
                raise Inexact
            if activity.settled:  # ``data`` is orjson's exact writing of it (noted nothing, or read back the same)
                if type(activity) is LazyActivity:  # an older directory's document: its bytes from now on
                    activity.keep_as(Kept(data, pairs))
                else:
                    shed(activity, data, pairs)
        at = section.add(activity_id, data)
        index.append(
            [
                activity_id,
                activity.organization_id,
                activity.created_ms,
                activity.status,
                activity.settled,
                at,
                len(data),
                [name for name, _view in pairs],
            ]
        )
    section.close()
    return index, named


# reading -------------------------------------------------------------------------------------------
def is_kept_base(payload: bytes) -> bool:
    return payload.startswith(HEAD)


def read(payload: bytes) -> dict[str, Any]:
    """The base document of a payload in the layout above: its state, the store's settled activities lazy (each
    holding its bytes), the others decoded as documents; ``views`` as records may add to them."""
    head_end = payload.index(b',"state":')
    head = orjson.loads(payload[:head_end] + b"}")
    state_at, activities_at, index_at = head["layout"]
    whole = memoryview(payload)
    data = orjson.loads(whole[head_end + len(b',"state":') : activities_at - len(b',"activities":')])
    if data is None or state_at != head_end + len(b',"state":'):
        raise ValueError("the layout does not match the document")
    index = orjson.loads(whole[index_at : len(payload) - 1])
    views = index["views"]
    voters: dict[str, tuple[tuple[str, Any], ...]] = {}  # one tuple for the activities naming the same voters
    intern = sys.intern
    made = LazyActivity.made
    activities: dict[str, Any] = {}
    for activity_id, organization_id, created_ms, status, settled, at, length, names in index["activities"]:
        piece = payload[at : at + length]
        if not settled:
            activities[activity_id] = orjson.loads(piece)  # voters named: resolved with the others (log_applier)
            continue
        key = ",".join(names)
        named = voters.get(key)
        if named is None:
            named = voters[key] = tuple((name, views[name]) for name in names)
        activities[activity_id] = made(
            activity_id, intern(organization_id), created_ms, intern(status), Kept(piece, named)
        )
    data["store"]["activities"] = activities
    if "evaluations" in index:
        data["store"]["evaluations"] = {
            key: KeptEvaluations(payload[at : at + length]) for key, at, length in index["evaluations"]
        }
    data["views"] = views
    return {"format": head["format"], "generation": head["generation"], "state": data}
