"""MFA policies as the gate and the handlers read them: the authentication methods, whether a user
can satisfy one, and which policy applies to an activity.

``applicable`` picks the policy the service enforces for an activity (the first by ``order`` whose
condition holds); ``simulator.consensus.mfa_gate`` holds the activity in
ACTIVITY_STATUS_AUTHENTICATORS_NEEDED until approvals prove every step; the MFA handlers
(``simulator.activities.mfa``) refuse a policy the user could never satisfy (``can_satisfy``).
"""

from __future__ import annotations

from simulator.handler_support import session_scope
from simulator.handler_support.context import Context
from simulator.policy.errors import PolicyEvaluationError
from simulator.state.records import MfaPolicy, User
from simulator.wire import Json

API_KEY, PASSKEY, SESSION = "AUTHENTICATION_TYPE_API_KEY", "AUTHENTICATION_TYPE_PASSKEY", "AUTHENTICATION_TYPE_SESSION"
EMAIL_OTP, SMS_OTP, OAUTH = "AUTHENTICATION_TYPE_EMAIL_OTP", "AUTHENTICATION_TYPE_SMS_OTP", "AUTHENTICATION_TYPE_OAUTH"
OTP_TYPES = (EMAIL_OTP, SMS_OTP)
METHOD_NAMES = {
    API_KEY: "API key",
    PASSKEY: "Passkey",
    SESSION: "Session",
    EMAIL_OTP: "Email OTP",
    SMS_OTP: "SMS OTP",
    OAUTH: "OAuth",
}
# the read/write session a login issues without a session profile (docs: mfa/examples.mdx)
DEFAULT_SESSION_PROFILE = "00000000-0000-0000-0000-000000000000"
LONG_LIVED_KEY_PREFIX = "CREDENTIAL_TYPE_API_KEY_"  # login, OTP and OAuth keys are sessions


def can_satisfy(ctx: Context, user: User, method: Json) -> bool:
    """Whether the user holds what the method asks for (a pinned id: that very credential)."""
    kind, pinned = method["type"], method.get("id")
    if kind == EMAIL_OTP:
        return bool(user.email)
    if kind == SMS_OTP:
        return bool(user.phone_number)
    if kind == SESSION:  # a session is always obtainable; a pinned profile must exist
        known = {p.session_profile_id for p in session_scope.visible(ctx.store, ctx.org)}
        return not pinned or pinned in known | {DEFAULT_SESSION_PROFILE}
    held = {
        API_KEY: {k.api_key_id for k in user.api_keys.values() if k.credential_type.startswith(LONG_LIVED_KEY_PREFIX)},
        PASSKEY: set(user.authenticators),
        OAUTH: {str(p.get("providerId")) for p in user.oauth_providers},
    }.get(kind, set())
    return pinned in held if pinned else bool(held)


def applicable(user: User, context: Json) -> MfaPolicy | None:
    """The policy the service would enforce: the first by order whose condition holds for ``context``
    (the policy language's view of the activity); a condition that fails to evaluate does not hold."""
    if not user.mfa_policies:
        return None
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression

    for policy in sorted(user.mfa_policies.values(), key=lambda p: (p.order, p.created_ms)):
        try:
            if compile_expression(policy.condition).evaluate(context):
                return policy
        except (PolicyEvaluationError, ValueError):
            continue
    return None
