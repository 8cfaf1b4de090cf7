"""Why an activity is where it is: the rule or policies that decided, the votes, the steps.

A policy that errored (a keyword or an ``activity.params`` field the request does not have) is
kept among the steps when the activity is decided (:func:`error_note`); its evaluation in the
explanation carries that ``reason``. For a denied or errored activity each policy considered is kept
too (:func:`considered_note`) and shown under ``policies``: its outcome, the reason and the clause
that errored, and the warnings of a policy that cannot match as written. The wire's get_policy_evaluations keeps the service's shape.

Every key is camelCase. Each policy evaluation is in get_policy_evaluations' wire shape (``id``,
``activityId``, ``organizationId``, ``voteId``, ``policyEvaluations``, ``createdAt``); before 0.3 the
control API wrote the stored record's field names instead (``evaluation_id``, ``activity_id``,
``organization_id``, ``vote_id``, ``outcomes``, ``created_ms``), and those stay beside the camelCase
keys as deprecated aliases (:data:`DEPRECATED_EVALUATION_KEYS`), so code that read them keeps working.
"""

from __future__ import annotations

import json

from simulator.state.activity import Activity
from simulator.state.store import Store
from simulator.state.votes import Evaluation, wire
from simulator.wire import Json

ERROR_OUTCOME = "OUTCOME_ERROR"
CONSIDERED = "policy considered: "
# the old snake_case spelling of an evaluation -> the camelCase key whose value it repeats
DEPRECATED_EVALUATION_KEYS = {
    "evaluation_id": "id",
    "activity_id": "activityId",
    "organization_id": "organizationId",
    "vote_id": "voteId",
    "outcomes": "policyEvaluations",
}


def explain(store: Store, activity: Activity) -> Json:
    pending = activity.pending
    return {
        "activityId": activity.activity_id,
        "status": activity.status,
        "decidedBy": activity.decided_by,
        "waitingFor": {k: v for k, v in (pending.governance if pending else {}).items() if k != "credentials"},
        "votes": [{"userId": v["userId"], "selection": v["selection"]} for v in activity.votes],
        "policyEvaluations": evaluations(store, activity),
        "policies": considered(activity),
        "steps": list(activity.notes),
        "failure": activity.failure,
        "mfa": store.mfa_statuses.get(activity.activity_id, []),
    }


def error_note(error: Json) -> str:
    """The step that says why a policy errored: ``policy <id> errored: '<name>': <reason>``."""
    return f"policy {error['policyId']} errored: {error['policyName']!r}: {error['reason']}"


def considered_note(policy: Json) -> str:
    """The step that records one policy the engine considered for a denied or errored activity."""
    return CONSIDERED + json.dumps(policy, separators=(", ", ": "))


def considered(activity: Activity) -> list[Json]:
    """Each policy considered when a denied or errored activity was decided: its outcome, and for an
    error the reason and the clause (empty for an activity allowed without an error)."""
    return [json.loads(note[len(CONSIDERED) :]) for note in activity.notes if note.startswith(CONSIDERED)]


def evaluations(store: Store, activity: Activity) -> list[Json]:
    """The activity's policy evaluations in their wire shape, each OUTCOME_ERROR with its ``reason``,
    plus the deprecated snake_case aliases of a stored evaluation."""
    found = store.evaluations.get(activity.activity_id, [])
    prefixes = {
        o.get("policyId"): f"policy {o.get('policyId')} errored: "
        for e in found
        for o in e.get("policyEvaluations", [])
        if o.get("outcome") == ERROR_OUTCOME
    }
    notes = activity.notes
    reasons = {
        policy_id: next((n[len(prefix) :] for n in notes if n.startswith(prefix)), None)
        for policy_id, prefix in prefixes.items()
    }
    shown = []
    for e in found:
        view = wire(e)
        view["policyEvaluations"] = [
            {**o, "reason": reasons[o.get("policyId")]}
            if o.get("outcome") == ERROR_OUTCOME and reasons.get(o.get("policyId"))
            else dict(o)
            for o in view.get("policyEvaluations", [])
        ]
        if isinstance(e, Evaluation):  # what 0.2's control API showed; a dict from an old export had none
            view.update({old: view[new] for old, new in DEPRECATED_EVALUATION_KEYS.items()})
            view["created_ms"] = e.created_ms
        shown.append(view)
    return shown
