"""Secret metadata, newest first (the plaintext never leaves through a read)."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.queries.pagination import paginate
from simulator.state import longtail_records
from simulator.wire import Json


def list_secrets(q: QueryContext, body: Json) -> Json:
    stored = list(longtail_records.secrets(q.org.longtail).values())[::-1]
    shown = [s.metadata() for s in stored]
    return {"secrets": paginate(shown, body.get("paginationOptions"), key=lambda s: str(s["secretId"]))}
