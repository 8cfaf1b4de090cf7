"""Rate limits as the service applies them (docs.turnkey.com/reference/rate-limits), on the simulator's clock.

One mechanism for both uses: rules whose ``outcome`` is ``rateLimited``, checked right after a request is
authenticated, before anything else happens (a refused request changes nothing but the rule's counter).

- A rule with a ``budget`` (``{requests, seconds, per}``) is a bucket per organization (``per: organization``),
  per sub-organization (``subOrganization``: parents are not counted) or per parent organization and all its
  sub-organizations together (``parent``). Like the service's "per-minute buckets that refill continuously",
  a burst of ``requests`` passes, then one more every ``seconds / requests``. Every budget that matches a
  request must have room for it, and only an admitted request uses room.
- A rule without one answers 429 to what it matches (narrowed by ``occurrence``, ``times``, ``probability``,
  as any rule), so a suite can test its back-off path deterministically; the first such rule that applies wins.

``Config.rate_limits`` (``serve --rate-limits``) and a scenario's ``rateLimits:`` key become budget rules named
``rateLimits.perSubOrganization``, ``rateLimits.perParent`` and ``rateLimits.perEndpoint.<operation>`` (the
endpoints the docs give their own 10 RPS); a scenario's rule of that name replaces the configuration's. The answer is the service's: HTTP 429, gRPC 8, ``RATE_LIMIT_EXCEEDED``, one of its documented
messages, and no ``Retry-After`` or rate-limit headers ("The API does not return rate-limit or Retry-After
headers").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from simulator import errors
from simulator.clock import Source
from simulator.config import LIMITED_ENDPOINTS, Budget, RateLimits
from simulator.errors import ResourceExhausted, documented
from simulator.handler_support.matching import matches
from simulator.state.records import User
from simulator.state.store import Organization, Store
from simulator.wire import Json

RATE_LIMITED = "rateLimited"
PER_SUB_ORGANIZATION = "rateLimits.perSubOrganization"
PER_PARENT = "rateLimits.perParent"
PER_ENDPOINT = "rateLimits.perEndpoint"
# the documented messages: an organization-wide limit, an endpoint or activity-type limit, and any query
ORGANIZATION_WIDE = "Too many requests in a short period of time. Please wait a few minutes and try again."
PER_TYPE = "Too many requests for this type of activity. Please wait a few minutes and try again."
QUERY = "Resource exhausted; please wait a minute and try again."


@dataclass(frozen=True)
class Request:
    """What a rate-limit rule can match: ``kind`` is "submit" or "query", ``operation`` the URL's last segment."""

    kind: str
    operation: str
    activity_type: str  # "" for a query
    params: Json  # an activity's parameters, a query's body


def check(
    rules: list[Json],
    limits: RateLimits | None,
    store: Store,
    source: Source,
    target: Organization,
    user: User,
    request: Request,
    now_ms: int,
) -> None:
    """Raise the service's 429 when a scripted rule or an exhausted budget refuses the request."""
    scripted = [r for r in rules if r.get("outcome") == RATE_LIMITED]
    if not scripted and limits is None:
        return
    for rule in scripted:
        if "budget" not in rule and applies(rule, target, user, request) and counted(rule, store, source):
            raise refusal(rule, request, target)
    named = {r["name"] for r in scripted}
    budgets = [r for r in config_rules(limits) if r["name"] not in named] + [r for r in scripted if "budget" in r]
    admitted: list[tuple[str, int]] = []
    for rule in budgets:
        key = bucket_key(rule, store, target)
        if key is None or not applies(rule, target, user, request):
            continue
        arrival = next_arrival(store, key, rule["budget"], now_ms)
        if arrival is None:
            raise refusal(rule, request, target)
        admitted.append((key, arrival))
    for key, arrival in admitted:
        store.rule_hits[key] = arrival


def applies(rule: Json, target: Organization, user: User, request: Request) -> bool:
    match: Json = rule.get("match", {})
    operations = match.get("operation")
    if operations is not None and request.operation not in (
        [operations] if isinstance(operations, str) else operations
    ):
        return False
    if "type" in match and not request.activity_type:
        return False  # a query has no activity type
    return matches(match, target, user, request.activity_type, request.params)


