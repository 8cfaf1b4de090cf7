"""Reads of policies."""

from __future__ import annotations

from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def list_policies(q: QueryContext, body: Json) -> Json:
    return {"policies": [p.to_api() for p in q.org.policies.values()]}


def get_policy(q: QueryContext, body: Json) -> Json:
    return {"policy": q.find(q.org.policies, body["policyId"], "policy").to_api()}
