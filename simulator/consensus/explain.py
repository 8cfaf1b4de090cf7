"""Why an activity is where it is: the rule or policies that decided, the votes, the steps."""

from __future__ import annotations

from simulator.state.activity import Activity
from simulator.state.store import Store
from simulator.wire import Json


def explain(store: Store, activity: Activity) -> Json:
    pending = activity.pending
    return {
        "activityId": activity.activity_id,
        "status": activity.status,
        "decidedBy": activity.decided_by,
        "waitingFor": {k: v for k, v in (pending.governance if pending else {}).items() if k != "credentials"},
        "votes": [{"userId": v["userId"], "selection": v["selection"]} for v in activity.votes],
        "policyEvaluations": store.evaluations.get(activity.activity_id, []),
        "steps": list(activity.notes),
        "failure": activity.failure,
        "mfa": store.mfa_statuses.get(activity.activity_id, []),
    }
