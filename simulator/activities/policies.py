"""Policies: expressions checked when created, evaluated by the consensus engine."""

from __future__ import annotations

from simulator.activities.versions import adapted
from simulator.handler_support.context import Context, require_unique
from simulator.model.policy_records import (
    EXPRESSIONS,
    add_policies,
    check_expressions,
    check_time_allowed,
    log_warnings,
)
from simulator.wire import Json


@adapted
def create_policy(ctx: Context, params: Json) -> Json:
    return {"policyId": add_policies(ctx, [params])[0].policy_id}


def create_policies(ctx: Context, params: Json) -> Json:
    return {"policyIds": [p.policy_id for p in add_policies(ctx, params["policies"])]}


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
        "policyName": name or policy.name,
        "condition": params.get("policyCondition", policy.condition),
        "consensus": params.get("policyConsensus", policy.consensus),
        "time": params.get("time", policy.time),
    }
    if "time" in params:
        check_time_allowed(ctx, spec["time"])
    # only a text being replaced is refused for unknown activity.params fields and the field rules: a
    # scenario's policy that loaded with a warning can still be renamed
    replaced = [f for f in EXPRESSIONS if f"policy{f.title()}" in params]
    check_expressions(
        spec, unknown_params_in=replaced, field_rules_in=[*replaced, *(["time"] if "time" in params else [])]
    )
    log_warnings(spec)
    policy.name = name if name is not None else policy.name
    policy.effect = params.get("policyEffect", policy.effect)
    policy.notes = params.get("policyNotes", policy.notes)
    policy.condition, policy.consensus, policy.time = spec["condition"], spec["consensus"], spec["time"]
    policy.updated_ms = ctx.now_ms
    return {"policyId": policy.policy_id}


def delete_policy(ctx: Context, params: Json) -> Json:
    policy_id = params["policyId"]
    ctx.existing(ctx.org.policies, [policy_id], "policy")
    del ctx.org.policies[policy_id]
    return {"policyId": policy_id}
