"""The organization itself: its name, its root quorum and its features.

Root-quorum-only activities (update_organization_name, update_root_quorum, the features) are
refused by the consensus engine to anyone outside the quorum; the handlers check again because a
scripted rule or a parent's credential may have let the request through.
"""

from __future__ import annotations

from urllib.parse import urlparse

from simulator.errors import InvalidArgument, NotFound, PermissionDenied
from simulator.handler_support.context import Context
from simulator.wire import Json


def set_organization_feature(ctx: Context, params: Json) -> Json:
    """Root quorum only (policies cannot grant it); the webhook feature needs an http(s) URL."""
    if ctx.principal is not None and not ctx.principal.is_root:
        raise PermissionDenied(
            "request not authorized: only the root quorum can set organization features "
            f"(user {ctx.principal.user.user_id} is not a root user)"
        )
    name, value = params["name"], params["value"]
    if name == "FEATURE_NAME_WEBHOOK":
        check_webhook_url(value)
    ctx.org.features[name] = value
    return {"features": ctx.org.features_api()}


def remove_organization_feature(ctx: Context, params: Json) -> Json:
    """Root quorum only; removing a feature that is not set is refused."""
    if ctx.principal is not None and not ctx.principal.is_root:
        raise PermissionDenied("request not authorized: only the root quorum can remove organization features")
    if params["name"] not in ctx.org.features:
        raise NotFound(
            f"feature {params['name']} is not set on organization {ctx.org.organization_id}",
            error_code="REQUEST_INVALID",
        )
    del ctx.org.features[params["name"]]
    return {"features": ctx.org.features_api()}


def check_webhook_url(value: str) -> None:
    url = urlparse(value)
    if url.scheme not in ("http", "https") or not url.netloc:
        raise InvalidArgument(
            f"invalid webhook URL {value!r}: expected an absolute http(s) URL such as http://127.0.0.1:9000/hooks",
            error_code="INVALID_FQDN",
        )


def require_root(ctx: Context, what: str) -> None:
    principal = ctx.principal
    if principal is not None and principal.user.user_id not in ctx.org.root_user_ids:
        raise PermissionDenied(
            f"request not authorized: only the root quorum can {what} "
            f"(user {principal.user.user_id} is not a root user of organization {ctx.org.organization_id})"
        )


def update_organization_name(ctx: Context, params: Json) -> Json:
    require_root(ctx, "rename the organization")
    name = params["organizationName"].strip()
    if not name:
        raise InvalidArgument("organizationName must not be empty")
    ctx.org.name = name
    return {"organizationId": ctx.org.organization_id, "organizationName": name}


def update_root_quorum(ctx: Context, params: Json) -> Json:
    """The new quorum governs every activity decided from now on (see the README's fidelity notes
    for activities already waiting)."""
    require_root(ctx, "change the root quorum")
    threshold, user_ids = params["threshold"], list(dict.fromkeys(params["userIds"]))
    if threshold < 1:
        raise InvalidArgument(f"quorum threshold must be non-zero integer (got {threshold})")
    missing = [u for u in user_ids if u not in ctx.org.users]
    if not user_ids or missing:
        raise InvalidArgument(
            "quorum users missing: "
            + (
                f"not users of organization {ctx.org.organization_id}: {', '.join(missing)}"
                if missing
                else "none given"
            )
        )
    if threshold > len(user_ids):
        raise InvalidArgument(
            f"quorum threshold {threshold} is larger than the number of quorum users ({len(user_ids)})"
        )
    ctx.org.root_user_ids = user_ids
    ctx.org.root_threshold = threshold
    return {}
