"""What the inspector shows of activities: a filtered list, newest first, and each one's story."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from simulator.consensus.explain import explain
from simulator.state.activity import Activity
from simulator.state.store import Store
from simulator.wire import Json

RULE_PREFIX = "scenario rule "


@dataclass(frozen=True)
class Filters:
    """The list's filters; an empty one matches everything."""

    status: str = ""
    activity_type: str = ""
    organization_id: str = ""
    limit: int = 500

    def match(self, activity: Activity) -> bool:
        return (
            self.status in ("", activity.status)
            and self.activity_type in ("", activity.activity_type)
            and self.organization_id in ("", activity.organization_id)
        )


def listing(store: Store, filters: Filters) -> Json:
    """The matching activities newest first (by time, then by arrival: a frozen clock gives many the same
    time), and what the filters may choose."""
    arrived = list(store.activities.values())
    order = sorted(range(len(arrived)), key=lambda i: (arrived[i].created_ms, i), reverse=True)
    everything = [arrived[i] for i in order]
    matching = [a for a in everything if filters.match(a)]
    return {
        "total": len(matching),
        "activities": [row(store, a) for a in matching[: filters.limit]],
        "statuses": sorted({a.status for a in everything}),
        "types": sorted({a.activity_type for a in everything}),
        "organizations": sorted({a.organization_id for a in everything}),
    }


def row(store: Store, activity: Activity) -> Json:
    return {
        "id": activity.activity_id,
        "organizationId": activity.organization_id,
        "organizationName": org_name(store, activity.organization_id),
        "type": activity.activity_type,
        "status": activity.status,
        "createdMs": activity.created_ms,
        "updatedMs": activity.updated_ms or activity.created_ms,
        "requester": user_ref(store, activity.organization_id, activity.requester_id),
        "decidedBy": activity.decided_by,
    }


def org_name(store: Store, organization_id: str) -> str | None:
    org = store.orgs.get(organization_id)
    return org.name if org else None


def user_ref(store: Store, organization_id: str, user_id: str | None) -> Json | None:
    if user_id is None:
        return None
    org = store.orgs.get(organization_id)
    user = org.users.get(user_id) if org else None
    return {"userId": user_id, "userName": user.name if user else None}


@dataclass
class Extras:
    """What the story takes from beyond the store: scripted rules, the journal, the timed request log."""

    rules: list[Json] = field(default_factory=list)
    journal: list[Json] = field(default_factory=list)
    duration_ms: float | None = None


def story(store: Store, activity: Activity, extras: Extras) -> Json:
    """Everything about one activity: request, stamp, votes, policy evaluations, rule, result, timings."""
    return {
        "activity": activity.to_api(),
        "organizationName": org_name(store, activity.organization_id),
        "requester": user_ref(store, activity.organization_id, activity.requester_id),
        "stamp": stamp_of(activity),
        "request": request_of(activity, extras.journal),
        "explanation": explanation(store, activity),
        "policies": policies_named(store, activity),
        "rule": rule_of(activity, extras.rules),
        "voters": voters(store, activity),
        "timings": {
            "createdMs": activity.created_ms,
            "updatedMs": activity.updated_ms or activity.created_ms,
            "timestampMs": activity.timestamp_ms,
            "requestDurationMs": extras.duration_ms,
        },
    }


def explanation(store: Store, activity: Activity) -> Json:
    """``explain``, with each evaluation in its wire shape (stored evaluations may be records, not dicts)."""
    explained = explain(store, activity)
    explained["policyEvaluations"] = [dict(e) for e in explained.get("policyEvaluations", [])]
    return explained


def stamp_of(activity: Activity) -> Json | None:
    """The requester's stamp, as its vote keeps it: the key (or passkey) and the scheme."""
    mine = [v for v in activity.votes if v.get("userId") == activity.requester_id] or activity.votes[:1]
    if not mine:
        return None
    vote = mine[0]
    return {
        "userId": vote.get("userId"),
        "userName": (vote.get("user") or {}).get("userName"),
        "publicKey": vote.get("publicKey"),
        "scheme": vote.get("scheme"),
        "credentialId": vote.get("credentialId"),
    }


def request_of(activity: Activity, journal: list[Json]) -> Json | None:
    """The request body: from the journal, else from the requester's signed vote message."""
    for entry in journal:
        if (entry.get("outcome") or {}).get("activityId") == activity.activity_id:
            return {"source": "journal", "body": entry.get("request")}
    for vote in activity.votes:
        if vote.get("userId") == activity.requester_id and isinstance(vote.get("message"), str):
            try:
                return {"source": "stamp", "body": json.loads(vote["message"])}
            except ValueError:
                return {"source": "stamp", "body": vote["message"]}
    return None


def policies_named(store: Store, activity: Activity) -> list[Json]:
    """The policies the evaluations name, with their source text (condition and consensus)."""
    org = store.orgs.get(activity.organization_id)
    named: dict[str, Json] = {}
    for evaluation in store.evaluations.get(activity.activity_id, []):
        for outcome in evaluation.get("policyEvaluations", []):
            policy_id = outcome.get("policyId")
            if policy_id and policy_id not in named:
                policy = org.policies.get(policy_id) if org else None
                named[policy_id] = policy.to_api() if policy else {"policyId": policy_id, "deleted": True}
    return list(named.values())


def rule_of(activity: Activity, rules: list[Json]) -> Json | None:
    """The scripted scenario rule that decided, when one did."""
    if not activity.decided_by.startswith(RULE_PREFIX):
        return None
    name = activity.decided_by[len(RULE_PREFIX) :].strip("'\"")
    return next((rule for rule in rules if str(rule.get("name")) == name), {"name": name})


def voters(store: Store, activity: Activity) -> list[Json]:
    """The organization's users, and whether each may still approve or reject (for the buttons)."""
    org = store.orgs.get(activity.organization_id)
    if org is None:
        return []
    voted = {v.get("userId"): v.get("selection") for v in activity.votes}
    return [
        {"userId": uid, "userName": user.name, "canVote": activity.can_vote(uid), "voted": voted.get(uid)}
        for uid, user in org.users.items()
    ]
