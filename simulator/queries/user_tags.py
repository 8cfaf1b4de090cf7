"""Reads of user tags."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def list_user_tags(q: QueryContext, body: Json) -> Json:
    return {"userTags": [t.to_api() for t in q.org.tags.values() if t.tag_type == "TAG_TYPE_USER"]}
