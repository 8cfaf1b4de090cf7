"""Scripted outcomes: scenario ``rules`` that override the real semantics for what they match.

Rules are tried in file order and the first that matches decides (first-match). A rule's
``occurrence`` (the n-th matching request only), ``times`` (the first N only) and
``probability`` (under the run's seed) narrow it; its counters live in the store, so a reset
starts them again.
"""

from __future__ import annotations

from simulator.clock import Source
from simulator.consensus.decisions import Decision, Outcome, Wait
from simulator.errors import InvalidArgument
from simulator.handler_support.matching import first_script
from simulator.state.records import User
from simulator.state.store import Organization, Store
from simulator.wire import Json

OUTCOMES = {
    "allow": "OUTCOME_ALLOW",
    "consensus": "OUTCOME_REQUIRES_CONSENSUS",
    "reject": "OUTCOME_REJECTED",
    "fail": "OUTCOME_ERROR",
}


def scripted(
    rules: list[Json], store: Store, source: Source, org: Organization, user: User, activity_type: str, params: Json
) -> Decision | None:
    """The decision of the first rule that applies to this request, or None."""
    # rateLimited rules are answered earlier, right after authentication (consensus/throttle)
    deciding = (rule for rule in rules if rule["outcome"] != "rateLimited")

    def drawn(rule: Json) -> bool:
        return "probability" not in rule or source.randbelow(1_000_000) < rule["probability"] * 1_000_000

    rule = first_script(deciding, "", store, org, user, activity_type, params, drawn)
    return None if rule is None else decision(rule, org, user)


def decision(rule: Json, org: Organization, user: User) -> Decision:
    outcome = Outcome(rule["outcome"])
    by = f"scenario rule {rule['name']!r}"
    wait = Wait.from_rule(rule.get("after"))
    if outcome is Outcome.DENY:
        return Decision(outcome, denial(rule, org), by)
    evaluations = [{"outcome": OUTCOMES[outcome.value]}]
    if outcome is Outcome.CONSENSUS:
        named = user_ids(org, rule.get("approvers", []))
        governance = {
            "by": "rule",
            "approvers": named,
            "approvals": rule.get("approvals", 1),
            "eligible": named or None,
        }
        return Decision(outcome, evaluations, by, governance, wait=wait)
    failure = None
    if outcome is Outcome.FAIL:
        spec = rule.get("failure", {})
        failure = {
            "code": spec.get("code", 13),
            "message": spec.get("message", f"activity failed ({by})"),
            "details": [],
        }
    return Decision(outcome, evaluations, by, failure=failure, wait=wait)


def denial(rule: Json, org: Organization) -> list[Json]:
    deny = rule.get("deny", {})
    if deny.get("kind", "explicit") == "implicit":
        return [{"outcome": "OUTCOME_DENY_IMPLICIT"}]
    named = deny.get("policies", [])
    found = [p for p in org.policies.values() if p.policy_id in named or p.name in named]
    if not found:
        return [{"outcome": "OUTCOME_DENY_EXPLICIT"}]
    return [{"policyId": p.policy_id, "outcome": "OUTCOME_DENY_EXPLICIT"} for p in found]


def user_ids(org: Organization, refs: list[str]) -> list[str]:
    """Approver names or ids as user ids of the activity's organization."""
    found = []
    for ref in refs:
        match = [u.user_id for u in org.users.values() if ref in (u.user_id, u.name)]
        if not match:
            raise InvalidArgument(
                f"scenario rule names approver {ref!r}, who is not a user of organization {org.organization_id}"
            )
        found.append(match[0])
    return found
