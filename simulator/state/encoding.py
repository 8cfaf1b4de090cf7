"""The whole state as readable JSON: records by class name, bytes as hex.

An organization's activities are written as the ids of the store's (each activity once), and a
vote whose message is its activity's request leaves the message out; ``decoding`` restores both.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterator
from typing import Any

from simulator.state import activity, longtail_records, store, votes
from simulator.state.exactness import note_inexact
from simulator.state.lazy_activity import KeptEvaluations, LazyActivity
from simulator.state.settled_memo import EVALUATIONS, MEMO
from simulator.state.status_track import StatusTrack
from simulator.state.tables import ActivityTable

DOCUMENT_RECORDS = (StatusTrack, *longtail_records.RECORDS)  # records kept in the JSON form they replaced
ACTIVITY_IDS = "__activity_ids__"
# fields that hold wire JSON only (no bytes, tuples, sets nor records): written and read as they are, not walked
PLAIN_FIELDS: dict[str, frozenset[str]] = {"Vote": frozenset({"user"})}

# JSON already, written as they are: most values, answered first. A float is not among them: it is looked at (a
# NaN or an infinity is noted, see ``inexact``); a document read takes every JSON scalar as it is (``decoding``)
_AS_THEY_ARE = frozenset({str, int, bool, type(None)})


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
    elif issubclass(kind, KeptEvaluations):  # as a base wrote them: the tuple's encoding
        chosen = KeptEvaluations.document
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
    memo = MEMO.get()
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
    memo = MEMO.get()
    if memo is None or not isinstance(table, dict) or not all(type(k) is str for k in table):
        return encode(table)
    kept, fresh = memo
    out: dict[str, Any] = {}
    for key, entry in dict.items(table):
        if type(entry) is not tuple:  # a list (an older document's): it could change in place
            out[key] = encode(entry)
            continue
        memo_key = (EVALUATIONS, key)
        hit = kept.get(memo_key)
        if hit is None or hit[0] is not entry:
            hit = (entry, encode(entry))
        fresh[memo_key] = hit
        out[key] = hit[1]
    return out


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
