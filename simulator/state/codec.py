"""The whole state as readable JSON and back: records by class name, bytes as hex.

An organization's activities are written as the ids of the store's (each activity once), and a
vote whose message is its activity's request leaves the message out; both are restored on the
way back in. Documents of older versions (activities in full under their organizations, intents
and results as values) are read too.

``iter_document`` writes a document in pieces, giving the interpreter up between them, so that a
large export (run outside the store lock) never holds up the requests served meanwhile.
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import operator
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from simulator.state import activity, longtail_records, records, store, votes
from simulator.state.status_track import StatusTrack
from simulator.state.tables import ActivityIds, ActivityTable

CLASSES: dict[str, type] = {
    cls.__name__: cls
    for module in (records, votes, activity, store)
    for cls in vars(module).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls)
}
DOCUMENT_RECORDS = (StatusTrack, *longtail_records.RECORDS)  # records kept in the JSON form they replaced
ACTIVITY_IDS = "__activity_ids__"
# fields that hold wire JSON only (no bytes, tuples, sets nor records): written and read as they are, not walked
PLAIN_FIELDS: dict[str, frozenset[str]] = {"Vote": frozenset({"user"})}
_WIRE = json.JSONEncoder(separators=(",", ":"))  # what the control API's JSON responses use
_PIECE_ITEMS = 64  # containers larger than this are written member by member
_YIELD_EVERY_S = 0.001  # the longest the writer keeps the interpreter before letting others run


# serve --data-dir encodes the whole state at each compaction: a settled activity never changes again, nor does an
# activity's tuple of evaluations, so their encodings are kept (by id, with the very object each was made from)
# across the encodings made inside ``settled_memo``
_MEMO: contextvars.ContextVar[tuple[dict[Any, Any], dict[Any, Any]] | None] = contextvars.ContextVar(
    "settled_memo", default=None
)


class SettledMemo:
    """``with memo:`` encodings inside reuse those of settled activities the previous ``with`` made;
    entries for activities no longer encoded are dropped at the end of each."""

    def __init__(self) -> None:
        self.kept: dict[Any, Any] = {}

    def __enter__(self) -> SettledMemo:
        self._fresh: dict[Any, Any] = {}
        self._token = _MEMO.set((self.kept, self._fresh))
        return self

    def __exit__(self, *exc: Any) -> None:
        _MEMO.reset(self._token)
        self.kept = self._fresh

    def keep(self, value: activity.Activity, encoded: Any) -> None:
        """``encoded``, a settled activity's encoding made outside (serve --data-dir's change record), for the next
        ``with``: a compaction then encodes only what changed since the last one, not what the records wrote."""
        self.kept[value.activity_id] = (value, encoded)

    def keep_evaluations(self, activity_id: str, entry: Any, encoded: Any) -> None:
        """As ``keep``, for an activity's evaluations (a tuple)."""
        if type(entry) is tuple:
            self.kept[(_EVALUATIONS, activity_id)] = (entry, encoded)


# JSON already, written as they are: most values, answered first. A float is not among them: it is looked at (a
# NaN or an infinity is noted, see ``inexact``); a document read takes every JSON scalar as it is (_JSON_SCALARS)
_AS_THEY_ARE = frozenset({str, int, bool, type(None)})
_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
_CHECKS = threading.local()  # per thread: the values its encodings took that orjson may not write exactly


def inexact() -> int:
    """How many values this thread's encodings have taken as they were that orjson might not write as json does:
    a NaN or an infinity (orjson: null), a value of a type encode() does not know (a UUID, an Enum, ...), a loaded
    document never decoded; and what serve --data-dir's tracker wrote without encoding it (``note_inexact``).
    A change record none of whose values was so is written by orjson without reading it back (serve --data-dir):
    every other value is a str, an int within 64 bits, a bool, None, a finite float or lists and str-keyed dicts
    of them, which orjson writes exactly; its refusals (a lone surrogate, an integer beyond 64 bits) still go to
    json."""
    return getattr(_CHECKS, "count", 0)


def note_inexact() -> None:
    _CHECKS.count = getattr(_CHECKS, "count", 0) + 1


def note_inexact_numbers(values: Iterable[Any]) -> None:
    """Noted if any of ``values`` (numbers written as they are) is not an int, a finite float or None."""
    for value in values:
        if type(value) is not int and value is not None and not (type(value) is float and value - value == 0):
            note_inexact()
            return


def encode(value: Any) -> Any:
    kind = type(value)
    if kind in _AS_THEY_ARE:
        return value
    encoder = _ENCODERS.get(kind)
    if encoder is None:
        encoder = _encoder_for(kind)
    return encoder(value)


