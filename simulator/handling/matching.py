"""What a scripted ``match`` selects: an activity's type or kind, organization, user, user tag and parameters.

Scenario rules, rate limits, long-tail status scripts and the chain stand-in all match requests
with this one function.
"""

from __future__ import annotations

from typing import Any

from simulator.handling.activity_view import kind_of
from simulator.state.records import User
from simulator.state.store import Organization
from simulator.wire import Json


def matches(match: Json, org: Organization, user: User, activity_type: str, params: Json) -> bool:
    types = match.get("type")
    if types is not None:
        wanted = [types] if isinstance(types, str) else types
        if activity_type not in wanted and kind_of(activity_type) not in wanted:
            return False
    if "organization" in match and match["organization"] not in (org.organization_id, org.name):
        return False
    if "user" in match and match["user"] not in (user.user_id, user.name):
        return False
    if "userTag" in match:
        names = {org.tags[t].name for t in user.tag_ids if t in org.tags} | set(user.tag_ids)
        if match["userTag"] not in names:
            return False
    return contains(params, match.get("parameters", {}))


def contains(actual: Any, wanted: Any) -> bool:
    """Whether ``wanted`` is a subset of ``actual`` (objects by key, everything else by equality)."""
    if isinstance(wanted, dict):
        return isinstance(actual, dict) and all(k in actual and contains(actual[k], v) for k, v in wanted.items())
    return bool(actual == wanted)
