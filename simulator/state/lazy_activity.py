"""Settled activities of a loaded document, decoded when first read."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

from simulator.state import activity

_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})  # as ``decoding`` takes them


class LazyActivity(activity.Activity):
    """A settled activity as a loaded document holds it, decoded at the first read of a field not set at once:
    a start with 10,000 activities on disk decodes none of them (most are never read again). The fields the
    start reads are set at once: the id, organization and time (the tables' order, retention), the status,
    pending and kept intent (``final``, ``settled``: None and final, as ``takes`` requires). A settled activity
    is never written again; a write decodes it first all the same."""

    __slots__ = ("_document",)
    _EAGER = ("activity_id", "organization_id", "created_ms", "status")
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
            made = LazyActivity.decoder(document)
            for name in activity.Activity.__slots__:
                object.__setattr__(self, name, object.__getattribute__(made, name))
            object.__delattr__(self, "_document")


_DECODING = threading.RLock()
