"""Secret metadata, newest first (the plaintext never leaves through a read)."""

from __future__ import annotations

from simulator.handling import provider_standin
from simulator.queries.context import QueryContext
from simulator.queries.pagination import paginate
from simulator.wire import Json

METADATA = ("secretId", "name", "staticProperties", "createdAtUnixMs")


def list_secrets(q: QueryContext, body: Json) -> Json:
    stored = list(provider_standin.table(q.org, "secrets").values())[::-1]
    shown = [{k: s[k] for k in METADATA if s.get(k) != ""} for s in stored]
    return {"secrets": paginate(shown, body.get("paginationOptions"), key=lambda s: str(s["secretId"]))}
