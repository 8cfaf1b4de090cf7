"""Reads of activities, their policy evaluations and app proofs."""

from __future__ import annotations

from simulator.consensus import lifecycle
from simulator.errors import NotFound
from simulator.queries.context import Json, QueryContext
from simulator.queries.pagination import paginate
from simulator.state.activity import Activity


def visible_activity(q: QueryContext, activity_id: str) -> Activity:
    """An activity of the organization read, of the one named, or of a sub-organization of it.

    Official clients poll a sub-organization's activity with the parent's id, so an activity
    below the named organization is found too.
    """
    activity = q.store.activities.get(activity_id)
    if activity is not None:
        readable = {q.org.organization_id, q.target.organization_id}
        readable |= {o.organization_id for o in q.store.descendants(q.target.organization_id)}
        if activity.organization_id in readable:
            return activity
    raise NotFound(
        f"no activity found with id {activity_id} in organization {q.target.organization_id} or its sub-organizations",
        error_code="REQUEST_INVALID",
    )


def get_activity(q: QueryContext, body: Json) -> Json:
    """The activity; a poll also counts toward a scripted wait ("after N polls")."""
    activity = visible_activity(q, body["activityId"])
    lifecycle.count_poll(q.store, q.source, q.now_ms, activity, q.notify)
    return {"activity": activity.to_api(q.principal.user.user_id)}


def list_activities(q: QueryContext, body: Json) -> Json:
    statuses = set(body.get("filterByStatus") or [])
    types = set(body.get("filterByType") or [])
    newest_first = sorted(q.org.activities.values(), key=lambda a: (a.created_ms, a.activity_id), reverse=True)
    matching = [
        a for a in newest_first if (not statuses or a.status in statuses) and (not types or a.activity_type in types)
    ]
    page = paginate(matching, body.get("paginationOptions"), key=lambda a: a.activity_id)
    viewer = q.principal.user.user_id
    return {"activities": [a.to_api(viewer) for a in page]}


def get_policy_evaluations(q: QueryContext, body: Json) -> Json:
    activity = visible_activity(q, body["activityId"])
    return {"policyEvaluations": list(q.store.evaluations.get(activity.activity_id, []))}


def list_app_proofs(q: QueryContext, body: Json) -> Json:
    return {"appProofs": list(visible_activity(q, body["activityId"]).app_proofs)}
