"""IP allow-lists: the parent organization's list and per-API-key lists (their enforcement on every
request is simulator/handler_support/ip_allowlist_check.py).

The service's rules: only top-level organizations have them (requests authenticated in a
sub-organization are never evaluated). The organization's list (no ``publicKey``) applies when
enabled; enabled with no rules it blocks everything. A key's list is consulted only while the
organization's list is enabled: with rules it replaces the organization's for that key, empty
it falls back to it. Auth-proxy requests are exempt (here: requests without a client address).
"""

from __future__ import annotations

import ipaddress

from simulator.errors import InvalidArgument, NotFound, PermissionDenied
from simulator.handler_support.context import Context
from simulator.handler_support.ip_allowlist_check import ORG_LIST
from simulator.state.records import IpAllowlist
from simulator.state.store import Organization
from simulator.wire import Json

MAX_RULES_PER_FAMILY = 10
BROADEST_PREFIX = {4: 20, 6: 48}
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def set_ip_allowlist(ctx: Context, params: Json) -> Json:
    """Replace the rules of the organization's list or of one API key's list."""
    check_top_level(ctx.org)
    key = checked_key(ctx, params.get("publicKey"))
    current = ctx.org.ip_allowlists.get(key or ORG_LIST)
    on_error = params.get("onEvaluationError") or (current.on_evaluation_error if current else "DENY")
    if on_error not in ("ALLOW", "DENY"):
        raise InvalidArgument(f"invalid onEvaluationError {on_error!r}: expected ALLOW or DENY")
    enabled = None
    if key is None:
        enabled = bool(params.get("enabled", current.enabled if current else False))
    rules = checked_rules(params.get("rules", []), ctx.now_ms)
    ctx.org.ip_allowlists[key or ORG_LIST] = IpAllowlist(ctx.org.organization_id, key, rules, enabled, on_error)
    return {}


def remove_ip_allowlist(ctx: Context, params: Json) -> Json:
    check_top_level(ctx.org)
    key = checked_key(ctx, params.get("publicKey"))
    if ctx.org.ip_allowlists.pop(key or ORG_LIST, None) is None:
        what = f"API key {key}" if key else f"organization {ctx.org.organization_id}"
        raise NotFound(f"no IP allow-list is set for {what}", error_code="REQUEST_INVALID")
    return {}


def check_top_level(org: Organization) -> None:
    if org.parent_id is not None:
        raise PermissionDenied(
            f"IP allow-lists belong to the parent organization: sub-organization {org.organization_id} cannot "
            "configure one"
        )


def checked_key(ctx: Context, public_key: str | None) -> str | None:
    if not public_key:
        return None
    wanted = public_key.lower()
    if not any(wanted in (k.public_key for k in u.api_keys.values()) for u in ctx.org.users.values()):
        raise NotFound(
            f"no API key with public key {public_key} in organization {ctx.org.organization_id}",
            error_code="PUBLIC_KEY_NOT_FOUND",
        )
    return wanted


def checked_rules(rules: list[Json], now_ms: int) -> list[Json]:
    """Normalised networks (host bits cleared), duplicates dropped keeping the first label."""
    out: dict[Network, Json] = {}
    for index, rule in enumerate(rules):
        network = parse_cidr(index, rule["cidr"])
        if network not in out:
            out[network] = {"cidr": str(network), "label": rule.get("label", ""), "createdAt": str(now_ms)}
    for version in (4, 6):
        count = sum(n.version == version for n in out)
        if count > MAX_RULES_PER_FAMILY:
            raise InvalidArgument(f"too many IPv{version} rules ({count}): at most {MAX_RULES_PER_FAMILY}")
    return list(out.values())


def parse_cidr(index: int, cidr: str) -> Network:
    try:
        network = ipaddress.ip_network(cidr.strip(), strict=False)
    except ValueError:
        raise InvalidArgument(f"invalid CIDR at rules[{index}]: {cidr!r}") from None
    broadest = BROADEST_PREFIX[network.version]
    if network.prefixlen < broadest:
        raise InvalidArgument(
            f"invalid CIDR at rules[{index}]: {cidr!r} is broader than /{broadest}, the widest IPv{network.version} "
            "range allowed"
        )
    return network