# How each type is written, chosen once per type (the isinstance chain below cost more than the writing: a
# data directory encodes an activity and its evaluation after every request)
_ENCODERS: dict[type, Callable[[Any], Any]] = {}


def _encoder_for(kind: type) -> Callable[[Any], Any]:
    chosen: Callable[[Any], Any]
    if kind is _VoteWithoutMessage:
        chosen = _VoteWithoutMessage.encoded
    elif issubclass(kind, activity.Activity):
        chosen = _lazy_or_memo if issubclass(kind, LazyActivity) else _memo_or_encode
    elif issubclass(kind, DOCUMENT_RECORDS):  # written as they always were: JSON objects
        chosen = _as_document
    elif issubclass(kind, float):
        chosen = _encode_float
    elif issubclass(kind, str) or issubclass(kind, int) and not issubclass(kind, bool):
        chosen = _as_str_or_int  # a str or int Enum: both write its value, a string or a number
    elif dataclasses.is_dataclass(kind) and not issubclass(kind, type):
        chosen = _record_encoder(kind)
    elif issubclass(kind, store.Store):
        chosen = _encode_store
    elif issubclass(kind, bytes):
        chosen = _encode_bytes
    elif issubclass(kind, (set, frozenset)):
        chosen = _encode_set
    elif issubclass(kind, tuple):
        chosen = _encode_tuple
    elif issubclass(kind, dict):
        chosen = _encode_dict
    elif issubclass(kind, list):
        chosen = _encode_list
    else:
        chosen = _as_it_is
    if not issubclass(kind, type):  # a class (a dataclass's own, say) is written as it is, whatever its kind
        _ENCODERS[kind] = chosen
    return chosen


def _lazy_or_memo(value: Any) -> Any:
    document = value.undecoded()
    if document is not None:  # what it was loaded from is what it encodes to (a stop writes 10,000 in 0.1 s)
        note_inexact()  # not looked at: json may have read a NaN into it
        return document
    return _memo_or_encode(value)


def _memo_or_encode(value: activity.Activity) -> Any:
    memo = _MEMO.get()
    if memo is not None and value.settled:
        kept, fresh = memo
        hit = kept.get(value.activity_id)
        if hit is None or hit[0] is not value:
            hit = (value, encode_activity(value))
        fresh[value.activity_id] = hit
        return hit[1]
    return encode_activity(value)


def _as_document(value: Any) -> Any:
    return encode(value.as_document())


def _record_encoder(kind: type) -> Callable[[Any], Any]:
    """``record_document`` for one record type, its field names and which of them are written as they are
    looked up once (an organization's and a pending activity's fields are written by ``record_fields``)."""
    if issubclass(kind, (activity.Pending, store.Organization)):
        return record_document
    name = kind.__name__
    plain = PLAIN_FIELDS.get(name, frozenset())
    names = tuple(f.name for f in dataclasses.fields(kind))  # type: ignore[arg-type]
    walked = tuple(n not in plain for n in names)
    fields_of = fields_getter(names)

    def encoded(value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"__type__": name}
        for field_name, walk, item in zip(names, walked, fields_of(value)):  # the fields read at once, in C
            out[field_name] = encode(item) if walk and type(item) not in _AS_THEY_ARE else item
        return out

    return encoded


def fields_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of a record, as a tuple, read in C (attrgetter gives a bare value for one name): the
    encoders here and serve --data-dir's signatures and field watch read records through it."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    return lambda value: tuple(getattr(value, name) for name in names)


def _encode_store(value: store.Store) -> Any:
    return {
        "__type__": "Store",
        **{k: _encode_evaluations(v) if k == "evaluations" else encode(v) for k, v in store_fields(value)},
    }


def _encode_evaluations(table: Any) -> Any:
    """The store's policy evaluations, an entry's encoding reused inside a memo while the entry is the same tuple:
    an activity's evaluations are a tuple replaced whole when one is added and never changed in place (what serve
    --data-dir's tracker relies on too). A compaction encoded every one again: two thirds of its export."""
    memo = _MEMO.get()
    if memo is None or not isinstance(table, dict) or not all(type(k) is str for k in table):
        return encode(table)
    kept, fresh = memo
    out: dict[str, Any] = {}
    for key, entry in dict.items(table):
        if type(entry) is not tuple:  # a list (an older document's): it could change in place
            out[key] = encode(entry)
            continue
        memo_key = (_EVALUATIONS, key)
        hit = kept.get(memo_key)
        if hit is None or hit[0] is not entry:
            hit = (entry, encode(entry))
        fresh[memo_key] = hit
        out[key] = hit[1]
    return out


