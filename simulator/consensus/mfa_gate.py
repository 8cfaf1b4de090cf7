"""MFA enforcement: who must prove what before an activity (or a vote on it) goes on.

The requester's applicable MFA policy (``mfa_policies.applicable``) is checked against the credential
their request was stamped with; a step it does not cover holds the activity in
ACTIVITY_STATUS_AUTHENTICATORS_NEEDED. Each later APPROVE_ACTIVITY the same user stamps proves
one more method: an API key (X-Stamp with a long-lived key), a passkey (X-Stamp-WebAuthn), a
session (X-Stamp with a login's key, ``id`` = its session profile), an email or SMS OTP or an
OAuth identity (X-Stamp-Attested). A credential is never used up: every step is checked
against everything shown so far (docs ``features/authentication/mfa/overview.mdx``,
``satisfying-mfa.mdx``). A voter on a CONSENSUS_NEEDED activity is held the same way, and their
vote counts once their own steps are met.

``store.mfa_statuses[activity_id]`` keeps one record per challenged user in the wire shape of
get_mfa_status; a user whose first stamp already satisfies the policy is never challenged.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from simulator.auth import Principal
from simulator.auth.attested import audience
from simulator.auth.stamps import ATTESTED_TOKEN, Stamp
from simulator.consensus.decisions import Decision, Outcome, Wait
from simulator.crypto import tokens
from simulator.errors import PermissionDenied
from simulator.handler_support.activity_view import policy_view
from simulator.model import mfa_policies
from simulator.operations import catalogue
from simulator.operations.catalogue import Kind
from simulator.state.activity import CONSENSUS_NEEDED, Activity, ActivityStatus
from simulator.state.records import User
from simulator.state.store import Store
from simulator.wire import Json

AUTHENTICATORS_NEEDED = ActivityStatus.AUTHENTICATORS_NEEDED.value


def context_of(activity: Activity) -> Json:
    """What an MFA policy's condition reads: the activity as the policy language sees it."""
    pending = activity.pending
    assert pending is not None
    spec = catalogue.get(Kind.SUBMIT, pending.op)
    assert spec is not None, pending.op
    return {**pending.policy_context, "activity": policy_view(spec, activity.activity_type, pending.params)}


def hold(activity: Activity, decision: Decision) -> None:
    """The requester's MFA comes first; the decision waits for it (as plain JSON: state exports keep it)."""
    assert activity.pending is not None
    wait = asdict(decision.wait) if decision.wait else None
    activity.pending.mfa_hold = {"outcome": decision.outcome.value, "failure": decision.failure, "wait": wait}
    activity.status = AUTHENTICATORS_NEEDED
    activity.notes.append(f"waiting for the requester's MFA before: {decision.outcome.value}")


def release(activity: Activity) -> Decision:
    """The decision a held activity waited with; the hold is over."""
    pending = activity.pending
    assert pending is not None and pending.mfa_hold is not None
    held, pending.mfa_hold = pending.mfa_hold, None
    wait = Wait(**held["wait"]) if held["wait"] else None
    activity.notes.append("the requester's MFA is satisfied")
    return Decision(Outcome(held["outcome"]), [], activity.decided_by, failure=held["failure"], wait=wait)


def presented(principal: Principal | None) -> Json | None:
    """The authentication method a request's stamp proves, as ``{"type", "id"?}`` (None: no stamp)."""
    if principal is None or principal.stamp is None:
        return None
    stamp, user = principal.stamp, principal.user
    if stamp.attestation is not None:
        return attested_method(user, stamp)
    if stamp.webauthn is not None:
        return method(mfa_policies.PASSKEY, principal.credential_id)
    key = user.api_keys.get(principal.credential_id or "")
    if key is None:
        return None
    if key.credential_type.startswith(mfa_policies.LONG_LIVED_KEY_PREFIX):
        return method(mfa_policies.API_KEY, key.api_key_id)
    # sessions are not transitive: a login's key proves the session, never the factor behind it
    return method(mfa_policies.SESSION, key.session_profile_id or mfa_policies.DEFAULT_SESSION_PROFILE)


