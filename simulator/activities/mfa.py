"""MFA policies: per user, ordered, each naming the authentication steps an activity needs.

``applicable`` picks the policy the service enforces for an activity (the first by ``order``
whose condition holds); ``simulator.consensus.mfa_gate`` holds the activity in
ACTIVITY_STATUS_AUTHENTICATORS_NEEDED until approvals prove every step. A policy the user could
never satisfy is refused at creation (docs ``features/authentication/mfa/overview.mdx``).
"""

from __future__ import annotations

import json

from simulator.clock import Source
from simulator.errors import InvalidArgument, NotFound
from simulator.handler_support.context import Context
from simulator.model.mfa_policies import (
    METHOD_NAMES,
    OTP_TYPES,
    can_satisfy,
)
from simulator.policy.errors import PolicySyntaxError
from simulator.state.records import MfaPolicy, User
from simulator.wire import Json

MAX_MFA_POLICIES = 10


def create_mfa_policy(ctx: Context, params: Json) -> Json:
    user = ctx.user(params["userId"])
    if len(user.mfa_policies) >= MAX_MFA_POLICIES:
        raise InvalidArgument(f"user {user.user_id} has reached the limit of {MAX_MFA_POLICIES} MFA policies")
    name = unique_name(user, params["mfaPolicyName"], None)
    policy = MfaPolicy(
        mfa_policy_id=ctx.new_id(),
        name=name,
        condition=checked_condition(params["condition"]),
        required_methods=checked_methods(ctx, user, name, params["requiredAuthenticationMethods"]),
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
        methods = checked_methods(ctx, user, name, params["requiredAuthenticationMethods"])
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
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression

    try:
        compile_expression(condition)
    except PolicySyntaxError as exc:
        raise InvalidArgument(f"invalid MFA policy condition: {exc}") from None
    return condition


def prepare_order(source: Source, params: Json) -> None:
    """The catalogue's preparer: ``order`` in the intent as a decimal string before the activity is built,
    so an activity that waits (consensus, MFA) shows the intent the service would."""
    try:
        params["order"] = str(int(params["order"]))
    except (KeyError, TypeError, ValueError):
        return  # absent, or left for checked_order to refuse


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


def checked_methods(ctx: Context, user: User, name: str, steps: list[Json]) -> list[Json]:
    """Each step offers one or more methods; the user must hold a credential for one of them today."""
    if not steps or any(not step["any"] for step in steps):
        raise InvalidArgument("requiredAuthenticationMethods needs at least one step, each with at least one method")
    checked = [{"any": [checked_method(method) for method in step["any"]]} for step in steps]
    for step in checked:
        if not any(can_satisfy(ctx, user, method) for method in step["any"]):
            names = json.dumps([METHOD_NAMES.get(m["type"], m["type"]) for m in step["any"]])
            raise InvalidArgument(
                f"user ({user.user_id}) cannot satisfy mfa policy requirement: mfa policy '{name}' requires one of "
                f"{names} but user does not, or will not, have a matching credential"
            )
    return checked


def checked_method(method: Json) -> Json:
    kind, pinned = method["type"], method.get("id")
    if kind in OTP_TYPES and pinned:
        raise InvalidArgument(f"{kind} takes no id: the code goes to the user's own contact")
    return {"type": kind, "id": pinned} if pinned else {"type": kind}
