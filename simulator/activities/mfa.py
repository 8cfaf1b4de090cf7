"""MFA policies: per user, ordered, each naming the authentication steps an activity needs.

``applicable`` picks the policy the service enforces for an activity (the first by ``order``
whose condition holds); the simulator stores and evaluates policies but does not yet hold
activities in ACTIVITY_STATUS_AUTHENTICATORS_NEEDED (the catalogue marks these partial).
"""

from __future__ import annotations

from simulator.activities.context import Context, Json
from simulator.errors import InvalidArgument, NotFound
from simulator.policy.language import PolicyEvaluationError, PolicySyntaxError, compile_expression
from simulator.state.records import MfaPolicy, User

MAX_MFA_POLICIES = 10
OTP_TYPES = ("AUTHENTICATION_TYPE_EMAIL_OTP", "AUTHENTICATION_TYPE_SMS_OTP")


def create_mfa_policy(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    if len(user.mfa_policies) >= MAX_MFA_POLICIES:
        raise InvalidArgument(f"user {user.user_id} has reached the limit of {MAX_MFA_POLICIES} MFA policies")
    policy = MfaPolicy(
        mfa_policy_id=ctx.new_id(),
        name=unique_name(user, params["mfaPolicyName"], None),
        condition=checked_condition(params["condition"]),
        required_methods=checked_methods(ctx, user, params["requiredAuthenticationMethods"]),
        order=checked_order(params),
        created_ms=ctx.now_ms,
        notes=params.get("notes", ""),
    )
    user.mfa_policies[policy.mfa_policy_id] = policy
    return {"mfaPolicyId": policy.mfa_policy_id}


def update_mfa_policy(ctx: Context, params: Json) -> Json:
    """Every field but the ids is optional: what is given replaces what is stored."""
    user = ctx.user(params["userId"])
    policy = find(user, params["mfaPolicyId"])
    name = unique_name(user, params["mfaPolicyName"], policy) if "mfaPolicyName" in params else policy.name
    condition = checked_condition(params["condition"]) if "condition" in params else policy.condition
    methods = policy.required_methods
    if "requiredAuthenticationMethods" in params:
        methods = checked_methods(ctx, user, params["requiredAuthenticationMethods"])
    order = checked_order(params) if "order" in params else policy.order
    policy.name, policy.condition, policy.required_methods, policy.order = name, condition, methods, order
    policy.notes = params.get("notes", policy.notes)
    policy.updated_ms = ctx.now_ms
    return {"mfaPolicyId": policy.mfa_policy_id}


def delete_mfa_policy(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    policy = find(user, params["mfaPolicyId"])
    del user.mfa_policies[policy.mfa_policy_id]
    return {"mfaPolicyId": policy.mfa_policy_id}


def find(user: User, mfa_policy_id: str) -> MfaPolicy:
    try:
        return user.mfa_policies[mfa_policy_id]
    except KeyError:
        raise NotFound(
            f"MFA policy {mfa_policy_id} not found for user {user.user_id}", error_code="REQUEST_INVALID"
        ) from None


def unique_name(user: User, name: str, current: MfaPolicy | None) -> str:
    if not name.strip():
        raise InvalidArgument("mfaPolicyName must not be empty")
    if any(p.name == name and p is not current for p in user.mfa_policies.values()):
        raise InvalidArgument(f"MFA policy name must be unique for the user: {name!r} already used")
    return name


def checked_condition(condition: str) -> str:
    try:
        compile_expression(condition)
    except PolicySyntaxError as exc:
        raise InvalidArgument(f"invalid MFA policy condition: {exc}") from None
    return condition


def checked_order(params: Json) -> int:
    """``order`` is an int64: the service echoes it in the intent as a decimal string, whichever form
    came, so it is rewritten in place (``params`` is the intent the envelope shows)."""
    order = params["order"]
    try:
        value = int(order)
    except ValueError:
        value = -1
    if value < 0:
        raise InvalidArgument(f"invalid MFA policy order {order!r}: expected a non-negative integer")
    params["order"] = str(value)
    return value


def checked_methods(ctx: Context, user: User, steps: list[Json]) -> list[Json]:
    """Each step offers one or more methods; a pinned id must be the user's own credential."""
    if not steps or any(not step["any"] for step in steps):
        raise InvalidArgument("requiredAuthenticationMethods needs at least one step, each with at least one method")
    return [{"any": [checked_method(user, method) for method in step["any"]]} for step in steps]


def checked_method(user: User, method: Json) -> Json:
    kind, pinned = method["type"], method.get("id")
    if kind in OTP_TYPES and pinned:
        raise InvalidArgument(f"{kind} takes no id: the code goes to the user's own contact")
    contact = {"AUTHENTICATION_TYPE_EMAIL_OTP": user.email, "AUTHENTICATION_TYPE_SMS_OTP": user.phone_number}
    if kind in contact and not contact[kind]:
        raise InvalidArgument(f"{kind} needs the user to have an {'email' if 'EMAIL' in kind else 'phone number'}")
    owned = {
        "AUTHENTICATION_TYPE_API_KEY": set(user.api_keys),
        "AUTHENTICATION_TYPE_PASSKEY": set(user.authenticators),
        "AUTHENTICATION_TYPE_OAUTH": {p["providerId"] for p in user.oauth_providers},
    }
    if pinned and kind in owned and pinned not in owned[kind]:
        raise NotFound(
            f"{kind} id {pinned} is not a credential of user {user.user_id}", error_code="CREDENTIAL_NOT_FOUND"
        )
    return {"type": kind, "id": pinned} if pinned else {"type": kind}


def applicable(user: User, context: Json) -> MfaPolicy | None:
    """The policy the service would enforce: the first by order whose condition holds for ``context``
    (the policy language's view of the activity); a condition that fails to evaluate does not hold."""
    for policy in sorted(user.mfa_policies.values(), key=lambda p: (p.order, p.created_ms)):
        try:
            if compile_expression(policy.condition).evaluate(context):
                return policy
        except (PolicyEvaluationError, ValueError):
            continue
    return None