_EVALUATIONS = "evaluations"  # with the activity's id, an evaluations entry's key in the memo (activities: the id)


def _encode_bytes(value: bytes) -> Any:
    return {"__bytes__": value.hex()}


def _encode_set(value: Any) -> Any:
    return {"__set__": sorted(encode(v) for v in value)}


def _encode_tuple(value: tuple[Any, ...]) -> Any:
    return {"__tuple__": [encode(v) for v in value]}


def _encode_dict(value: dict[Any, Any]) -> Any:
    if all(type(k) is str or isinstance(k, str) for k in value):
        return {k: v if type(v) in _AS_THEY_ARE else encode(v) for k, v in value.items()}
    return {"__items__": [[encode(k), encode(v)] for k, v in value.items()]}


def _encode_list(value: list[Any]) -> Any:
    return [v if type(v) in _AS_THEY_ARE else encode(v) for v in value]


def _as_it_is(value: Any) -> Any:
    note_inexact()  # a type orjson may write otherwise than json (a UUID as a string) or refuse
    return value


def _as_str_or_int(value: Any) -> Any:
    return value


def _encode_float(value: float) -> Any:
    if value - value != 0:  # NaN and the infinities: json writes NaN, Infinity; orjson null
        note_inexact()
    return value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def encode_activity(value: activity.Activity) -> Any:
    """An activity as kept: its fields read at once (in C), a field already JSON taken without a call (a data
    directory encodes every new activity after its request: a call each for its 25 fields, most of them strings and
    numbers, was a third of that)."""
    kind = type(value)
    plan = _ACTIVITY_PLANS.get(kind)
    if plan is None:
        names = field_names(value)
        plan = _ACTIVITY_PLANS[kind] = (names, fields_getter(names), names.index("votes"))
    names, fields_of, at_votes = plan
    items = list(fields_of(value))
    items[at_votes] = _votes_kept(value)
    out: dict[str, Any] = {"__type__": "Activity"}
    out.update(zip(names, [item if type(item) in _AS_THEY_ARE else encode(item) for item in items]))
    return out


_ACTIVITY_PLANS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]], int]] = {}


def field_names(value: Any) -> tuple[str, ...]:
    kind = type(value)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in dataclasses.fields(value))
    return names


def record_fields(value: Any) -> Iterator[tuple[str, Any]]:
    for name in field_names(value):
        item = getattr(value, name)
        if isinstance(value, activity.Pending) and name == "prepared":
            # Work done ahead for the handler (a wallet's seed and keys): not state. Left out, so an
            # export taken while an activity waits imports again; the handler then does the work itself.
            yield name, None
        elif isinstance(value, activity.Pending) and name == "wait":  # written as it always was
            polls_left, ready_at_ms = value.wait_document()
            yield "polls_left", polls_left
            yield "ready_at_ms", ready_at_ms
        elif isinstance(value, store.Organization) and isinstance(item, ActivityTable):
            yield name, {ACTIVITY_IDS: list(item)}  # the store's table holds them
        else:
            yield name, item


def store_fields(value: store.Store) -> Iterator[tuple[str, Any]]:
    return ((k, v) for k, v in vars(value).items() if k not in store.Store.TRANSIENT)


def _votes_kept(value: activity.Activity) -> list[Any]:
    """The activity's votes as kept: one whose message is the activity's request without it."""
    return [
        _VoteWithoutMessage(vote)
        if isinstance(vote, votes.Vote) and vote.message is value.request and value.request
        else vote
        for vote in value.votes
    ]


def record_document(value: Any) -> dict[str, Any]:
    """A record as the document has it: its class name and fields, wire-JSON fields (PLAIN_FIELDS) as they are
    (an organization and a pending activity; other records through ``_record_encoder``)."""
    name = type(value).__name__
    plain = PLAIN_FIELDS.get(name, ())
    return {"__type__": name, **{k: v if k in plain else encode(v) for k, v in record_fields(value)}}


