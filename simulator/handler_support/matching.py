"""What a scripted ``match`` selects: an activity's type or kind, organization, user, user tag and parameters.

Scenario rules, rate limits, long-tail status scripts and the chain stand-in all match requests
with ``matches``; rules and both kinds of status scripts pick the script that answers with
``first_script`` (first match decides; ``occurrence`` and ``times`` count the script's matches).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from simulator.operations.activity_types import kind_of
from simulator.state.records import User
from simulator.state.store import Organization, Store
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


def first_script(
    scripts: Iterable[Json],
    counter: str,
    store: Store,
    org: Organization,
    user: User,
    activity_type: str,
    params: Json,
    accept: Callable[[Json], bool] | None = None,
) -> Json | None:
    """The first script whose ``match`` applies to this request and whose turn it is, or None.

    Each match counts in ``store.rule_hits[counter + name]`` (a reset clears the counts); a script
    with ``match.occurrence`` answers only its n-th match, one with ``times`` only its first n;
    ``accept`` (a rule's ``probability``) is asked last.
    """
    for script in scripts:
        if not matches(script.get("match", {}), org, user, activity_type, params):
            continue
        key = counter + script["name"]
        hits = store.rule_hits[key] = store.rule_hits.get(key, 0) + 1
        wanted = script.get("match", {}).get("occurrence")
        if (wanted is not None and hits != wanted) or ("times" in script and hits > script["times"]):
            continue
        if accept is not None and not accept(script):
            continue
        return script
    return None
