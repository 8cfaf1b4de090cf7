"""Settled activities held in their compact kept form, decoded when first read.

A settled activity (final and compacted) is never written again. serve --data-dir holds each one as the bytes of
its kept encoding (orjson's, its voters named, as a change record or a base wrote it) until a field is read: a
start with 50,000 activities on disk decodes none of them and holds each in about its size on disk, where the
loaded JSON document of one took about three times that; and an activity settled while serving is turned into that
form again once its change record is written (``shed``), so that a process that has run for weeks holds its
activities as a fresh one loaded from the same directory does.

The object stays the same (the store's and its organization's tables hold it, a snapshot may share it): its class
is switched between ``Activity`` and ``LazyActivity``, which adds no slot (the two have the same layout, so Python
lets ``__class__`` change) and reads every field through a property that decodes the activity first. While lazy,
the ``request`` slot holds the ``Kept`` form and every other field but the eager ones is None; the eager ones (id,
organization, time, status, pending and kept intent: the tables' order, retention and ``settled`` read them) are
set. Switching either way happens under ``_DECODING``, and a reader of another thread that meets a lazy activity
waits on it for the whole activity: a read through the class's slot is one step for the interpreter, so no thread
ever reads a field half switched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar, overload

import orjson

from simulator.state import activity

_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})  # as ``decoding`` takes them
VIEW = "__view__"  # a vote's voter named (serve --data-dir writes each voter's view once, under ``views``)
Views = tuple[tuple[str, Any], ...]  # (name, view) pairs: the voters a kept activity's votes name


class Kept:
    """A lazy activity's form: the bytes of its kept encoding (voters named, ``views`` the pairs they name), or
    the document it was loaded from (an older directory's base or a change record: voters in full)."""

    __slots__ = ("data", "views")

    def __init__(self, data: bytes | dict[str, Any], views: Views = ()) -> None:
        self.data = data
        self.views = views

    def document(self) -> dict[str, Any]:
        """The activity's document, voters in full (a fresh one: the caller may keep or change it)."""
        if isinstance(self.data, dict):
            return self.data
        document: dict[str, Any] = orjson.loads(self.data)
        if self.views:
            named = dict(self.views)
            for vote in document.get("votes") or ():
                user = vote.get("user") if isinstance(vote, dict) else None
                if isinstance(user, dict) and VIEW in user:
                    vote["user"] = named[user[VIEW]]
        return document


_SLOT = {name: getattr(activity.Activity, name) for name in activity.Activity.__slots__}  # the slots' descriptors
_HOLDER = _SLOT["request"]  # holds the Kept form while lazy (read only through the class's property)
EAGER = ("activity_id", "organization_id", "created_ms", "status", "pending", "kept_intent")
_SET_ID, _SET_ORGANIZATION, _SET_CREATED, _SET_STATUS, _SET_PENDING, _SET_KEPT_INTENT, _SET_HOLDER = (
    _SLOT[name].__set__ for name in (*EAGER, "request")
)
LAZY_FIELDS = tuple(name for name in activity.Activity.__slots__ if name not in EAGER)


class LazyActivity(activity.Activity):
    """A settled activity in its kept form (``Kept``), decoded (back into an ``Activity``) at the first read of a
    field other than the eager ones, or at any write."""

    __slots__ = ()
    _EAGER = ("activity_id", "organization_id", "created_ms", "status")  # the fields a document must hold as scalars
    # the codec's ``decoding.build_now``, which ``decoding`` sets here: it makes these, and they decode through it
    # (a hook, not an import: the two would import each other)
    decoder: ClassVar[Callable[[dict[str, Any]], activity.Activity]]

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
        """A lazy activity of a settled activity's document (``takes``), decoded when first read."""
        return cls.made(
            value["activity_id"], value["organization_id"], value["created_ms"], value["status"], Kept(value)
        )

    @classmethod
    def made(cls, activity_id: str, organization_id: str, created_ms: int, status: str, kept: Kept) -> LazyActivity:
        """A lazy activity of its eager fields and its kept form. Its other slots stay unset: only this class's
        properties read them, after decoding (a start makes 50,000 of these: 2 µs each where setting every slot
        took 10)."""
        made = object.__new__(cls)
        _SET_ID(made, activity_id)
        _SET_ORGANIZATION(made, organization_id)
        _SET_CREATED(made, created_ms)
        _SET_STATUS(made, status)
        _SET_PENDING(made, None)
        _SET_KEPT_INTENT(made, None)
        _SET_HOLDER(made, kept)
        return made

    # what a start and every look read of each activity, answered without a call per field: a lazy activity is
    # settled (only a settled one is made lazy; a write of its status or pending decodes it first)
    @property
    def final(self) -> bool:
        return True

    @property
    def settled(self) -> bool:
        return True

    def compact(self) -> bool:
        return True

    def kept(self) -> Kept | None:
        """Its kept form while it is lazy (None once decoded: the object is an ``Activity`` again)."""
        with _DECODING:
            if type(self) is not LazyActivity:
                return None
            held: Kept = _HOLDER.__get__(self, activity.Activity)
            return held

    def keep_as(self, kept: Kept) -> None:
        """Held in ``kept`` from now on (the same activity: its bytes in place of the document it was loaded from)."""
        with _DECODING:
            if type(self) is LazyActivity:
                _HOLDER.__set__(self, kept)

    def undecoded(self) -> dict[str, Any] | None:
        """The document it encodes to while lazy, voters in full (None once decoded)."""
        held = self.kept()
        return None if held is None else held.document()

    def decode_now(self) -> None:
        """Back into an ``Activity`` (every field set from its kept form), if it is still lazy."""
        with _DECODING:  # readers of other threads wait for the whole activity
            if type(self) is not LazyActivity:
                return  # decoded meanwhile
            made = LazyActivity.decoder(_HOLDER.__get__(self, activity.Activity).document())
            for name in LAZY_FIELDS:
                _SLOT[name].__set__(self, _SLOT[name].__get__(made, activity.Activity))
            object.__setattr__(self, "__class__", activity.Activity)


def _field(name: str) -> property:
    slot = _SLOT[name]

    def read(self: LazyActivity) -> Any:
        self.decode_now()
        return slot.__get__(self, activity.Activity)

    def write(self: LazyActivity, value: Any) -> None:
        self.decode_now()
        slot.__set__(self, value)

    return property(read, write)


def _eager(name: str) -> property:
    slot = _SLOT[name]

    def read(self: LazyActivity) -> Any:
        return slot.__get__(self, activity.Activity)

    def write(self: LazyActivity, value: Any) -> None:  # a write decodes first: the kept form would hold the old
        self.decode_now()
        slot.__set__(self, value)

    return property(read, write)


for _name in activity.Activity.__slots__:
    setattr(LazyActivity, _name, _eager(_name) if _name in EAGER else _field(_name))


def shed(value: activity.Activity, data: bytes, views: Views) -> bool:
    """``value``, settled, into its kept form (``data``: orjson's exact writing of its kept encoding, ``views`` the
    voters it names); True when it was. The fields it held are let go: the object holds about its size on disk."""
    with _DECODING:
        if type(value) is not activity.Activity or not value.settled:
            return False
        object.__setattr__(value, "__class__", LazyActivity)  # from here a reader waits on _DECODING, then decodes
        for name in LAZY_FIELDS:
            _SLOT[name].__set__(value, None)
        _HOLDER.__set__(value, Kept(data, views))
        return True


_DECODING = threading.RLock()


class KeptEvaluations(Sequence[Any]):
    """An activity's policy evaluations as a base holds them (the bytes of their encoding, a tuple's), decoded
    into the tuple of ``Evaluation`` records when first read: the evaluations are a third of a base's state
    beyond its activities, and a start read every one (0.2 s with 50,000). Never changed: a vote's evaluation
    replaces an activity's whole entry (``envelope.record_evaluation``), as it replaces a tuple."""

    __slots__ = ("data", "_made")
    # the codec's ``decoding.decode``, set by ``decoding`` (as ``LazyActivity.decoder``)
    decoder: ClassVar[Callable[[Any], Any]]

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._made: tuple[Any, ...] | None = None

    def made(self) -> tuple[Any, ...]:
        made = self._made
        if made is None:
            with _DECODING:
                if self._made is None:
                    self._made = tuple(KeptEvaluations.decoder(orjson.loads(self.data)))
                made = self._made
        return made

    def document(self) -> Any:
        """What ``codec.encode`` makes of the tuple (the encoding the bytes hold)."""
        return orjson.loads(self.data)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Any, ...]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self.made()[index]

    def __len__(self) -> int:
        return len(self.made())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.made())