def counted(rule: Json, store: Store, source: Source) -> bool:
    """Whether a matching scripted rule applies to this request (``occurrence``, ``times``, ``probability``)."""
    hits = store.rule_hits[rule["name"]] = store.rule_hits.get(rule["name"], 0) + 1
    if "occurrence" in rule.get("match", {}) and hits != rule["match"]["occurrence"]:
        return False
    if "times" in rule and hits > rule["times"]:
        return False
    return not ("probability" in rule and source.randbelow(1_000_000) >= rule["probability"] * 1_000_000)


def refusal(rule: Json, request: Request, target: Organization) -> ResourceExhausted:
    """A query's own message; an activity's is the error catalogue's (the sub-organization variant when
    the parent's shared bucket is empty), then the rate-limit page's."""
    if request.kind == "query":
        return ResourceExhausted(QUERY)
    match = rule.get("match", {})
    detail = PER_TYPE if "type" in match or "operation" in match else ORGANIZATION_WIDE
    shared = target.parent_id is not None and rule.get("budget", {}).get("per") == "parent"
    return ResourceExhausted(documented(errors.RATE_LIMITED_PARENT if shared else errors.RATE_LIMITED, detail))


def bucket_key(rule: Json, store: Store, target: Organization) -> str | None:
    """The organization whose bucket the request uses (None: the budget does not count it)."""
    per = rule["budget"].get("per", "organization")
    if per == "subOrganization" and target.parent_id is None:
        return None
    owner = target
    while per == "parent" and owner.parent_id is not None and owner.parent_id in store.orgs:
        owner = store.orgs[owner.parent_id]
    return f"{rule['name']}@{owner.organization_id}"


def next_arrival(store: Store, key: str, budget: Json, now_ms: int) -> int | None:
    """The bucket's next state if it has room for a request now, else None.

    The generic cell rate algorithm: one number per bucket (kept in ``rule_hits``, so a reset, a snapshot
    and an export carry it), the time at which the bucket would be full again, counted in 1/requests ms so
    that the arithmetic is exact: a burst of exactly ``requests`` passes from full.
    """
    requests = int(budget["requests"])
    share = round(float(budget["seconds"]) * 1000)  # one request's share of the window, in 1/requests ms
    now = now_ms * requests
    full_at = max(store.rule_hits.get(key, now), now)
    if full_at - now > share * (requests - 1):
        return None
    return full_at + share


# the configuration's and the scenario key's budgets ------------------------------------------------------------
@functools.cache
def config_rules(limits: RateLimits | None) -> tuple[Json, ...]:
    """``Config.rate_limits`` as budget rules (built once per configuration)."""
    if limits is None:
        return ()
    return tuple(budget_rules(limits))


def budget_rules(limits: RateLimits) -> list[Json]:
    found = []
    for name, budget, per, match in (
        (PER_SUB_ORGANIZATION, limits.per_sub_organization, "subOrganization", None),
        (PER_PARENT, limits.per_parent, "parent", None),
        *((f"{PER_ENDPOINT}.{op}", limits.per_endpoint, "organization", op) for op in LIMITED_ENDPOINTS),
    ):
        if budget is not None:
            rule: Json = {"name": name, "outcome": RATE_LIMITED}
            if match is not None:
                rule["match"] = {"operation": match}
            rule["budget"] = {"requests": budget.requests, "seconds": budget.seconds, "per": per}
            found.append(rule)
    return found


def from_scenario(value: Any) -> RateLimits | None:
    """A scenario's ``rateLimits:`` (checked by schemas/scenario.json): ``true`` for the documented defaults,
    ``{plan, perSubOrganization, perParent, perEndpoint}`` to choose (a budget ``false`` turns it off), ``false``: none.
    Raises ValueError for a value the schema lets through but a budget refuses."""
    if value is None or value is False:
        return None
    if value is True:
        return RateLimits()
    base = RateLimits.plan(value.get("plan", "enterprise"))
    return RateLimits(
        per_sub_organization=budget_of(value.get("perSubOrganization", True), base.per_sub_organization),
        per_parent=budget_of(value.get("perParent", True), base.per_parent),
        per_endpoint=budget_of(value.get("perEndpoint", True), base.per_endpoint),
    )


def budget_of(value: Any, default: Budget | None) -> Budget | None:
    if value is True:
        return default
    if value is False:
        return None
    return Budget(value["requests"], value["seconds"])