class _VoteWithoutMessage:
    """A vote whose message is its activity's request: written without it."""

    __slots__ = ("vote",)

    def __init__(self, vote: votes.Vote) -> None:
        self.vote = vote

    def encoded(self) -> dict[str, Any]:
        written: dict[str, Any] = encode(self.vote)  # a fresh dict (the message a string, taken as it is)
        del written["message"]
        return written


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [v if type(v) in _JSON_SCALARS else decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__bytes__" in value:
        return bytes.fromhex(value["__bytes__"])
    if "__set__" in value:
        return {decode(v) for v in value["__set__"]}
    if "__tuple__" in value:
        return tuple(v if type(v) in _JSON_SCALARS else decode(v) for v in value["__tuple__"])
    if "__items__" in value:
        return {decode(k): decode(v) for k, v in value["__items__"]}
    if ACTIVITY_IDS in value:
        return ActivityIds(value[ACTIVITY_IDS])
    if "__type__" in value:
        return build(value)
    return {k: v if type(v) in _JSON_SCALARS else decode(v) for k, v in value.items()}


def build(value: dict[str, Any]) -> Any:
    name = value["__type__"]
    if name == "Activity" and LazyActivity.takes(value):
        return LazyActivity.of(value)
    return build_now(value)


def build_now(value: dict[str, Any]) -> Any:
    name = value["__type__"]
    plain = PLAIN_FIELDS.get(name, ())
    fields = {
        k: v if k in plain or type(v) in _JSON_SCALARS else decode(v) for k, v in value.items() if k != "__type__"
    }
    if name == "Store":
        made = store.Store()
        vars(made).update(fields)
        made.adopt()
        resolve_activities(made)
        return made
    if name == "Activity" and "intent" in fields:
        return activity.Activity.from_older(fields)
    if name not in CLASSES:
        raise ValueError(f"unknown record type {name!r} in the state")
    if name == "Organization" and "default_features_given" not in fields:
        # written by a release before 0.3.0, whose organizations started without features and where none was
        # enforced: the documented defaults keep e-mail auth and OTP working in them, as they did
        fields["features"] = {**dict.fromkeys(store.DEFAULT_FEATURE_NAMES, ""), **fields.get("features", {})}
    if name == "Pending":
        fields["wait"] = activity.Pending.wait_from_document(
            fields.pop("polls_left", None), fields.pop("ready_at_ms", None)
        )
    made = CLASSES[name](**fields)
    if isinstance(made, activity.Activity):
        for vote in made.votes:
            if isinstance(vote, votes.Vote) and not vote.message:
                vote.message = made.request  # the one string, shared again
    return made


class LazyActivity(activity.Activity):
    """A settled activity as a loaded document holds it, decoded at the first read of a field not set at once:
    a start with 10,000 activities on disk decodes none of them (most are never read again). The fields the
    start reads are set at once: the id, organization and time (the tables' order, retention), the status,
    pending and kept intent (``final``, ``settled``: None and final, as ``takes`` requires). A settled activity
    is never written again; a write decodes it first all the same."""

    __slots__ = ("_document",)
    _EAGER = ("activity_id", "organization_id", "created_ms", "status")

    @staticmethod
    def takes(value: dict[str, Any]) -> bool:
        """Whether the activity document ``value`` is settled (never changed again) and of the current form."""
        return (
            value.get("pending") is None
            and value.get("kept_intent") is None
            and value.get("status") in activity.FINAL_STATUSES
            and "intent" not in value
            and all(type(value.get(name)) in _JSON_SCALARS for name in LazyActivity._EAGER)
        )

    @classmethod
    def of(cls, value: dict[str, Any]) -> LazyActivity:
        made = object.__new__(cls)
        put = object.__setattr__
        for name in cls._EAGER:
            put(made, name, value[name])
        put(made, "pending", None)
        put(made, "kept_intent", None)
        put(made, "_document", value)
        return made

    def undecoded(self) -> dict[str, Any] | None:
        """The document it was loaded from, while it has not been decoded (None after): its encoding."""
        try:
            document: dict[str, Any] = object.__getattribute__(self, "_document")
        except AttributeError:
            return None
        return document

    def __getattr__(self, name: str) -> Any:  # only for a slot not set yet: the activity is decoded
        self._decode()
        return object.__getattribute__(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        self._decode()
        object.__setattr__(self, name, value)

    def _decode(self) -> None:
        with _DECODING:  # readers of other threads wait for the whole activity
            try:
                document = object.__getattribute__(self, "_document")
            except AttributeError:
                return  # decoded already (or made by the class's __init__)
            made = build_now(document)
            for name in activity.Activity.__slots__:
                object.__setattr__(self, name, object.__getattribute__(made, name))
            object.__delattr__(self, "_document")


_DECODING = threading.RLock()


def resolve_activities(made: store.Store) -> None:
    """Organizations' activity ids back to the store's activities (older documents hold them in full)."""
    for org in made.orgs.values():
        ids = org.activities
        if isinstance(ids, ActivityIds):
            org.activities = ActivityTable((i, made.activities[i]) for i in ids if i in made.activities)
        else:  # an older document: one record per table; the store's copy is the one kept
            org.activities = ActivityTable((i, made.activities.get(i, a)) for i, a in ids.items())


# writing a large document in pieces --------------------------------------------------------------
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
