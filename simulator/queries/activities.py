"""Reads of activities, their policy evaluations and app proofs."""

from __future__ import annotations

from collections.abc import Callable

from simulator.consensus import lifecycle
from simulator.errors import NotFound
from simulator.handler_support.query_context import QueryContext
from simulator.queries.pagination import bad_cursor, page_options
from simulator.state.activity import Activity
from simulator.state.tables import ActivityTable
from simulator.state.votes import wire
from simulator.wire import Json


def visible_activity(q: QueryContext, activity_id: str) -> Activity:
    """An activity of the organization read, of the one named, or of a sub-organization of it.

    Official clients poll a sub-organization's activity with the parent's id, so an activity
    below the named organization is found too.
    """
    activity = q.store.activities.get(activity_id)
    if activity is not None and readable(q, activity.organization_id):
        return activity
    raise NotFound(
        f"no activity found with id {activity_id} in organization {q.target.organization_id} or its sub-organizations",
        error_code="REQUEST_INVALID",
    )


def readable(q: QueryContext, organization_id: str) -> bool:
    if organization_id in (q.org.organization_id, q.target.organization_id):
        return True
    return any(o.organization_id == organization_id for o in q.store.descendants(q.target.organization_id))


def get_activity(q: QueryContext, body: Json) -> Json:
    """The activity; a poll also counts toward a scripted wait ("after N polls")."""
    activity = visible_activity(q, body["activityId"])
    lifecycle.count_poll(q.store, q.source, q.now_ms, activity, q.notify)
    return {"activity": activity.to_api(q.principal.user.user_id, q.now_ms)}


def list_activities(q: QueryContext, body: Json) -> Json:
    """Newest first, filtered, one page: read from the organization's ordered table, so a page
    costs the same in an organization of ten activities as in one of a hundred thousand."""
    statuses = set(body.get("filterByStatus") or [])
    types = set(body.get("filterByType") or [])

    def matches(a: Activity) -> bool:
        return (not statuses or a.status in statuses) and (not types or a.activity_type in types)

    page = newest_first_page(q.org.activities, body.get("paginationOptions"), matches)
    viewer = q.principal.user.user_id
    return {"activities": [a.to_api(viewer, q.now_ms) for a in page]}


def newest_first_page(
    table: ActivityTable, options: Json | None, matches: Callable[[Activity], bool]
) -> list[Activity]:
    """``paginate`` over the matching activities newest first, walking out from the cursor only."""
    limit, after, before = page_options(options)
    oldest_first = table.ordered()
    if after or before:
        cursor = table.get(str(after or before))
        if cursor is None or not matches(cursor):
            raise bad_cursor("after" if after else "before", str(after or before))
        at = table.position(cursor)
        if after:  # older than the cursor
            return take(oldest_first, range(at - 1, -1, -1), matches, limit)
        return take(oldest_first, range(at + 1, len(oldest_first)), matches, limit)[::-1]
    return take(oldest_first, range(len(oldest_first) - 1, -1, -1), matches, limit)


def take(items: list[Activity], indexes: range, matches: Callable[[Activity], bool], limit: int) -> list[Activity]:
    found: list[Activity] = []
    for index in indexes:
        if matches(items[index]):
            found.append(items[index])
            if len(found) == limit:
                break
    return found


def get_policy_evaluations(q: QueryContext, body: Json) -> Json:
    activity = visible_activity(q, body["activityId"])
    return {"policyEvaluations": [wire(e) for e in q.store.evaluations.get(activity.activity_id, ())]}


def list_app_proofs(q: QueryContext, body: Json) -> Json:
    return {"appProofs": list(visible_activity(q, body["activityId"]).kept_proofs or ())}