def attested_method(user: User, stamp: Stamp) -> Json:
    """An OTP verification token proves its channel; an OIDC token the user's OAuth provider it names."""
    assert stamp.attestation is not None
    claims = tokens.claims_of(stamp.attestation)  # verified when the request was authenticated
    if stamp.scheme == ATTESTED_TOKEN:
        return method(
            mfa_policies.SMS_OTP if claims.get("verification_type") == "OTP_TYPE_SMS" else mfa_policies.EMAIL_OTP, None
        )
    wanted = (claims.get("iss"), claims.get("sub"), audience(claims))
    provider = next((p for p in user.oauth_providers if (p["issuer"], p["subject"], p["audience"]) == wanted), None)
    return method(mfa_policies.OAUTH, provider.get("providerId") if provider else None)


def method(kind: str, pinned: str | None) -> Json:
    return {"type": kind, "id": pinned} if pinned else {"type": kind}


def matches(required: Json, shown: Json) -> bool:
    return bool(required["type"] == shown["type"] and (not required.get("id") or required["id"] == shown.get("id")))


def step_met(step: Json, shown: list[Json]) -> bool:
    return any(matches(required, s) for required in step["any"] for s in shown)


def record_shown(status: Json, shown: Json | None) -> bool:
    """Count ``shown`` toward the status if it meets some step; whether it did."""
    useful = shown is not None and any(matches(r, shown) for step in status["requiredMethods"] for r in step["any"])
    if useful and shown not in status["satisfiedMethods"]:
        status["satisfiedMethods"].append(shown)
    status["satisfied"] = all(step_met(step, status["satisfiedMethods"]) for step in status["requiredMethods"])
    return useful


def challenge(store: Store, activity: Activity, principal: Principal | None) -> bool:
    """Whether the principal's MFA policy for the activity holds them back (then their status is recorded)."""
    if principal is None or not principal.user.mfa_policies:
        return False
    policy = mfa_policies.applicable(principal.user, context_of(activity))
    if policy is None:
        return False
    status: Json = {
        "mfaPolicyId": policy.mfa_policy_id,
        "userId": principal.user.user_id,
        "satisfied": False,
        "satisfiedMethods": [],
        "requiredMethods": json.loads(json.dumps(policy.required_methods)),  # as enforced, whatever edits follow
    }
    record_shown(status, presented(principal))
    if status["satisfied"]:
        return False
    store.mfa_statuses.setdefault(activity.activity_id, []).append(status)
    return True


def open_status(store: Store, activity_id: str, user_id: str) -> Json | None:
    """The user's unmet MFA status on the activity, if they are being held."""
    held = (s for s in store.mfa_statuses.get(activity_id, []) if s["userId"] == user_id and not s["satisfied"])
    return next(held, None)


def vote_held(store: Store, activity: Activity, user_id: str) -> bool:
    """Whether the user's approval of an activity awaiting consensus waits for their own MFA."""
    return activity.status == CONSENSUS_NEEDED and open_status(store, activity.activity_id, user_id) is not None


def satisfy(store: Store, activity_id: str, principal: Principal) -> bool:
    """An approval by a held user: its stamp must meet a step; whether all are met now."""
    status = open_status(store, activity_id, principal.user.user_id)
    assert status is not None
    shown = presented(principal)
    if not record_shown(status, shown):
        raise PermissionDenied(
            f"the approval's credential ({describe(shown) if shown else 'no stamp'}) meets no step of MFA policy {status['mfaPolicyId']} "
            f"on activity {activity_id}; still needed: {remaining(status)}"
        )
    return bool(status["satisfied"])


def remaining(status: Json) -> str:
    """The unmet steps, each as the methods that would meet it."""
    unmet = [step for step in status["requiredMethods"] if not step_met(step, status["satisfiedMethods"])]
    return "; ".join(" or ".join(describe(r) for r in step["any"]) for step in unmet) or "nothing"


def describe(required: Json) -> str:
    name = str(mfa_policies.METHOD_NAMES.get(required["type"], required["type"]))
    return f"{name} {required['id']}" if required.get("id") else name
