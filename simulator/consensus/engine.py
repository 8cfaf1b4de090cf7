"""The service's own semantics: the root quorum, then the organization's policies.

Order (https://docs.turnkey.com/features/policies/overview, the policy engine's evaluation order
and its implicit permissions; https://docs.turnkey.com/features/policies/language, Root quorum
activities; https://docs.turnkey.com/features/users/root-quorum): a root user's request is governed
by the root quorum (threshold 1 completes at once; more waits for distinct root approvals unless a
policy lets the user act alone); root-quorum-only activities are denied to everyone else; otherwise
any matching DENY policy denies, a matching ALLOW whose consensus is met allows, an ALLOW whose
consensus is not yet met needs consensus, and nothing matching is an implicit deny. Users may manage
their own credentials without a policy.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from simulator.consensus.decisions import Decision, Outcome
from simulator.handler_support.activity_view import policy_view
from simulator.operations.catalogue import Operation
from simulator.state.records import Policy, User
from simulator.state.store import Organization
from simulator.wire import Json

if TYPE_CHECKING:
    from simulator.policy.language import Expression

ALLOW, CONSENSUS, DENY = Outcome.ALLOW, Outcome.CONSENSUS, Outcome.DENY


def decide(
    org: Organization,
    user: User,
    spec: Operation,
    activity_type: str,
    params: Json,
    used: list[Json],
    extra: Json | None = None,
    *,
    now_ms: int | None = None,
) -> Decision:
    """The outcome of a new request by ``user`` (stamping with ``used``) under quorum and policies.

    ``now_ms`` is the trusted server time a policy's ``time`` field reads as ``time.now``."""
    is_root = user.user_id in org.root_user_ids
    if is_root and org.root_threshold <= 1:
        return Decision(ALLOW, [{"outcome": "OUTCOME_ALLOW"}], "the requester is a root user (quorum threshold 1)")
    if is_root:
        by_policy = evaluate_policies(org, spec, activity_type, params, [user], used, extra, now_ms=now_ms)
        if by_policy.outcome == ALLOW:
            return by_policy
        return Decision(
            CONSENSUS,
            [{"outcome": "OUTCOME_REQUIRES_CONSENSUS"}],
            f"root quorum: {org.root_threshold} of {len(org.root_user_ids)} root users must approve",
            {"by": "root", "eligible": list(org.root_user_ids), "threshold": org.root_threshold},
        )
    if spec.root_quorum_only:
        return Decision(
            DENY,
            [{"outcome": "OUTCOME_DENY_IMPLICIT"}],
            f"{spec.name} is a root-quorum-only activity and the requester is not a root user",
        )
    by_policy = evaluate_policies(org, spec, activity_type, params, [user], used, extra, now_ms=now_ms)
    if spec.own_credentials and params.get("userId") == user.user_id:
        # an implicit permission: it yields to a policy that explicitly denies (overview.mdx) this user
        if denies_the_requester(org, by_policy, user, used):
            return by_policy
        return Decision(ALLOW, [{"outcome": "OUTCOME_ALLOW"}], "users may manage their own credentials")
    return by_policy


def denies_the_requester(org: Organization, decision: Decision, user: User, used: list[Json]) -> bool:
    """Whether an explicit deny among ``decision``'s applies to ``user``: its consensus (who the policy is about)
    holds for them. A deny naming other users leaves their implicit right to their own credentials alone
    (policy-engine.mdx: "unless a policy explicitly allows or denies those actions"); one whose consensus errors
    counts as denying."""
    context = {"approvers": [approver(user)], "credentials": used}
    for evaluation in decision.evaluations:
        policy = org.policies.get(str(evaluation.get("policyId")))
        if evaluation.get("outcome") != "OUTCOME_DENY_EXPLICIT" or policy is None:
            continue
        verdict = expression(policy.consensus).check(context)
        if verdict.matched or verdict.errored:
            return True
    return False


def evaluate_policies(
    org: Organization,
    spec: Operation,
    activity_type: str,
    params: Json,
    approvers: list[User],
    used: list[Json],
    extra: Json | None = None,
    *,
    now_ms: int | None = None,
) -> Decision:
    """Every policy whose condition matches, and the outcome they add up to.

    ``approvers`` are the users who approved so far (the requester first); ``used`` the
    credentials their votes were stamped with (the language's ``credentials``); ``now_ms`` the
    time a ``time`` field reads as ``time.now``.
    """
    context = {
        **(extra or {}),
        "activity": policy_view(spec, activity_type, params),
        "approvers": [approver(u) for u in approvers],
        "credentials": used,
    }
    if now_ms is not None and any(p.time.strip() for p in org.policies.values()):
        from simulator.policy.time_window import Instant  # the policy language is not on serve's start path

        context["time"] = {"now": Instant(now_ms)}
    verdicts = [(p, *policy_verdict(p, context)) for p in org.policies.values()]

    def considered(always: bool) -> list[Json]:  # for explain: kept for a denial or an error only
        return [consideration(p, o, e, context) for p, o, e in verdicts] if always or errored else []

    outcomes = [(p, o) for p, o, _ in verdicts]
    ran = [{"policyId": p.policy_id, "outcome": o} for p, o in outcomes if o is not None]
    found = {o for _, o in outcomes}
    errored = [{"policyId": p.policy_id, "policyName": p.name, "reason": e} for p, _, e in verdicts if e]
    errors = "; ".join(f"policy {e['policyName']} errored: {e['reason']}" for e in errored)
    why = f" ({errors})" if errors else ""

    def names(wanted: str) -> str:
        return ", ".join(p.name for p, o in outcomes if o == wanted)

    if "OUTCOME_DENY_EXPLICIT" in found:
        return Decision(
            DENY,
            ran,
            f"denied by policy {names('OUTCOME_DENY_EXPLICIT')}{why}",
            errors=errored,
            considered=considered(True),
        )
    if "OUTCOME_ALLOW" in found:
        return Decision(
            ALLOW, ran, f"allowed by policy {names('OUTCOME_ALLOW')}{why}", errors=errored, considered=considered(False)
        )
    if "OUTCOME_REQUIRES_CONSENSUS" in found:
        return Decision(
            CONSENSUS,
            ran,
            f"policy {names('OUTCOME_REQUIRES_CONSENSUS')} needs more approvals{why}",
            {"by": "policy", "eligible": None},
            errors=errored,
            considered=considered(False),
        )
    implicit = ran or [{"outcome": "OUTCOME_DENY_IMPLICIT"}]
    return Decision(
        DENY, implicit, f"no policy allows it (implicit deny){why}", errors=errored, considered=considered(True)
    )


