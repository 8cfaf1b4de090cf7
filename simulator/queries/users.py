"""Reads of users."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def list_users(q: QueryContext, body: Json) -> Json:
    return {"users": [u.to_api() for u in q.org.users.values()]}


def get_user(q: QueryContext, body: Json) -> Json:
    return {"user": q.find(q.org.users, body["userId"], "user").to_api()}
