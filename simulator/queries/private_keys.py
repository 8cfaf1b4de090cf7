"""Reads of private keys and their tags."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def list_private_keys(q: QueryContext, body: Json) -> Json:
    return {"privateKeys": [k.to_api() for k in q.org.private_keys.values()]}


def get_private_key(q: QueryContext, body: Json) -> Json:
    return {"privateKey": q.find(q.org.private_keys, body["privateKeyId"], "private key").to_api()}


def list_private_key_tags(q: QueryContext, body: Json) -> Json:
    tags = [t.to_api() for t in q.org.tags.values() if t.tag_type == "TAG_TYPE_PRIVATE_KEY"]
    return {"privateKeyTags": tags}