def consideration(policy: Policy, outcome: str | None, error: str | None, context: Json) -> Json:
    """How explain shows one policy the engine evaluated: outcome, and for an error its reason and clause."""
    from simulator.policy.lint import warnings_of  # the policy language is not on serve's start path

    shown: Json = {
        "policyId": policy.policy_id,
        "policyName": policy.name,
        "effect": policy.effect,
        "outcome": outcome or "NOT_APPLICABLE",
    }
    if error:
        shown["reason"] = error
        clause = failing_clause(policy, context)
        if clause:
            shown["clause"] = clause
    warnings = warnings_of({"condition": policy.condition, "consensus": policy.consensus, "time": policy.time})
    if warnings:
        shown["warnings"] = warnings
    return shown


def failing_clause(policy: Policy, context: Json) -> str | None:
    """The field and top-level clause whose evaluation errored, e.g. ``condition: private_key.id == 'k'``."""
    for field, text in (("time", policy.time), ("condition", policy.condition), ("consensus", policy.consensus)):
        try:
            clause = expression(text).failing_clause(context, strict_targets=field == "condition")
        except ValueError:
            return None
        if clause:
            return f"{field}: {clause}"
    return None


def policy_outcome(policy: Policy, context: Json) -> str | None:
    """OUTCOME_* for a policy whose condition matches the activity, None when it does not apply."""
    return policy_verdict(policy, context)[0]


def policy_verdict(policy: Policy, context: Json) -> tuple[str | None, str | None]:
    """OUTCOME_* for a policy whose condition matches (None when it does not apply), and why it errored.

    A condition that reads a keyword the request does not provide (``eth.tx`` on a Solana
    signature) errors, as the real engine does: it does not short-circuit past it. A ``time`` field
    that evaluates false skips the policy, reported as OUTCOME_TIME_INACTIVE (time-based-policies.mdx).
    """
    if policy.time.strip():
        try:
            window = expression(policy.time).check(context)
        except ValueError as exc:
            return "OUTCOME_ERROR", str(exc)
        if window.errored:
            return "OUTCOME_ERROR", f"time: {window.error}"
        if not window.matched:
            return "OUTCOME_TIME_INACTIVE", None
    try:
        # strict targets: ``wallet.id`` on a private-key signature is a MissingField error, as in production
        condition = expression(policy.condition).check(context, strict_targets=True)
    except ValueError as exc:
        return "OUTCOME_ERROR", str(exc)
    if condition.errored or not condition.matched:
        return ("OUTCOME_ERROR" if condition.errored else None), condition.error
    if policy.effect == "EFFECT_DENY":
        return "OUTCOME_DENY_EXPLICIT", None
    consensus = expression(policy.consensus).check(context)
    if consensus.errored:
        return "OUTCOME_ERROR", consensus.error
    return ("OUTCOME_ALLOW" if consensus.matched else "OUTCOME_REQUIRES_CONSENSUS"), None


def consensus_met(
    org: Organization,
    governance: Json,
    spec: Operation,
    activity_type: str,
    params: Json,
    approvers: list[User],
    used: list[Json],
    requester_id: str | None,
    extra: Json | None = None,
    *,
    now_ms: int | None = None,
) -> bool:
    """Whether the approvals so far satisfy what the activity waits for."""
    ids = {u.user_id for u in approvers}
    if governance.get("by") == "root":  # the quorum as it is now: update_root_quorum may have changed it
        return len(ids & set(org.root_user_ids)) >= org.root_threshold
    if governance.get("by") == "rule":
        named = governance.get("approvers") or []
        if named:
            return set(named) <= ids
        return len(ids - {requester_id}) >= int(governance.get("approvals", 1))
    return evaluate_policies(org, spec, activity_type, params, approvers, used, extra, now_ms=now_ms).outcome == ALLOW


def approver(user: User) -> Json:
    return {"id": user.user_id, "tags": list(user.tag_ids), "email": user.email or "", "alias": user.name}


def credential(user: User, credential_id: str | None) -> list[Json]:
    """The policy language's view of the credential a vote was stamped with ([] when unstamped)."""
    key = user.api_keys.get(credential_id or "")
    if key is not None:
        return [
            {
                "id": key.api_key_id,
                "user_id": user.user_id,
                "type": key.credential_type,
                "credential_id": key.api_key_id,
                "public_key": key.public_key,
            }
        ]
    passkey = user.authenticators.get(credential_id or "")
    if passkey is not None:
        return [
            {
                "id": passkey.authenticator_id,
                "user_id": user.user_id,
                "type": "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
                "credential_id": passkey.credential_id,
                "public_key": passkey.cose_public_key,
            }
        ]
    return []


@lru_cache(maxsize=1024)
def expression(text: str) -> Expression:
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression

    return compile_expression(text)
