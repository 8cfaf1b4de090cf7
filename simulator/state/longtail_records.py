"""Typed records of the long-tail families an organization keeps (``Organization.longtail``).

The long-tail operations (swaps, earn, on-ramp, TVC, secrets) began with plain JSON tables, and
state documents hold each record as that JSON object. A family moved to a typed record here keeps
the object exactly (``as_document``: the same keys, in the same order; ``from_document`` reads it
back), so exports are unchanged and older documents import. ``FAMILIES`` names the tables that hold
typed records; the others are still plain JSON (their ``track``, a ``StatusTrack`` either way).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from simulator.state.status_track import StatusTrack
from simulator.wire import Json


@dataclass
class Secret:
    """An imported secret (import_secrets); only its metadata is ever read back (list_secrets)."""

    secret_id: str
    name: str
    static_properties: list[Json]  # [{key, value}]
    created_at_unix_ms: str
    plaintext: str  # hex: what export_secrets seals again for its target

    def metadata(self) -> Json:
        """What list_secrets shows: everything but the plaintext, empty strings left out."""
        return {k: v for k, v in self.as_document().items() if k != "plaintext" and v != ""}

    def as_document(self) -> Json:
        return {
            "secretId": self.secret_id,
            "name": self.name,
            "staticProperties": self.static_properties,
            "createdAtUnixMs": self.created_at_unix_ms,
            "plaintext": self.plaintext,
        }

    @classmethod
    def from_document(cls, value: Json) -> Secret:
        return cls(
            value["secretId"], value["name"], value["staticProperties"], value["createdAtUnixMs"], value["plaintext"]
        )


@dataclass
class OnrampTransaction:
    """A fiat on-ramp transaction (init_fiat_on_ramp) and the status it moves along."""

    params: Json  # the request's parameters, as sent
    track: StatusTrack

    def as_document(self) -> Json:
        return {"params": self.params, "track": self.track}

    @classmethod
    def from_document(cls, value: Json) -> OnrampTransaction:
        return cls(value["params"], StatusTrack.from_document(value["track"]))


FAMILIES: dict[str, Any] = {"secrets": Secret, "onrampTransactions": OnrampTransaction}
RECORDS = tuple(FAMILIES.values())  # what the state codec writes through ``as_document``


def adopt(tables: dict[str, dict[str, Any]]) -> None:
    """Records a decoded document holds as JSON objects, typed again (a status track in any)."""
    for name, records in tables.items():
        family = FAMILIES.get(name)
        for key, record in records.items():
            if family is not None and isinstance(record, dict):
                records[key] = family.from_document(record)
            elif isinstance(record, dict) and "track" in record:
                record["track"] = StatusTrack.from_document(record["track"])


def secrets(tables: dict[str, dict[str, Any]]) -> dict[str, Secret]:
    return cast(dict[str, Secret], tables.setdefault("secrets", {}))


def onramp_transactions(tables: dict[str, dict[str, Any]]) -> dict[str, OnrampTransaction]:
    return cast(dict[str, OnrampTransaction], tables.setdefault("onrampTransactions", {}))
