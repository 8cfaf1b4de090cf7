"""A user's MFA policies, and the MFA status of an activity."""

from __future__ import annotations

import copy

from simulator.errors import NotFound
from simulator.handler_support.query_context import QueryContext
from simulator.wire import Json


def get_mfa_policies(q: QueryContext, body: Json) -> Json:
    user = q.find(q.org.users, body["userId"], "user")
    ordered = sorted(user.mfa_policies.values(), key=lambda p: (p.order, p.created_ms))
    return {"mfaPolicies": [p.to_api() for p in ordered]}


def get_mfa_policy(q: QueryContext, body: Json) -> Json:
    user = q.find(q.org.users, body["userId"], "user")
    return {"mfaPolicy": q.find(user.mfa_policies, body["mfaPolicyId"], "MFA policy").to_api()}


def get_mfa_status(q: QueryContext, body: Json) -> Json:
    """Every user MFA held on the activity (the requester, voters), met or not; ``userId`` narrows it to one.

    A user whose own stamp already met their policy was never held and has no entry."""
    activity = q.store.activities.get(body["activityId"])
    if activity is None or activity.organization_id != q.org.organization_id:
        raise NotFound(
            f"activity {body['activityId']} not found in organization {q.org.organization_id}",
            error_code="REQUEST_INVALID",
        )
    statuses = q.store.mfa_statuses.get(activity.activity_id, [])
    user_id = body.get("userId")
    return {"mfaStatuses": [copy.deepcopy(s) for s in statuses if not user_id or s["userId"] == user_id]}
