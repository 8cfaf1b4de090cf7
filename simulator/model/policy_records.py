"""Policies as they are made: checked (limits, unique labels, expressions, the time field) and added to
an organization, by create_policy / create_policies, the scenario seed and the auth proxy's
configurations. The consensus engine evaluates them."""

from __future__ import annotations

import logging
from collections.abc import Collection

from simulator.errors import InvalidArgument
from simulator.handler_support.context import Context, require_unique
from simulator.handler_support.limits import check_limit
from simulator.policy.errors import PolicySyntaxError
from simulator.state.records import Policy
from simulator.wire import Json

LOG = logging.getLogger("simulator.policies")
MAX_POLICIES = 100
EXPRESSIONS = ("condition", "consensus")
# The time field is early access in the service, enabled per organization by Turnkey
# (time-based-policies.mdx); the simulator's stand-in for that switch is this feature name, set in a
# scenario's organization `features` (docs/ledger/time-based-policies-feature.md).
TIME_FEATURE = "FEATURE_NAME_TIME_BASED_POLICIES"


def add_policies(ctx: Context, specs: list[Json], *, unknown_params_refused: bool = True) -> list[Policy]:
    """``unknown_params_refused=False`` (scenario files, which warn instead) stores a policy naming an
    ``activity.params`` field no activity type has, a double-quoted string or a keyword of another
    field; create_policy refuses those, as the service does."""
    check_limit(len(ctx.org.policies), len(specs), MAX_POLICIES, "policies")
    existing = [p.name for p in ctx.org.policies.values()]
    require_unique(existing, [s["policyName"] for s in specs], "policy label")
    for spec in specs:
        check_time_allowed(ctx, spec.get("time", ""))
        strict = EXPRESSIONS if unknown_params_refused else ()
        check_expressions(spec, unknown_params_in=strict, field_rules_in=(*strict, "time"))
        if unknown_params_refused:  # a scenario's policies are warned of by its checks, once, not at each reset
            log_warnings(spec)
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
            time=spec.get("time", ""),
        )
        ctx.org.policies[policy.policy_id] = policy
        made.append(policy)
    return made


def check_time_allowed(ctx: Context, time: str) -> None:
    """A ``time`` field is refused unless the organization has the early-access feature."""
    if time.strip() and TIME_FEATURE not in ctx.org.features:
        raise InvalidArgument(
            "invalid policy time: time-based policies are in early access and not enabled for this "
            f"organization (the simulator enables them with the organization feature {TIME_FEATURE} "
            "in a scenario's features)"
        )


def check_expressions(
    spec: Json,
    *,
    unknown_params_in: Collection[str] = EXPRESSIONS,
    field_rules_in: Collection[str] = (*EXPRESSIONS, "time"),
) -> None:
    """Refuse a condition, consensus or time outside the language subset the simulator evaluates; for
    those in ``unknown_params_in``, one naming an ``activity.params`` field that no activity type has
    (the message lists those that exist); for those in ``field_rules_in``, one the service refuses
    (double quotes, another field's keywords, a time function outside ``time`` or with bad arguments)."""
    # imported on first use: the policy language's parser and evaluator are not on serve's start path
    from simulator.policy.fields import POLICY_FIELDS, field_problems
    from simulator.policy.language import compile_expression
    from simulator.policy.params import unknown_paths

    for field in POLICY_FIELDS:
        try:
            expression = compile_expression(spec.get(field, ""))
        except PolicySyntaxError as exc:
            raise InvalidArgument(f"invalid policy {field}: {exc}") from None
        problems = unknown_paths(expression.root) if field in unknown_params_in else []
        problems += field_problems(expression, field) if field in field_rules_in else []
        if problems:
            raise InvalidArgument(f"invalid policy {field}: {'; '.join(problems)}")


def log_warnings(spec: Json) -> None:
    """The docs-contradiction warnings (simulator.policy.lint): in the simulator's log, not a refusal."""
    from simulator.policy.lint import warnings_of

    for warning in warnings_of(spec):
        LOG.warning("policy %r: %s", spec.get("policyName", ""), warning)
