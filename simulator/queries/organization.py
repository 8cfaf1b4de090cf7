"""Reads of the organization itself: identity and configuration."""

from __future__ import annotations

from simulator.queries.context import QueryContext
from simulator.wire import Json


def whoami(q: QueryContext, body: Json) -> Json:
    org, user = q.principal.organization, q.principal.user
    return {
        "organizationId": org.organization_id,
        "organizationName": org.name,
        "userId": user.user_id,
        "username": user.name,
    }


def get_organization_configs(q: QueryContext, body: Json) -> Json:
    quorum = {"threshold": q.org.root_threshold, "userIds": list(q.org.root_user_ids)}
    return {"configs": {"features": q.org.features_api(), "quorum": quorum}}
