"""Policies: expressions checked when created, evaluated by the consensus engine."""

from __future__ import annotations

from collections.abc import Collection

from simulator.errors import InvalidArgument
from simulator.handling.context import Context, require_unique
from simulator.handling.limits import check_limit
from simulator.policy.errors import PolicySyntaxError
from simulator.state.records import Policy
from simulator.wire import Json

MAX_POLICIES = 100
EXPRESSIONS = ("condition", "consensus")


def create_policy(ctx: Context, params: Json) -> Json:
    return {"policyId": add_policies(ctx, [params])[0].policy_id}


def create_policies(ctx: Context, params: Json) -> Json:
    return {"policyIds": [p.policy_id for p in add_policies(ctx, params["policies"])]}


def add_policies(ctx: Context, specs: list[Json], *, unknown_params_refused: bool = True) -> list[Policy]:
    """``unknown_params_refused=False`` (scenario files, which warn instead) stores a policy naming an
    ``activity.params`` field no activity type has; create_policy refuses it, as the service does."""
    check_limit(len(ctx.org.policies), len(specs), MAX_POLICIES, "policies")
    existing = [p.name for p in ctx.org.policies.values()]
    require_unique(existing, [s["policyName"] for s in specs], "policy label")
    for spec in specs:
        check_expressions(spec, unknown_params_in=EXPRESSIONS if unknown_params_refused else ())
    made = []
    for spec in specs:
        policy = Policy(
            policy_id=ctx.new_id(),
            name=spec["policyName"],
            effect=spec["effect"],
            created_ms=ctx.now_ms,
            notes=spec.get("notes", ""),
            condition=spec.get("condition", ""),
            consensus=spec.get("consensus", ""),
        )
        ctx.org.policies[policy.policy_id] = policy
        made.append(policy)
    return made


def check_expressions(spec: Json, *, unknown_params_in: Collection[str] = EXPRESSIONS) -> None:
    """Refuse a condition or consensus outside the language subset the simulator evaluates, or, for
    those in ``unknown_params_in``, naming an ``activity.params`` field that no activity type has
    (the message lists those that exist)."""
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.language import compile_expression
    from simulator.policy.params import unknown_paths

    for field in EXPRESSIONS:
        try:
            expression = compile_expression(spec.get(field, ""))
        except PolicySyntaxError as exc:
            raise InvalidArgument(f"invalid policy {field}: {exc}") from None
        problems = unknown_paths(expression.root) if field in unknown_params_in else []
        if problems:
            raise InvalidArgument(f"invalid policy {field}: {'; '.join(problems)}")


def delete_policies(ctx: Context, params: Json) -> Json:
    ids = params["policyIds"]
    ctx.existing(ctx.org.policies, ids, "policies")
    for policy_id in ids:
        del ctx.org.policies[policy_id]
    return {"policyIds": list(ids)}


def update_policy(ctx: Context, params: Json) -> Json:
    """Every field but the id is optional: what is given replaces what is stored."""
    policy = ctx.existing(ctx.org.policies, [params["policyId"]], "policy")[0]
    name = params.get("policyName")
    if name is not None and name != policy.name:
        require_unique([p.name for p in ctx.org.policies.values() if p is not policy], [name], "policy label")
    spec = {
        "condition": params.get("policyCondition", policy.condition),
        "consensus": params.get("policyConsensus", policy.consensus),
    }
    # only a text being replaced is refused for unknown activity.params fields: a scenario's policy that
    # loaded with a warning can still be renamed
    check_expressions(spec, unknown_params_in=[f for f in EXPRESSIONS if f"policy{f.title()}" in params])
    policy.name = name if name is not None else policy.name
    policy.effect = params.get("policyEffect", policy.effect)
    policy.notes = params.get("policyNotes", policy.notes)
    policy.condition, policy.consensus = spec["condition"], spec["consensus"]
    policy.updated_ms = ctx.now_ms
    return {"policyId": policy.policy_id}


def delete_policy(ctx: Context, params: Json) -> Json:
    policy_id = params["policyId"]
    ctx.existing(ctx.org.policies, [policy_id], "policy")
    del ctx.org.policies[policy_id]
    return {"policyId": policy_id}
